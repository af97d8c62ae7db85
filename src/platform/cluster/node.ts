// One node of a cluster (README "Several nodes"): it keeps its etcd lease alive, serves the
// tenants etcd says it owns, claims the tenants of nodes whose lease expired, carries out the
// moves asked of it, and refuses to write whenever it cannot prove ownership.
//
// Fencing: the lease is renewed every TTL/4; a node whose last successful renewal was sent more
// than 2/3 of the TTL ago stops writing (503, retryable) and stops replicating, before etcd can
// expire its lease and let another node claim its tenants. A write also needs the tenant's epoch
// in etcd to be the one this node restored or created it at.
import type { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import type { ClusterConfig, Config } from '../../config'
import { legacyTokens } from '../auth/legacy-tokens'
import type { LitestreamSupervisor, ReplicatedDatabase } from '../backup/litestream'
import { NoReplicaError, writeMark } from '../backup/restore'
import type { Logger } from '../foundation/log'
import { conflict, notFound, unavailable } from '../foundation/problem'
import { type OperatorKeyRow, operatorKeys, tenantDueWork, tenants } from '../tenancy/control-schema'
import {
  type ControlDb,
  controlDatabasePath,
  type TenantPool,
  tenantDatabasePath,
} from '../tenancy/databases'
import { deleteTenantRows, findTenantById, listTenants, type Tenant } from '../tenancy/tenants'
import { gateWrites, inWriteTransaction } from '../tenancy/transaction'
import { Directory } from './directory'
import { EtcdClient } from './etcd'
import { NodeLease } from './lease'
import { assignOrphans } from './placement'
import {
  createTenantRecord,
  deleteTenantRecord,
  type FailoverReport,
  keys,
  type NodeRecord,
  swapTenantRecord,
  type TenantRecord,
  type Versioned,
} from './records'
import { awaitReplica, litestreamMetaDir, newestWriteAt, restoreFromReplica } from './replica'
import { shareLegacyTokens, shareOperatorKey } from './shared-credentials'

/**
 * `restoring`: the replica is being fetched. `ready`: served. `draining`: a move started, new
 * requests wait while the ones in flight finish. `moving`: writes refused, the replica catching up.
 * `handing-over`: out of replication, until the epoch is the new owner's. `leaving`: out of
 * replication, its files removed once Litestream has let go of them.
 */
type LocalState = 'restoring' | 'ready' | 'draining' | 'moving' | 'handing-over' | 'leaving'

interface LocalTenant {
  state: LocalState
  /** The ownership epoch this copy was created or restored at. */
  epoch: number
}

export type Route =
  | { kind: 'local'; tenantId: string }
  | { kind: 'remote'; node: string; url: string }
  | { kind: 'wait'; reason: string }
  | { kind: 'unavailable'; reason: string }
  | { kind: 'unknown' }

export interface ClusterDeps {
  config: Config & { cluster: ClusterConfig }
  log: Logger
  control: ControlDb
  pool: TenantPool
  /**
   * A tenant's database was replaced by its replica: what this process cached of it (principals)
   * is stale. Its sessions, credentials and staff may have changed on another node meanwhile.
   */
  replaced: (tenantId: string) => void
}

/** How long in-flight requests of a tenant may take to finish before its move refuses the rest. */
const DRAIN_LIMIT_MS = 2000
/**
 * The most a move waits for Litestream to ship the tenant's last writes: it goes on as soon as
 * Litestream reports the upload, and fails as soon as it reports it cannot make it.
 */
const REPLICA_WAIT_MS = 20_000
/** Changes of the node's tenants this close together share one restart of a Litestream. */
const RELOAD_DEBOUNCE_MS = 300
/** A restore that fails (replica not reachable yet) is tried again after this. */
const RESTORE_RETRY_MS = 500

export class ClusterNode {
  readonly id: string
  readonly etcd: EtcdClient
  readonly directory: Directory
  readonly settings: ClusterConfig
  url = ''
  /** Set by `serve` once Litestream runs. */
  replication: LitestreamSupervisor | null = null
  private readonly lease: NodeLease
  private startedAt = 0
  private fencedBefore = false
  private stopped = false
  private readonly local = new Map<string, LocalTenant>()
  private readonly inFlight = new Map<string, number>()
  private readonly waiters = new Set<() => void>()
  private readonly busy = new Set<string>()
  private reconciling: Promise<void> | null = null
  private reconcileAgain = false
  private timers: ReturnType<typeof setInterval>[] = []
  private reloadTimer: ReturnType<typeof setTimeout> | null = null
  /**
   * When a request for the tenant last came through this node for another owner, or waited for
   * it: if its owner dies, the tenants clients were using come back first.
   */
  private readonly wanted = new Map<string, number>()
  /** Restores of tenants in use running now; the others wait until there is none. */
  private urgentRestores = 0
  private readonly restoreQueue: (() => void)[] = []
  private readonly k: ReturnType<typeof keys>

  constructor(private readonly deps: ClusterDeps) {
    this.settings = deps.config.cluster
    this.id = this.settings.nodeId
    this.etcd = new EtcdClient(this.settings.etcdUrl)
    this.k = keys(this.settings.prefix)
    this.directory = new Directory(this.etcd, this.settings.prefix, deps.log, () => this.changed())
    this.lease = new NodeLease(this.etcd, this.k.node(this.id), this.settings.leaseTtlSeconds, deps.log)
  }

  private get ttlMs(): number {
    return this.settings.leaseTtlSeconds * 1000
  }

  /** Installed on every tenant connection the pool opens. */
  gate(sqlite: Database, tenantId: string): void {
    gateWrites(sqlite, () => this.assertWritable(tenantId))
  }

  async start(url: string): Promise<void> {
    this.url = url
    this.startedAt = Date.now()
    await this.lease.acquire({ id: this.id, url, startedAt: new Date(this.startedAt).toISOString() })
    await this.directory.start()
    await this.shareCredentials()
    this.adoptLocalCopies()
    this.timers.push(setInterval(() => this.checkFence(), 100))
    this.timers.push(setInterval(() => this.changed(), 1000))
    this.changed()
    this.scheduleReload()
    this.deps.log.info('cluster: node joined', { node: this.id, url, etcd: this.settings.etcdUrl })
  }

  /**
   * Leaves the cluster: revoking the lease lets the other nodes claim this node's tenants at once.
   * `serve` stops Litestream first, so the replicas hold every write.
   */
  async stop(): Promise<void> {
    this.stopped = true
    for (const timer of this.timers) clearInterval(timer)
    if (this.reloadTimer) clearTimeout(this.reloadTimer)
    this.directory.stop()
    await this.lease.release()
  }

  fenced(): boolean {
    return this.lease.fenced()
  }

  /** On fencing and unfencing: replication stops and starts, waiting requests re-decide. */
  private checkFence(): void {
    const fenced = this.fenced()
    if (fenced === this.fencedBefore) return
    this.fencedBefore = fenced
    if (fenced)
      this.deps.log.warn('cluster: cut off from etcd: writes refused, replication stopped', { node: this.id })
    else this.deps.log.info('cluster: lease renewed again: serving', { node: this.id })
    void this.replication?.reload()
    this.changed()
  }

  /**
   * Litestream 0.3 restarts to change its set of databases, and a restart delays every database's
   * next sync: changes close together (tenants created, claimed, dropped) share one restart. A move
   * and the fence reload at once.
   */
  private scheduleReload(): void {
    if (this.reloadTimer) return
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = null
      void this.replication?.reload()
    }, RELOAD_DEBOUNCE_MS)
  }

  /** The databases Litestream replicates: this node's control database and the tenants it serves. */
  replicatedDatabases(): ReplicatedDatabase[] {
    const { dataDir } = this.deps.config
    const databases = [{ name: `control-${this.id}`, path: controlDatabasePath(dataDir) }]
    if (this.fenced()) return databases
    for (const [id, local] of this.local)
      if (
        local.state !== 'restoring' &&
        local.state !== 'handing-over' &&
        local.state !== 'leaving' &&
        findTenantById(this.deps.control, id)
      )
        databases.push({ name: id, path: tenantDatabasePath(dataDir, id) })
    return databases
  }

  // --- Serving -------------------------------------------------------------------------------

  writable(tenantId: string): boolean {
    if (this.fenced()) return false
    const local = this.local.get(tenantId)
    const record = this.directory.tenants.get(tenantId)?.value
    // Not in etcd yet: a tenant being created here, which no request reaches before `publish`.
    if (!record) return !local
    return (
      (local?.state === 'ready' || local?.state === 'draining') &&
      record.owner === this.id &&
      record.epoch === local.epoch
    )
  }

  assertWritable(tenantId: string): void {
    if (!this.writable(tenantId))
      throw unavailable('This node cannot write to the tenant now (moving or failing over); retry')
  }

  /** Where a request for the tenant named by id or slug goes. */
  route(target: { id?: string; slug?: string }): Route {
    const found =
      (target.id ? this.directory.tenants.get(target.id) : undefined) ??
      (target.slug ? this.directory.tenantBySlug(target.slug) : undefined)
    if (!found) return { kind: 'unknown' }
    const record = found.value
    if (record.lost) return { kind: 'unavailable', reason: `the tenant is lost (${record.lost.reason})` }
    if (record.owner === this.id) {
      if (this.fenced()) return { kind: 'unavailable', reason: 'this node is cut off from etcd' }
      const local = this.local.get(record.tenant.id)
      if (local?.state === 'ready' && local.epoch === record.epoch)
        return { kind: 'local', tenantId: record.tenant.id }
      this.wanted.set(record.tenant.id, Date.now())
      return { kind: 'wait', reason: local ? `tenant is ${local.state}` : 'tenant is being restored' }
    }
    const node = this.directory.nodes.get(record.owner)
    this.wanted.set(record.tenant.id, Date.now())
    if (!node) return { kind: 'wait', reason: `owner ${record.owner} is gone; failing over` }
    return { kind: 'remote', node: node.id, url: node.url }
  }

  /** Counts a request served locally, so a move can wait for it. */
  enter(tenantId: string): () => void {
    this.inFlight.set(tenantId, (this.inFlight.get(tenantId) ?? 0) + 1)
    return () => {
      const left = (this.inFlight.get(tenantId) ?? 1) - 1
      if (left > 0) this.inFlight.set(tenantId, left)
      else this.inFlight.delete(tenantId)
      this.notify()
    }
  }

  /** Resolves on the next change of the directory or of a local tenant, or after `ms`. */
  nextChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.waiters.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.waiters.add(done)
    })
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter()
  }

  /** The live node with the fewest tenants: where a new tenant goes. */
  placementFor(): string {
    const counts = this.directory.countsByNode()
    let best = this.id
    for (const [node, count] of counts) if (count < (counts.get(best) ?? Infinity)) best = node
    return best
  }

  nodeUrl(node: string): string | undefined {
    return this.directory.nodes.get(node)?.url
  }

  // --- Tenants created here -------------------------------------------------------------------

  /**
   * Records a tenant just created in this node's data directory as owned by this node. A slug
   * taken meanwhile on another node: the local copy is removed and the answer is 409.
   */
  async publish(tenant: Tenant): Promise<void> {
    const record: TenantRecord = {
      tenant,
      owner: this.id,
      epoch: 1,
      writeMark: null,
      changedAt: new Date().toISOString(),
    }
    const revision = await createTenantRecord(this.etcd, this.settings.prefix, record)
    if (revision === null) {
      await this.removeLocalCopy(tenant.id)
      throw conflict(`tenant "${tenant.slug}" already exists in the cluster`)
    }
    this.local.set(tenant.id, { state: 'ready', epoch: 1 })
    this.directory.wrote(record, revision)
    this.scheduleReload()
  }

  // --- Reconciling with etcd ------------------------------------------------------------------

  /** Something changed: wake waiting requests and reconcile (serialized, coalesced). */
  private changed(): void {
    this.notify()
    if (this.reconciling) {
      this.reconcileAgain = true
      return
    }
    this.reconciling = this.reconcile()
      .catch((error) => this.deps.log.error('cluster: reconcile failed', { error: String(error) }))
      .finally(() => {
        this.reconciling = null
        if (this.reconcileAgain) {
          this.reconcileAgain = false
          this.changed()
        }
      })
  }

  /** At start: local copies etcd still gives this node are served; others are left unserved. */
  private adoptLocalCopies(): void {
    for (const tenant of listTenants(this.deps.control)) {
      const record = this.directory.tenants.get(tenant.id)?.value
      if (record?.owner === this.id) this.local.set(tenant.id, { state: 'ready', epoch: record.epoch })
      else if (record) void this.removeLocalCopy(tenant.id, 'keep-aside')
      else
        this.deps.log.warn('cluster: a local tenant is not in etcd; it is not served', {
          tenant: tenant.slug,
          id: tenant.id,
        })
    }
  }

  private async reconcile(): Promise<void> {
    if (this.stopped || !this.lease.held || this.fenced()) return
    const { tenants: records, nodes } = this.directory
    for (const [id, { value: record }] of records) {
      const local = this.local.get(id)
      if (record.owner === this.id) {
        if (this.busy.has(id) || record.lost) continue
        if (!local || local.epoch !== record.epoch) this.track(id, async () => void (await this.bringUp(id)))
        else if (local.state !== 'ready') continue
        else if (findTenantById(this.deps.control, id)) await this.publishRowChange(id)
        // Deleted here (the operator API, an expired ephemeral tenant): gone from the cluster too.
        else this.track(id, () => this.forget(record.tenant))
      } else if (local && !this.busy.has(id)) {
        this.deps.log.warn('cluster: tenant owned elsewhere now; dropping the local copy', {
          tenant: record.tenant.slug,
          owner: record.owner,
        })
        this.track(id, () => this.removeLocalCopy(id, 'keep-aside'))
      }
    }
    for (const [id, local] of this.local) {
      // Its record is gone from etcd: the tenant was deleted.
      if (!records.has(id) && !this.busy.has(id) && local.state === 'ready')
        this.track(id, () => this.removeLocalCopy(id))
    }
    this.claimOrphans(nodes)
    for (const [id, move] of this.directory.moves) {
      const record = records.get(id)?.value
      if (
        !move.error &&
        record?.owner === this.id &&
        !this.busy.has(id) &&
        this.local.get(id)?.state === 'ready'
      )
        this.track(id, () => this.carryOutMove(id, move.to))
    }
  }

  /** Runs one piece of work per tenant at a time. */
  private track(id: string, work: () => Promise<void>): void {
    this.busy.add(id)
    void work()
      .catch((error) =>
        this.deps.log.error('cluster: tenant work failed', { tenant: id, error: String(error) }),
      )
      .finally(() => {
        this.busy.delete(id)
        this.changed()
      })
  }

  /**
   * Tenants whose owner's lease is gone go to the live nodes, spread evenly; every node computes the
   * same plan and claims its share with a compare-and-swap. A node claims only once it has been up
   * for a TTL, so nodes starting together all register first.
   */
  private claimOrphans(nodes: Map<string, NodeRecord>): void {
    if (Date.now() - this.startedAt < this.ttlMs) return
    const records = [...this.directory.tenants.values()].map(({ value }) => value)
    const orphaned = records.filter((r) => !nodes.has(r.owner))
    if (orphaned.length === 0) return
    // Claims complete in any order, and each survivor sees them land in its own: planning over the
    // tenants already claimed from the nodes still leaving orphans too, against the counts without
    // them, gives every survivor the plan it would have made before the first claim.
    const departing = new Set(orphaned.map((r) => r.owner))
    const claimed = records.filter((r) => nodes.has(r.owner) && departing.has(r.claimedFrom ?? ''))
    const orphans = orphaned.map((r) => r.tenant.id)
    const counts = this.directory.countsByNode()
    for (const r of claimed) counts.set(r.owner, counts.get(r.owner)! - 1)
    const plan = assignOrphans([...orphans, ...claimed.map((r) => r.tenant.id)], counts)
    for (const id of orphans) {
      if (plan.get(id) !== this.id || this.busy.has(id)) continue
      this.track(id, () => this.claim(id))
    }
  }

  private async claim(id: string): Promise<void> {
    const departed = () => {
      const current = this.directory.tenants.get(id)
      return current && !this.directory.nodes.has(current.value.owner) ? current : undefined
    }
    if (!departed()) return
    const claimingAt = Date.now()
    // The restore's turn is taken before the claim: claims land in any order, and a tenant in use
    // whose claim lands last must still go before the others.
    const done = await this.restoreSlot(id)
    // Read again after the wait: its owner may be back (a node cut off from etcd joins again).
    const current = departed()
    if (!current) return done()
    const from = current.value.owner
    const detectedAt = this.directory.departedAt.get(from) ?? Date.now()
    const next: TenantRecord = {
      ...current.value,
      owner: this.id,
      epoch: current.value.epoch + 1,
      writeMark: null,
      changedAt: new Date().toISOString(),
      // Lost on the node that died: tried again here, from whatever the replica holds now.
      lost: undefined,
      claimedFrom: from,
    }
    let claimedAt = 0
    try {
      const revision = await swapTenantRecord(this.etcd, this.settings.prefix, current, next)
      if (revision === null) return
      claimedAt = Date.now()
      this.deps.log.warn('cluster: claimed a tenant of a departed node', { tenant: next.tenant.slug, from })
      this.directory.wrote(next, revision)
      if (!(await this.bringUp(id, true))) return
    } finally {
      done()
    }
    const servingAt = Date.now()
    // Where the recovery time goes after the lease expired (README "Several nodes", Measured).
    this.deps.log.info('cluster: failover timings', {
      tenant: next.tenant.slug,
      from,
      plannedAfterMs: claimingAt - detectedAt,
      claimMs: claimedAt - claimingAt,
      restoreMs: servingAt - claimedAt,
    })
    const report: FailoverReport = {
      tenantId: id,
      slug: next.tenant.slug,
      from,
      to: this.id,
      detectedAt: new Date(detectedAt).toISOString(),
      servingAt: new Date(servingAt).toISOString(),
      rtoMs: this.ttlMs + (servingAt - detectedAt),
      restoredThrough: newestWriteAt(tenantDatabasePath(this.deps.config.dataDir, id)),
    }
    await this.etcd.put(this.k.failover(id), JSON.stringify(report)).catch(() => {})
  }

  /**
   * Restores the tenant from its replica and serves it (in its turn, see restoreSlot, unless the
   * caller took it); tried again until it works or is moot (false), or until the replica turns
   * out to hold nothing that restores: then the tenant is marked lost.
   */
  private async bringUp(id: string, turnTaken = false): Promise<boolean> {
    for (;;) {
      const current = this.directory.tenants.get(id)
      const record = current?.value
      if (!current || !record || record.owner !== this.id || this.stopped) return false
      this.local.set(id, { state: 'restoring', epoch: record.epoch })
      try {
        // Epoch 1 was never anyone else's: a copy here was created here (by the command line).
        const createdHere =
          record.epoch === 1 && findTenantById(this.deps.control, id) && this.hasDatabase(id)
        if (!createdHere) {
          const done = turnTaken ? () => {} : await this.restoreSlot(id)
          try {
            await this.restore(record)
          } finally {
            done()
          }
        }
        this.local.set(id, { state: 'ready', epoch: record.epoch })
        this.scheduleReload()
        this.deps.log.info('cluster: serving tenant', { tenant: record.tenant.slug, epoch: record.epoch })
        this.notify()
        return true
      } catch (error) {
        if (error instanceof NoReplicaError) {
          await this.markLost(current, error.message)
          return false
        }
        this.deps.log.warn('cluster: restore failed; trying again', {
          tenant: record.tenant.slug,
          error: String(error),
        })
        await Bun.sleep(RESTORE_RETRY_MS)
      }
    }
  }

  /** No replica to restore: the tenant is recorded lost in etcd rather than tried forever. */
  private async markLost(current: Versioned<TenantRecord>, reason: string): Promise<void> {
    this.local.delete(current.value.tenant.id)
    const next = { ...current.value, lost: { at: new Date().toISOString(), reason } }
    const revision = await swapTenantRecord(this.etcd, this.settings.prefix, current, next)
    if (revision !== null) this.directory.wrote(next, revision)
    this.deps.log.error('cluster: tenant lost: no replica of it restores', {
      tenant: next.tenant.slug,
      from: current.value.owner,
      reason,
    })
    this.notify()
  }

  /**
   * A failover claims several tenants together. Restored all at once they share the cores: each
   * took 0.8-1.2 s on two, the one clients were writing to among them. Two at a time, those in use
   * first, it took 0.24-1.08 s, but the last of ten waited 5 s. So a tenant with requests through
   * this node in the last two lease TTLs (`wanted`) restores at once, and the others, all together,
   * once no such restore runs (README "Several nodes", Measured).
   */
  private async restoreSlot(id: string): Promise<() => void> {
    const urgent = Date.now() - (this.wanted.get(id) ?? 0) < 2 * this.ttlMs
    if (urgent) this.urgentRestores++
    else if (this.urgentRestores > 0) await new Promise<void>((start) => this.restoreQueue.push(start))
    return () => {
      this.wanted.delete(id)
      if (!urgent || --this.urgentRestores > 0) return
      for (const start of this.restoreQueue.splice(0)) start()
    }
  }

  private async restore(record: TenantRecord): Promise<void> {
    const { config, pool, control } = this.deps
    const { tenant } = record
    pool.destroy(tenant.id)
    await restoreFromReplica(config, tenant, record.writeMark)
    inWriteTransaction(control, (tx) => {
      tx.delete(tenants).where(eq(tenants.id, tenant.id)).run()
      // Written on another node: every job visits the restored file once.
      tx.delete(tenantDueWork).where(eq(tenantDueWork.tenantId, tenant.id)).run()
      tx.insert(tenants).values(tenant).run()
    })
    this.deps.replaced(tenant.id)
  }

  private hasDatabase(id: string): boolean {
    return existsSync(tenantDatabasePath(this.deps.config.dataDir, id))
  }

  /** Suspensions and other changes of the control row reach etcd, so the next owner has them. */
  private async publishRowChange(id: string): Promise<void> {
    const current = this.directory.tenants.get(id)
    const row = findTenantById(this.deps.control, id)
    if (!current || !row || row.updatedAt === current.value.tenant.updatedAt) return
    await swapTenantRecord(this.etcd, this.settings.prefix, current, { ...current.value, tenant: row })
  }

  /**
   * Forgets the tenant here: its control rows, its database and Litestream's state beside it. The
   * files go only once Litestream has let go of them: removed under it, they made it fail (and,
   * in one process for every database, fail the others' last syncs with it).
   */
  private async removeLocalCopy(id: string, keep: 'keep-aside' | 'delete' = 'delete'): Promise<void> {
    const local = this.local.get(id)
    if (local) local.state = 'leaving'
    this.notify()
    const { control, pool, config } = this.deps
    if (keep === 'keep-aside') this.keepAside(id)
    await this.replication?.reload()
    if (this.local.get(id) === local) this.local.delete(id)
    deleteTenantRows(control, id)
    pool.destroy(id)
    rmSync(litestreamMetaDir(tenantDatabasePath(config.dataDir, id)), { recursive: true, force: true })
    this.notify()
  }

  /**
   * A copy another node took over without this node handing it over (a failover) may hold writes
   * its replica missed: a consistent copy goes to DATA_DIR/superseded/ for the operator.
   */
  private keepAside(id: string): void {
    const dir = join(this.deps.config.dataDir, 'superseded')
    const path = join(dir, `${id}-${new Date().toISOString().replace(/[:.]/g, '-')}.sqlite`)
    try {
      if (!this.hasDatabase(id)) return
      mkdirSync(dir, { recursive: true })
      this.deps.pool.get(id).sqlite.query('VACUUM INTO ?').run(path)
      this.deps.log.warn('cluster: superseded copy kept', { tenant: id, path })
    } catch (error) {
      this.deps.log.error('cluster: could not keep the superseded copy', { tenant: id, error: String(error) })
    }
  }

  // --- Moving ---------------------------------------------------------------------------------

  /**
   * The owner's side of a move: new requests wait, the ones in flight finish, writes stop, the
   * replica gets its last sync, and the epoch goes to the target with a compare-and-swap; the
   * target restores and serves, and waiting requests go there.
   */
  private async carryOutMove(id: string, to: string): Promise<void> {
    const current = this.directory.tenants.get(id)
    const local = this.local.get(id)
    if (!current || !local || current.value.owner !== this.id) return
    const fail = (error: string) =>
      this.etcd.put(this.k.move(id), JSON.stringify({ ...this.directory.moves.get(id), error }))
    if (to === this.id) {
      await this.etcd.delete(this.k.move(id))
      return
    }
    if (!this.directory.nodes.has(to)) {
      await fail(`node ${to} is not in the cluster`)
      return
    }
    const started = Date.now()
    local.state = 'draining'
    this.notify()
    while ((this.inFlight.get(id) ?? 0) > 0 && Date.now() - started < DRAIN_LIMIT_MS)
      await this.nextChange(50)
    local.state = 'moving'
    try {
      const mark = writeMark(this.deps.pool.get(id).sqlite)
      const row = findTenantById(this.deps.control, id) ?? current.value.tenant
      // Still replicated: handed over once Litestream reports the last writes uploaded and the
      // replica, read back, holds them.
      const replication = this.replication
      if (!replication) throw new Error('Litestream does not run on this node')
      const uploads = replication.follow(tenantDatabasePath(this.deps.config.dataDir, id), REPLICA_WAIT_MS)
      await awaitReplica(this.deps.config, row, mark, uploads)
      // Litestream lets go of it before the swap: from then on only the new owner's Litestream
      // writes to its replica. A last upload of this node's (its final sync's own checkpoint)
      // landing after the new owner's would make this node's generation the newest, and a restore
      // of the replica would miss the new owner's writes.
      local.state = 'handing-over'
      await replication.reload()
      const next: TenantRecord = {
        tenant: row,
        owner: to,
        epoch: current.value.epoch + 1,
        writeMark: mark,
        changedAt: new Date().toISOString(),
      }
      const revision = await swapTenantRecord(this.etcd, this.settings.prefix, current, next)
      if (revision === null) throw new Error('the tenant record changed during the move')
      this.directory.wrote(next, revision)
      await this.etcd.delete(this.k.move(id))
      this.deps.log.info('cluster: tenant handed over', {
        tenant: row.slug,
        to,
        epoch: next.epoch,
        writeMark: mark,
        pausedMs: Date.now() - started,
      })
      await this.removeLocalCopy(id)
    } catch (error) {
      local.state = 'ready'
      this.scheduleReload()
      await fail(String(error instanceof Error ? error.message : error))
    }
  }

  // --- Operator views -------------------------------------------------------------------------

  status() {
    const counts = this.directory.countsByNode()
    return {
      node: this.id,
      url: this.url,
      fenced: this.fenced(),
      leaseTtlSeconds: this.settings.leaseTtlSeconds,
      routing: this.settings.routing,
      nodes: [...this.directory.nodes.values()]
        .map((node) => ({
          id: node.id,
          url: node.url,
          startedAt: node.startedAt,
          tenants: counts.get(node.id) ?? 0,
        }))
        .sort((a, b) => a.id.localeCompare(b.id)),
      tenants: [...this.directory.tenants.values()]
        .map(({ value }) => ({
          id: value.tenant.id,
          slug: value.tenant.slug,
          owner: value.owner,
          epoch: value.epoch,
          ownerAlive: this.directory.nodes.has(value.owner),
          moving: this.directory.moves.get(value.tenant.id)?.to ?? null,
          lost: value.lost ?? null,
        }))
        .sort((a, b) => a.slug.localeCompare(b.slug)),
      failovers: [...this.directory.failovers.values()].sort((a, b) =>
        b.servingAt.localeCompare(a.servingAt),
      ),
    }
  }

  // --- Credentials ---------------------------------------------------------------------------

  /**
   * What this node's control database holds that every node must know: its operator keys (made
   * here before it joined, or while etcd could not be reached) and the tenants of its tokens from
   * before tokens named their tenant. Before the node serves, so they work anywhere from then on.
   */
  private async shareCredentials(): Promise<void> {
    const { prefix } = this.settings
    for (const row of this.deps.control.select().from(operatorKeys).all())
      await shareOperatorKey(this.etcd, prefix, row)
    await shareLegacyTokens(this.etcd, prefix, legacyTokens(this.deps.control), this.directory.legacyTokens)
  }

  /** The operator key of that token hash as the cluster has it. */
  operatorKey(tokenHash: string): OperatorKeyRow | undefined {
    for (const key of this.directory.operatorKeys.values()) if (key.tokenHash === tokenHash) return key
    return undefined
  }

  /** The tenant of a token issued before tokens named it, as the node that issued it shared it. */
  legacyTokenTenant(tokenHash: string): string | undefined {
    return this.directory.legacyTokens.get(tokenHash)
  }

  /** Every tenant of the cluster as etcd has it, with its owner. */
  tenantRecords(): TenantRecord[] {
    return [...this.directory.tenants.values()].map(({ value }) => value)
  }

  /** The tenant named by id or slug, as etcd has it (404 when unknown). */
  recordOf(idOrSlug: string): Versioned<TenantRecord> {
    const found = this.directory.tenants.get(idOrSlug) ?? this.directory.tenantBySlug(idOrSlug)
    if (!found) throw notFound('tenant', idOrSlug)
    return found
  }

  /** Removes a tenant deleted here from etcd, and this node's copy of it. */
  private async forget(tenant: { id: string; slug: string }): Promise<void> {
    if ((await deleteTenantRecord(this.etcd, this.settings.prefix, tenant)) === null)
      await this.etcd.delete(this.k.tenant(tenant.id))
    for (const [hash, tenantId] of this.directory.legacyTokens)
      if (tenantId === tenant.id) await this.etcd.delete(this.k.legacyToken(hash))
    this.directory.tenants.delete(tenant.id)
    await this.removeLocalCopy(tenant.id)
  }
}
