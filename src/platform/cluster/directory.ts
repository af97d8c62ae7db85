// This node's copy of the cluster state in etcd: listed once, then kept current by a watch; when
// the watch breaks it lists again. `onChange` runs after every batch of changes.
import type { Logger } from '../foundation/log'
import type { OperatorKeyRow } from '../tenancy/control-schema'
import type { EtcdClient, KeyValue, WatchEvent } from './etcd'
import {
  type FailoverReport,
  keys,
  type MoveRequest,
  type NodeRecord,
  type TenantRecord,
  type Versioned,
} from './records'

export class Directory {
  readonly nodes = new Map<string, NodeRecord>()
  readonly tenants = new Map<string, Versioned<TenantRecord>>()
  readonly slugs = new Map<string, string>()
  readonly moves = new Map<string, MoveRequest>()
  readonly failovers = new Map<string, FailoverReport>()
  /** Tokens issued before tokens named their tenant: their tenant, by the token's hash. */
  readonly legacyTokens = new Map<string, string>()
  /** Operator keys, valid on every node, by id. */
  readonly operatorKeys = new Map<string, OperatorKeyRow>()
  /** When a node's key last disappeared (its lease expired or was revoked). */
  readonly departedAt = new Map<string, number>()
  private readonly abort = new AbortController()
  private loaded: Promise<void> | null = null

  constructor(
    private readonly etcd: EtcdClient,
    private readonly prefix: string,
    private readonly log: Logger,
    private readonly onChange: () => void,
  ) {}

  /** Resolves once the first listing is in. */
  start(): Promise<void> {
    this.loaded ??= new Promise((resolve) => void this.run(resolve))
    return this.loaded
  }

  stop(): void {
    this.abort.abort()
  }

  /** A record this node just wrote, unless the watch already brought it or something newer. */
  wrote(record: TenantRecord, modRevision: number): void {
    const known = this.tenants.get(record.tenant.id)
    if (!known || known.modRevision < modRevision)
      this.tenants.set(record.tenant.id, { value: record, modRevision })
    this.slugs.set(record.tenant.slug, record.tenant.id)
  }

  tenantBySlug(slug: string): Versioned<TenantRecord> | undefined {
    const id = this.slugs.get(slug)
    return id ? this.tenants.get(id) : undefined
  }

  /** Tenants per live node. */
  countsByNode(): Map<string, number> {
    const counts = new Map([...this.nodes.keys()].map((node) => [node, 0]))
    for (const { value } of this.tenants.values())
      if (counts.has(value.owner)) counts.set(value.owner, counts.get(value.owner)! + 1)
    return counts
  }

  private async run(loaded: () => void): Promise<void> {
    let failures = 0
    while (!this.abort.signal.aborted) {
      try {
        const { kvs, revision } = await this.etcd.list(this.prefix)
        this.replaceAll(kvs)
        loaded()
        this.onChange()
        failures = 0
        await this.etcd.watch(this.prefix, revision + 1, (events) => this.apply(events), this.abort.signal)
      } catch (error) {
        if (this.abort.signal.aborted) return
        if (failures++ === 0)
          this.log.warn('cluster: etcd watch broke; listing again', { error: String(error) })
        await Bun.sleep(Math.min(1000, 100 * failures))
      }
    }
  }

  private replaceAll(kvs: KeyValue[]): void {
    const before = new Set(this.nodes.keys())
    const maps = [this.nodes, this.tenants, this.slugs, this.moves, this.failovers]
    for (const map of [...maps, this.legacyTokens, this.operatorKeys]) map.clear()
    for (const kv of kvs) this.set(kv.key, kv.value, kv.modRevision)
    for (const node of before) if (!this.nodes.has(node)) this.departedAt.set(node, Date.now())
  }

  private apply(events: WatchEvent[]): void {
    for (const event of events) {
      if (event.type === 'put') this.set(event.key, event.value, event.modRevision)
      else this.remove(event.key)
    }
    this.onChange()
  }

  private set(key: string, value: string, modRevision: number): void {
    const k = keys(this.prefix)
    const name = (folder: string) => key.slice(folder.length)
    try {
      if (key.startsWith(k.nodes)) {
        this.nodes.set(name(k.nodes), JSON.parse(value))
        this.departedAt.delete(name(k.nodes))
      } else if (key.startsWith(k.tenants))
        this.tenants.set(name(k.tenants), { value: JSON.parse(value), modRevision })
      else if (key.startsWith(k.slugs)) this.slugs.set(name(k.slugs), value)
      else if (key.startsWith(k.moves)) this.moves.set(name(k.moves), JSON.parse(value))
      else if (key.startsWith(k.failovers)) this.failovers.set(name(k.failovers), JSON.parse(value))
      else if (key.startsWith(k.legacyTokens)) this.legacyTokens.set(name(k.legacyTokens), value)
      else if (key.startsWith(k.operatorKeys)) this.operatorKeys.set(name(k.operatorKeys), JSON.parse(value))
    } catch (error) {
      this.log.error('cluster: unreadable etcd value', { key, error: String(error) })
    }
  }

  private remove(key: string): void {
    const k = keys(this.prefix)
    if (key.startsWith(k.nodes)) {
      const node = key.slice(k.nodes.length)
      if (this.nodes.delete(node)) this.departedAt.set(node, Date.now())
    } else if (key.startsWith(k.tenants)) this.tenants.delete(key.slice(k.tenants.length))
    else if (key.startsWith(k.slugs)) this.slugs.delete(key.slice(k.slugs.length))
    else if (key.startsWith(k.moves)) this.moves.delete(key.slice(k.moves.length))
    else if (key.startsWith(k.failovers)) this.failovers.delete(key.slice(k.failovers.length))
    else if (key.startsWith(k.legacyTokens)) this.legacyTokens.delete(key.slice(k.legacyTokens.length))
    else if (key.startsWith(k.operatorKeys)) this.operatorKeys.delete(key.slice(k.operatorKeys.length))
  }
}
