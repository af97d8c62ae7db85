// A node's registration in etcd: its key under a lease it renews every TTL/4, and the fence. The
// fence closes once the last successful renewal was *sent* more than 2/3 of the TTL ago: etcd
// received it later still, so the lease cannot have expired yet, and the other nodes cannot have
// claimed this node's tenants, while the fence is open.
import type { Logger } from '../foundation/log'
import type { EtcdClient } from './etcd'
import type { NodeRecord } from './records'

export class NodeLease {
  private lease: string | null = null
  private renewedAt = 0
  private stopped = false

  constructor(
    private readonly etcd: EtcdClient,
    private readonly key: string,
    private readonly ttlSeconds: number,
    private readonly log: Logger,
  ) {}

  /** Registered: the node key exists under a lease granted to this process. */
  get held(): boolean {
    return this.lease !== null
  }

  fenced(): boolean {
    return Date.now() - this.renewedAt > (this.ttlSeconds * 1000 * 2) / 3
  }

  /** Grants a lease and puts the node key under it; then renews it until `release`. */
  async acquire(record: NodeRecord): Promise<void> {
    await this.register(record)
    void this.renewLoop(record)
  }

  /** Revoking the lease removes the node key at once, rather than a TTL later. */
  async release(): Promise<void> {
    this.stopped = true
    if (this.lease) await this.etcd.revoke(this.lease).catch(() => {})
  }

  private async register(record: NodeRecord): Promise<void> {
    const sentAt = Date.now()
    const lease = await this.etcd.grantLease(this.ttlSeconds)
    await this.etcd.put(this.key, JSON.stringify(record), lease)
    this.lease = lease
    this.renewedAt = sentAt
  }

  private async renewLoop(record: NodeRecord): Promise<void> {
    const interval = (this.ttlSeconds * 1000) / 4
    while (!this.stopped) {
      const sentAt = Date.now()
      try {
        if (!this.lease) await this.register(record)
        else if (await this.etcd.keepAlive(this.lease)) this.renewedAt = sentAt
        else {
          // Expired while this node was cut off: its tenants are someone else's now.
          this.log.warn('cluster: lease expired; joining again', { node: record.id })
          this.lease = null
          await this.register(record)
        }
      } catch (error) {
        if (!this.fenced())
          this.log.warn('cluster: lease renewal failed', { node: record.id, error: String(error) })
      }
      await Bun.sleep(Math.max(0, interval - (Date.now() - sentAt)))
    }
  }
}
