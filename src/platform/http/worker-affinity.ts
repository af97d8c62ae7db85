// With HTTP workers (WORKERS > 1), each tenant has one worker that holds it: its owner, picked by a
// hash of its id. The kernel spreads connections, not tenants, so each worker was asked for every
// tenant, opened them all, and held half as many as one process would (bench/README.md, tenth
// pass). Unless its pool has room for them beyond its own share, a worker passes the requests for
// a tenant another worker owns to that worker over its Unix socket; but a tenant hot here
// (HOT_ASKS_PER_SECOND) is served here too, when passing would cost more than holding it in both.
// Any worker can serve any tenant (the databases are shared files): passing only saves opens, so
// an owner that is not serving (starting again) is not waited for.
import { mkdirSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { Elysia } from 'elysia'
import type { TenantDirectory } from '../auth/principal-cache'
import { problemResponse, unavailable } from '../foundation/problem'
import { noteReceivedFromWorker, requestInfo } from '../foundation/request-context'
import { fnv1a } from '../foundation/shared-memory'
import type { TenantPool } from '../tenancy/databases'
import { passRequest } from './pass-request'
import { tenantTarget } from './request-tenant'

/** The client's address, as the worker that passed the request saw it. Read on the worker socket only. */
export const PASSED_CLIENT_HEADER = 'x-worker-client'
/**
 * Above this many requests for another worker's tenant in a second, a worker serves the tenant
 * itself (opening it if need be) for that second and the next.
 */
const HOT_ASKS_PER_SECOND = 32

/** The worker (1 to `workers`) that holds the tenant. */
export const tenantOwner = (tenantId: string, workers: number): number => (fnv1a(tenantId) % workers) + 1

export class WorkerAffinity {
  /** Requests this worker passed to their tenant's owner, and those passed to it. */
  passed = 0
  received = 0
  private second = -1
  /** The tenants, and this worker's share of them (the tenants over the workers), counted each second. */
  private tenants = 0
  private share = 0
  /** Requests for other workers' tenants this second; those hot this second and the last. */
  private asks = new Map<string, number>()
  private hot = new Set<string>()
  private hotBefore = new Set<string>()

  constructor(
    readonly workerId: number,
    readonly workers: number,
    private readonly socketDir: string,
    private readonly pool: TenantPool,
    private readonly tenantCount: () => number,
    /** Whether a worker serves now, as the primary last said. */
    private readonly serving: (workerId: number) => boolean,
  ) {}

  socketOf(workerId: number): string {
    return join(this.socketDir, `${workerId}`)
  }

  /**
   * The worker that answers a request for the tenant: this one, or the tenant's owner. Another
   * worker's tenant is opened here while the pool can hold every tenant, or has room for it beyond
   * this worker's own share, or while the tenant is hot here; otherwise the tenants this worker
   * opened for others become the least recent in its pool, and its own tenants' opens evict them.
   */
  answererFor(tenantId: string): number {
    const owner = tenantOwner(tenantId, this.workers)
    if (owner === this.workerId || !this.serving(owner)) return this.workerId
    this.nextSecond()
    if (this.pool.capacity >= this.tenants || this.pool.room > this.share) return this.workerId
    const asks = (this.asks.get(tenantId) ?? 0) + 1
    this.asks.set(tenantId, asks)
    if (asks > HOT_ASKS_PER_SECOND) this.hot.add(tenantId)
    return this.hot.has(tenantId) || this.hotBefore.has(tenantId) ? this.workerId : owner
  }

  private nextSecond(): void {
    const second = Math.floor(performance.now() / 1000)
    if (second === this.second) return
    this.hotBefore = second === this.second + 1 ? this.hot : new Set()
    this.hot = new Set()
    this.asks = new Map()
    this.second = second
    this.tenants = this.tenantCount()
    this.share = Math.ceil(this.tenants / this.workers)
  }
}

/** The longest socket path every platform takes (sun_path is 104 to 108 bytes). */
const MAX_SOCKET_PATH = 100

/**
 * Where a data directory's workers listen to each other: in the data directory, as private as the
 * databases (the passed client address is trusted there); when that path is too long for a
 * socket, a directory of this user's alone in the system's temporary directory.
 */
export function workerSocketDir(dataDir: string): string {
  let dir = join(dataDir, 'workers')
  if (join(dir, '256').length > MAX_SOCKET_PATH) {
    mkdirSync(dataDir, { recursive: true })
    dir = join(tmpdir(), `restaurant-ops-${userInfo().uid}-${fnv1a(realpathSync(dataDir)).toString(36)}`)
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}

/**
 * The worker's own socket, which answers what the other workers pass it with the same app: its
 * requests keep their client's address and are never passed again.
 */
export function listenForWorkers(
  affinity: WorkerAffinity,
  app: { fetch(request: Request): Response | Promise<Response> },
) {
  const unix = affinity.socketOf(affinity.workerId)
  rmSync(unix, { force: true })
  return Bun.serve({
    unix,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch(request) {
      affinity.received++
      noteReceivedFromWorker(request, request.headers.get(PASSED_CLIENT_HEADER))
      return app.fetch(request)
    },
  })
}

const ownerUnavailable = () => unavailable('The worker that holds this tenant did not answer; retry')

/** Runs after the HTTP conventions' first step (the request id, the drain), before routing. */
export function workerAffinity(affinity: WorkerAffinity, tenants: TenantDirectory, defaultSlug: string) {
  return new Elysia({ name: 'worker-affinity' }).onRequest(async ({ request }) => {
    const info = requestInfo(request)
    if (info.fromWorker) return
    const path = new URL(request.url).pathname
    const target = tenantTarget(request, path, defaultSlug)
    if (!target || 'place' in target || path.startsWith('/admin/')) return
    const tenantId = target.id ?? tenants.byTenantSlug(target.slug!)?.id
    if (!tenantId) return
    const answerer = affinity.answererFor(tenantId)
    if (answerer === affinity.workerId) return
    affinity.passed++
    try {
      return await passRequest(
        request,
        { unix: affinity.socketOf(answerer) },
        { 'x-request-id': info.requestId, [PASSED_CLIENT_HEADER]: info.ipAddress ?? '' },
      )
    } catch {
      // It went between the primary's reports: a request whose body is untouched is served here.
      if (!request.bodyUsed) return
      return problemResponse(ownerUnavailable(), info.requestId)
    }
  })
}
