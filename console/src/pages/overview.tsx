// Is it healthy: readiness, the scheduler's jobs, backups at a glance; the operator also sees the
// tenant pool and the tenants with their status.

import type { PageProps } from '../api'
import { type Answer, get, isOperator, readiness } from '../api'
import { Badge, bytes, Section, Table, useLoad, when } from '../ui'

type Health = Answer<'/health/ready', 'get'>
type Cluster = NonNullable<Health['cluster']>
type TenantPool = NonNullable<Health['tenantPool']>

/** The operator's view of the pool of open tenant databases: how full, how often it had to open one. */
function PoolSummary({ pool }: { pool: TenantPool }) {
  return (
    <>
      <h3>Tenant pool</h3>
      <p>
        {pool.open} of {pool.capacity} tenant databases open ({bytes(pool.memoryBytes)} allowed,{' '}
        {bytes(pool.connectionBytes)} measured per connection). Hit rate{' '}
        <strong>{(100 * pool.hitRate).toFixed(1)}%</strong> ({pool.hits} hits, {pool.misses} misses since
        start); {pool.evictions} evictions.
      </p>
    </>
  )
}

/** Several nodes: this node, and how long the last failover took and what it restored (RTO, RPO). */
function ClusterSummary({ cluster }: { cluster: Cluster }) {
  const last = cluster.lastFailover
  return (
    <>
      <h3>Cluster</h3>
      <p>
        Node <code>{cluster.node}</code>{' '}
        <Badge tone={cluster.fenced ? 'bad' : 'good'}>
          {cluster.fenced ? 'fenced: cut off from etcd' : 'in the cluster'}
        </Badge>{' '}
        of {cluster.nodes} live nodes; it owns {cluster.tenantsOwned} tenants.
      </p>
      <p>
        {last
          ? `Last failover: tenant ${last.slug} served again ${when(last.at)}, ${(last.rtoMs / 1000).toFixed(1)} s after its node was lost (RTO); restored through ${when(last.restoredThrough)} (RPO: writes after that were lost).`
          : 'No failover yet.'}
      </p>
    </>
  )
}

export function OverviewPage({ session }: PageProps) {
  const operator = isOperator(session)
  const health = useLoad(readiness, [])
  const backups = useLoad(() => (operator ? get('/admin/v1/backups') : get('/backups')), [operator])
  const tenants = useLoad(
    () => (operator ? get('/admin/v1/tenants', { limit: 100 }) : Promise.resolve(null)),
    [operator],
  )
  return (
    <>
      <Section title="Health and readiness" loaded={health}>
        {(h) => (
          <>
            <p>
              Status:{' '}
              <Badge tone={h.status === 'ok' ? 'good' : 'bad'}>
                {h.status === 'ok' ? 'ready' : h.status}
              </Badge>
            </p>
            <ul class="checks">
              {Object.entries(h.checks).map(([name, result]) => (
                <li key={name}>
                  {name}:{' '}
                  <Badge tone={result === 'ok' || result === 'running' ? 'good' : 'bad'}>{result}</Badge>
                </li>
              ))}
            </ul>
            {h.tenantPool && <PoolSummary pool={h.tenantPool} />}
            {h.cluster && <ClusterSummary cluster={h.cluster} />}
          </>
        )}
      </Section>
      <Section title="Scheduler jobs" loaded={health}>
        {(h) => (
          <Table
            caption="Background jobs"
            rows={h.jobs}
            columns={[
              ['Job', (j) => <code>{j.name}</code>],
              ['State', (j) => (j.running ? <Badge tone="neutral">running</Badge> : 'idle')],
              ['Last run', (j) => when(j.lastStartedAt)],
              ['Next run', (j) => when(j.nextRunAt)],
              ['Runs', (j) => j.runs],
              [
                'Failures',
                (j) =>
                  j.failures === 0 ? (
                    '0'
                  ) : (
                    <Badge tone={j.consecutiveFailures > 0 ? 'bad' : 'neutral'}>
                      {j.failures}
                      {j.lastError ? `: ${j.lastError}` : ''}
                    </Badge>
                  ),
              ],
            ]}
          />
        )}
      </Section>
      <Section title="Backups at a glance" loaded={backups}>
        {(b) => (
          <>
            <p>
              Mode: <strong>{b.mode}</strong>
              {b.replication && (
                <>
                  {' '}
                  · Litestream{' '}
                  <Badge tone={b.replication.state === 'running' ? 'good' : 'bad'}>
                    {b.replication.state}
                  </Badge>
                </>
              )}
            </p>
            <Table
              caption="Databases"
              rows={b.databases}
              columns={[
                ['Database', (d) => d.tenantSlug ?? d.name],
                ['Size', (d) => bytes(d.sizeBytes + d.walBytes)],
                ['Last snapshot', (d) => when(d.lastSnapshotAt)],
                [
                  'Replicated up to',
                  (d) => (d.replica ? when(d.replica.latestReplicatedAt) : 'not replicated'),
                ],
              ]}
            />
          </>
        )}
      </Section>
      {operator && (
        <Section title="Tenants" loaded={tenants}>
          {(list) => (
            <Table
              caption="Tenants"
              rows={list?.tenants ?? []}
              columns={[
                ['Slug', (t) => <code>{t.slug}</code>],
                ['Name', (t) => t.name],
                ['Status', (t) => <Badge tone={t.status === 'active' ? 'good' : 'bad'}>{t.status}</Badge>],
                ['Created', (t) => when(t.createdAt)],
                ['Expires', (t) => (t.ephemeral ? when(t.expiresAt) : 'never')],
              ]}
            />
          )}
        </Section>
      )}
    </>
  )
}
