// `tenant move` and `tenant rebalance`: the same moves as the operator API, asked of the owners
// through etcd (CLUSTER_ETCD_URL), so they need no running node's credentials.
import type { Config } from '../config'
import { EtcdClient } from '../platform/cluster/etcd'
import { moveTenant, rebalance } from '../platform/cluster/moves'
import { CommandFailure, type Flags, optional, required, UsageError } from './flags'

function clusterOf(config: Config) {
  if (!config.cluster) throw new UsageError('CLUSTER_ETCD_URL is not set: this service runs as a single node')
  return { etcd: new EtcdClient(config.cluster.etcdUrl), prefix: config.cluster.prefix }
}

/** `tenant move <slug> --to <node>` (or `--tenant <slug>`). */
export function moveCommand(config: Config, slug: string | undefined, flags: Flags) {
  const { etcd, prefix } = clusterOf(config)
  const tenant = slug ?? optional(flags, 'tenant')
  if (!tenant) throw new UsageError('tenant move needs the tenant: tenant move <slug> --to <node>')
  return moveTenant(etcd, prefix, tenant, required(flags, 'to'))
}

/** `tenant rebalance`: its result printed either way; non-zero when a move was refused. */
export async function rebalanceCommand(config: Config) {
  const { etcd, prefix } = clusterOf(config)
  const result = await rebalance(etcd, prefix)
  if (result.failed.length > 0)
    throw new CommandFailure(
      `${result.failed.length} move(s) refused: ${result.failed.map((f) => `${f.tenant.slug}: ${f.error}`).join('; ')}`,
      result,
    )
  return result
}
