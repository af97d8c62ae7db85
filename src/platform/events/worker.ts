// The delivery worker: one scheduler job (`webhooks.deliver`) that visits the tenants with
// deliveries due. It does not open every tenant on every run: a tenant is visited when a write
// of this process made deliveries (events fan out as they commit: `fanOutAtCommit`), when its
// earliest pending delivery falls due, and when the due index (platform/jobs/due-index.ts) says it has deliveries due: read at
// start (resuming what a previous process left pending) and every few minutes after (events
// written by another process, such as the command line). A tenant with no pending delivery is
// never opened.
import pkg from '../../../package.json'
import type { Config } from '../../config'
import type { Logger } from '../foundation/log'
import type { DueIndex, DueWorkSource } from '../jobs/due-index'
import type { Scheduler } from '../jobs/scheduler'
import type { PrimaryLink } from '../primary-link'
import type { ControlDb, TenantPool } from '../tenancy/databases'
import { findTenantById } from '../tenancy/tenants'
import { deliverTenant, nextDueAt, onDeliveriesQueued } from './delivery'

export const DELIVERY_JOB = 'webhooks.deliver'
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))
const SWEEP_INTERVAL_MS = 5 * 60 * 1000

export interface DeliveryWorkerDeps {
  config: Config
  log: Logger
  control: { db: ControlDb }
  pool: TenantPool
  jobs: Scheduler
  dueIndex: DueIndex
  /** In an HTTP worker: the primary delivers, this process only tells it which tenants to visit. */
  primary: PrimaryLink | null
}

/** When a tenant next has deliveries to make: its undelivered events now, else its earliest retry. */
const pendingDeliveries: DueWorkSource = { job: DELIVERY_JOB, nextWork: (_tenant, db) => nextDueAt(db) }

export class DeliveryWorker {
  /** Tenants to visit, with the time each next needs a visit. */
  private readonly due = new Map<string, number>()
  /** Tenants hinted since their visit began: visited again even if the visit found nothing. */
  private readonly hinted = new Set<string>()
  private nextSweepAt = 0
  private readonly unsubscribe: () => void

  constructor(private readonly deps: DeliveryWorkerDeps) {
    deps.dueIndex.register(pendingDeliveries)
    this.unsubscribe = onDeliveriesQueued((tenantId) => this.wake(tenantId))
    deps.jobs.register({
      name: DELIVERY_JOB,
      intervalMs: deps.config.webhookPollIntervalMs,
      run: (signal) => this.run(signal),
    })
  }

  /** A tenant has something new to deliver: visit it soon. */
  wake(tenantId: string): void {
    if (this.deps.primary) {
      this.deps.primary.wake(tenantId)
      return
    }
    this.due.set(tenantId, 0)
    this.hinted.add(tenantId)
    this.deps.jobs.trigger(DELIVERY_JOB)
  }

  /** One pass: every tenant that is due, one after another. */
  async run(signal: AbortSignal): Promise<void> {
    const { control, pool, config, log, dueIndex } = this.deps
    const now = Date.now()
    if (now >= this.nextSweepAt) {
      // Every tenant with deliveries pending, due now or later (a retry's time).
      for (const { tenant, dueAt } of await dueIndex.scheduled(DELIVERY_JOB))
        if (!this.due.has(tenant.id)) this.due.set(tenant.id, dueAt)
      this.nextSweepAt = now + SWEEP_INTERVAL_MS
    }
    const failed: string[] = []
    for (const [tenantId, dueAt] of [...this.due]) {
      if (signal.aborted) break
      if (dueAt > Date.now()) continue
      // Opening and checking a tenant is synchronous work: give requests their turn between
      // tenants, so a sweep over a thousand tenants never stalls the API.
      await yieldToEventLoop()
      // Hints arrive for any tenant appending in this process (tests run several platforms). A
      // suspended tenant's deliveries wait: the sweep after it is resumed picks it up again.
      if (findTenantById(control.db, tenantId)?.status !== 'active' || !pool.isServed(tenantId)) {
        this.due.delete(tenantId)
        this.hinted.delete(tenantId)
        continue
      }
      this.hinted.delete(tenantId)
      try {
        const next = await deliverTenant(
          () => pool.get(tenantId).db,
          {
            tenantId,
            retryScheduleMs: config.webhookRetryScheduleMs,
            timeoutMs: config.webhookTimeoutMs,
            allowPrivateTargets: config.webhookAllowPrivateTargets,
            userAgent: `${pkg.name}-webhooks/${pkg.version}`,
            log,
          },
          signal,
        )
        if (this.hinted.has(tenantId)) this.due.set(tenantId, 0)
        else if (next === null) this.due.delete(tenantId)
        else this.due.set(tenantId, next)
        const tenant = findTenantById(control.db, tenantId)
        if (tenant) dueIndex.visited(tenant, pool.get(tenantId).db, DELIVERY_JOB)
      } catch (error) {
        failed.push(`${tenantId}: ${error instanceof Error ? error.message : String(error)}`)
        this.due.set(tenantId, Date.now() + config.webhookPollIntervalMs)
      }
    }
    if (failed.length > 0)
      throw new Error(`webhook delivery failed for ${failed.length} tenant(s): ${failed.join('; ')}`)
  }

  close(): void {
    this.unsubscribe()
  }
}
