// Processing a release: one run takes the club's memberships one at a time. For each, in its own
// transaction, the shipment row (at most one per release and membership, a unique index) and the
// member's order; then the charge of the saved card, outside any transaction, with a provider
// idempotency key of (release, membership, attempt); then the outcome, in a transaction again.
//
// Why nothing is created or charged twice:
// - two runs at once: the shipment row is claimed by the run charging it; another run leaves a
//   freshly claimed shipment alone, and never creates a second order (the row holds the order id);
// - a crash mid-run: the next run finds the shipment Pending with its order, takes the claim over
//   once its lease has lapsed and charges with the same key (the attempt counts only answered charges), which the
//   provider answers with the first charge instead of charging again. An order already paid (a
//   crash between the payment and the shipment's update) is only recorded.
import { and, asc, eq, gt, isNull, lte, notExists, or, type Placeholder, sql } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import { everyLocation } from '../../platform/auth/location-scope'
import { type Actor, systemActor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { ApiError, conflict } from '../../platform/foundation/problem'
import {
  earliestDateStart,
  earliestInstant,
  earliestOf,
  type LeastValue,
  type NextWork,
} from '../../platform/jobs/next-work'
import type { PaymentProvider } from '../../platform/payments/provider'
import type { Db } from '../../platform/tenancy/databases'
import { preparedOn } from '../../platform/tenancy/prepared'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { apply, type ClubMembershipRow, getMembershipRow, liveMembershipIdsOf } from '../club-memberships'
import { getOrderRow } from '../orders'
import { takeCardPayment } from '../payments'
import { createMemberOrder, decide } from './member-order'
import {
  type ClubReleaseRow,
  type ClubReleaseRunRow,
  type ClubShipmentRow,
  clubReleaseRuns,
  clubReleases,
  clubShipments,
} from './schema'
import { assertReleaseStatus, getReleaseRow, getShipmentRow, recordRelease, shipmentView } from './service'

export interface ReleaseDeps {
  provider: PaymentProvider
}

export interface RunOptions {
  /** How long a run's claim on a shipment keeps other runs away (default 10 minutes). */
  claimLeaseMs?: number
}

const DEFAULT_LEASE_MS = 10 * 60_000

/** A shipment write: its audit entry and its `club_shipment.<verb>` event. */
function recordShipment(tx: Queryable, actor: Actor, verb: string, row: ClubShipmentRow, metadata = {}) {
  const view = shipmentView(row)
  recordWrite(tx, actor, {
    action: `club_shipment.${verb}`,
    entityType: 'club_shipment',
    entityId: row.id,
    metadata: { releaseId: row.releaseId, membershipId: row.membershipId, status: row.status, ...metadata },
    event: view,
  })
  return view
}

function updateShipment(
  tx: Queryable,
  actor: Actor,
  verb: string,
  id: string,
  set: Partial<ClubShipmentRow>,
) {
  const row = tx
    .update(clubShipments)
    .set({ ...set, updatedAt: nowIso() })
    .where(eq(clubShipments.id, id))
    .returning()
    .get()
  recordShipment(tx, actor, verb, row, { reason: row.reason, attempts: row.attempts, amount: row.amount })
  return row
}

// ---- Requesting runs ----

function queueRun(
  tx: Queryable,
  actor: Actor,
  release: ClubReleaseRow,
  trigger: ClubReleaseRunRow['trigger'],
) {
  const run = tx
    .insert(clubReleaseRuns)
    .values({
      id: newId(),
      releaseId: release.id,
      trigger,
      status: 'Queued',
      requestedBy: actor.subject,
      error: null,
      createdAt: nowIso(),
      startedAt: null,
      finishedAt: null,
    })
    .onConflictDoNothing()
    .returning()
    .get()
  if (run)
    recordRelease(tx, actor, trigger === 'retry' ? 'retry' : 'process', release, { runId: run.id, trigger })
  return run
}

/** Queues a run of an Active release (`retry`: of its declined shipments only). */
export function requestRun(db: Db, actor: Actor, clubId: string, releaseId: string, retry: boolean) {
  return inWriteTransaction(db, (tx) => {
    const release = getReleaseRow(tx, clubId, releaseId)
    assertReleaseStatus(release, ['Active'], retry ? 'retry declines of' : 'process')
    return { runId: queueRun(tx, actor, release, retry ? 'retry' : 'manual')!.id }
  })
}

/** Queues the scheduled run of every Active release whose process date has come (once each). */
function queueDueReleases(db: Db, tenantId: string, today: string): void {
  const due = db
    .select()
    .from(clubReleases)
    .where(and(eq(clubReleases.status, 'Active'), lte(clubReleases.processDate, today)))
    .all()
  if (due.length === 0) return
  const actor = systemActor(tenantId, 'club-release-schedule')
  inWriteTransaction(db, (tx) => {
    for (const release of due) queueRun(tx, actor, release, 'schedule')
  })
}

// ---- One membership ----

type Claimed = { shipment: ClubShipmentRow; membership: ClubMembershipRow } | null

/**
 * Step one, in one transaction: the shipment row and, for a membership taken, its order, claimed
 * for this run. Null when there is nothing to charge (processed, declined outside a retry, not
 * taken, or being charged by another run).
 */
function claim(
  db: Db,
  actor: Actor,
  run: ClubReleaseRunRow,
  release: ClubReleaseRow,
  membershipId: string,
  leaseMs: number,
): Claimed {
  return inWriteTransaction(db, (tx): Claimed => {
    const m = getMembershipRow(tx, membershipId)
    const now = nowIso()
    let shipment = tx
      .select()
      .from(clubShipments)
      .where(and(eq(clubShipments.releaseId, release.id), eq(clubShipments.membershipId, m.id)))
      .get()
    if (shipment?.status === 'Processed') return null
    if (shipment?.status === 'Declined' && run.trigger !== 'retry') return null
    if (m.status === 'Cancelled') {
      // Cancelled since its shipment was recorded (a retry reaches it): never charged; the
      // unpaid order stays for staff to void.
      if (shipment)
        updateShipment(tx, actor, 'skip', shipment.id, {
          status: 'Skipped',
          reason: `the membership was cancelled on ${m.cancelDate}`,
          lastRunId: run.id,
        })
      return null
    }
    if (
      shipment?.claimedByRunId &&
      shipment.claimedByRunId !== run.id &&
      Date.now() - Date.parse(shipment.claimedAt!) < leaseMs
    )
      return null
    if (!shipment?.orderId) {
      const decision = decide(tx, m, release)
      if (!decision.take) {
        if (shipment?.status === decision.status && shipment.reason === decision.reason) return null
        const values = { status: decision.status, reason: decision.reason, lastRunId: run.id }
        shipment = shipment
          ? updateShipment(tx, actor, decision.status === 'OnHold' ? 'hold' : 'skip', shipment.id, values)
          : insertShipment(tx, actor, release, m, values)
        return null
      }
    }
    if (!shipment)
      shipment = insertShipment(tx, actor, release, m, { status: 'Pending', reason: null, lastRunId: run.id })
    const claimFields = { claimedByRunId: run.id, claimedAt: now, lastRunId: run.id }
    if (shipment.orderId) return { shipment: updateClaim(tx, shipment.id, claimFields), membership: m }
    // Services given `db` join this transaction (inWriteTransaction).
    const order = createMemberOrder(db, actor, release, m)
    const row = updateShipment(tx, actor, 'order', shipment.id, {
      ...claimFields,
      status: 'Pending',
      reason: null,
      orderId: order.id,
      amount: order.total,
    })
    return { shipment: row, membership: m }
  })
}

function insertShipment(
  tx: Queryable,
  actor: Actor,
  release: ClubReleaseRow,
  m: ClubMembershipRow,
  values: Pick<ClubShipmentRow, 'status' | 'reason' | 'lastRunId'>,
) {
  const now = nowIso()
  const row = tx
    .insert(clubShipments)
    .values({
      id: newId(),
      releaseId: release.id,
      membershipId: m.id,
      customerId: m.customerId,
      orderId: null,
      attempts: 0,
      amount: 0,
      paymentIntentId: null,
      claimedByRunId: null,
      claimedAt: null,
      createdAt: now,
      updatedAt: now,
      ...values,
    })
    .returning()
    .get()
  recordShipment(tx, actor, 'create', row, { reason: row.reason })
  return row
}

/** A claim is bookkeeping between runs, not a change of the shipment: no audit entry of its own. */
const updateClaim = (tx: Queryable, id: string, set: Partial<ClubShipmentRow>) =>
  tx.update(clubShipments).set(set).where(eq(clubShipments.id, id)).returning().get()

/** Success: the shipment Processed, and the membership's dates and shipment count moved on. */
function recordProcessed(
  db: Db,
  actor: Actor,
  release: ClubReleaseRow,
  shipment: ClubShipmentRow,
  paymentIntentId: string | null,
) {
  return inWriteTransaction(db, (tx) => {
    const row = updateShipment(tx, actor, 'process', shipment.id, {
      status: 'Processed',
      reason: null,
      attempts: shipment.attempts + (paymentIntentId ? 1 : 0),
      paymentIntentId,
      claimedByRunId: null,
      claimedAt: null,
    })
    const m = getMembershipRow(tx, shipment.membershipId)
    apply(
      tx,
      actor,
      m,
      { lastProcessedDate: release.processDate, currentNumberOfShipments: m.currentNumberOfShipments + 1 },
      'process',
      { releaseId: release.id, shipmentId: shipment.id, orderId: shipment.orderId },
    )
    return row
  })
}

function recordDeclined(db: Db, actor: Actor, shipment: ClubShipmentRow, reason: string) {
  return inWriteTransaction(db, (tx) =>
    updateShipment(tx, actor, 'decline', shipment.id, {
      status: 'Declined',
      reason,
      attempts: shipment.attempts + 1,
      claimedByRunId: null,
      claimedAt: null,
    }),
  )
}

/** The idempotency key of a charge: one per (release, membership) and answered attempt. */
export const chargeKey = (shipment: Pick<ClubShipmentRow, 'releaseId' | 'membershipId' | 'attempts'>) =>
  `club-release:${shipment.releaseId}:membership:${shipment.membershipId}:attempt:${shipment.attempts + 1}`

/** Step two: the charge of the saved card, and its outcome recorded. */
async function charge(
  db: Db,
  actor: Actor,
  deps: ReleaseDeps,
  release: ClubReleaseRow,
  { shipment, membership }: NonNullable<Claimed>,
): Promise<ClubShipmentRow> {
  const order = getOrderRow(db, shipment.orderId!)
  if (order.status === 'paid' || order.balanceDue === 0)
    return recordProcessed(db, actor, release, shipment, order.paymentIntentIds.at(-1) ?? null)
  if (!membership.customerCreditCardId) return recordDeclined(db, actor, shipment, 'no_payment_method')
  try {
    const payment = await takeCardPayment(
      db,
      actor,
      everyLocation,
      deps,
      order.id,
      { tender: 'card', amount: order.balanceDue, customerPaymentMethodId: membership.customerCreditCardId },
      chargeKey(shipment),
    )
    return recordProcessed(db, actor, release, shipment, payment.id)
  } catch (error) {
    if (error instanceof ApiError && error.code === 'payment_required')
      return recordDeclined(db, actor, shipment, error.detail)
    // Anything else (the provider unavailable, the card gone): still Pending, for the next run.
    return inWriteTransaction(db, (tx) =>
      updateShipment(tx, actor, 'fail', shipment.id, {
        reason: error instanceof Error ? error.message : String(error),
        claimedByRunId: null,
        claimedAt: null,
      }),
    )
  }
}

async function processMembership(
  db: Db,
  actor: Actor,
  deps: ReleaseDeps,
  run: ClubReleaseRunRow,
  release: ClubReleaseRow,
  membershipId: string,
  leaseMs: number,
) {
  let claimed: Claimed
  try {
    claimed = claim(db, actor, run, release, membershipId, leaseMs)
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    // The orders service refused the order (a product withdrawn, say): recorded, not charged.
    inWriteTransaction(db, (tx) => {
      const m = getMembershipRow(tx, membershipId)
      const existing = tx
        .select()
        .from(clubShipments)
        .where(and(eq(clubShipments.releaseId, release.id), eq(clubShipments.membershipId, m.id)))
        .get()
      const values = {
        status: 'Skipped' as const,
        reason: `order not created: ${error.detail}`,
        lastRunId: run.id,
      }
      if (existing) updateShipment(tx, actor, 'skip', existing.id, values)
      else insertShipment(tx, actor, release, m, values)
    })
    return
  }
  if (claimed) await charge(db, actor, deps, release, claimed)
}

// ---- Runs ----

function finishRun(db: Db, actor: Actor, run: ClubReleaseRunRow, error: string | null) {
  inWriteTransaction(db, (tx) => {
    const row = tx
      .update(clubReleaseRuns)
      .set({ status: error ? 'Failed' : 'Completed', error, finishedAt: nowIso() })
      .where(eq(clubReleaseRuns.id, run.id))
      .returning()
      .get()
    const release = tx.select().from(clubReleases).where(eq(clubReleases.id, run.releaseId)).get()!
    recordRelease(tx, actor, 'run_finish', release, {
      runId: run.id,
      trigger: run.trigger,
      status: row.status,
      error,
    })
  })
}

/** Runs one queued run to its end. */
export async function executeRun(
  db: Db,
  tenantId: string,
  deps: ReleaseDeps,
  runId: string,
  options: RunOptions = {},
) {
  const leaseMs = options.claimLeaseMs ?? DEFAULT_LEASE_MS
  const actor = systemActor(tenantId, 'club-release-run')
  const run = inWriteTransaction(db, (tx) => {
    const row = tx
      .update(clubReleaseRuns)
      .set({ status: 'Running', startedAt: nowIso(), heartbeatAt: nowIso() })
      .where(eq(clubReleaseRuns.id, runId))
      .returning()
      .get()
    const release = tx.select().from(clubReleases).where(eq(clubReleases.id, row.releaseId)).get()!
    recordRelease(tx, actor, 'run_start', release, { runId, trigger: row.trigger })
    return row
  })
  const release = db.select().from(clubReleases).where(eq(clubReleases.id, run.releaseId)).get()!
  if (release.status !== 'Active') return finishRun(db, actor, run, `the release is ${release.status}`)
  const membershipIds =
    run.trigger === 'retry'
      ? db
          .select({ id: clubShipments.membershipId })
          .from(clubShipments)
          .where(and(eq(clubShipments.releaseId, release.id), eq(clubShipments.status, 'Declined')))
          .all()
      : liveMembershipIdsOf(db, release.clubId)
  for (const { id } of membershipIds) {
    // Archived meanwhile: never charged again.
    const current = db
      .select({ status: clubReleases.status })
      .from(clubReleases)
      .where(eq(clubReleases.id, release.id))
      .get()
    if (current?.status !== 'Active')
      return finishRun(db, actor, run, 'the release was archived during the run')
    await processMembership(db, actor, deps, run, release, id, leaseMs)
    db.update(clubReleaseRuns).set({ heartbeatAt: nowIso() }).where(eq(clubReleaseRuns.id, run.id)).run()
  }
  finishRun(db, actor, run, null)
}

/** Runs the job takes up: queued ones, and running ones with no heartbeat since `staleBefore`. */
const runsToTakeUp = (staleBefore: string | Placeholder) =>
  or(
    eq(clubReleaseRuns.status, 'Queued'),
    and(
      eq(clubReleaseRuns.status, 'Running'),
      or(isNull(clubReleaseRuns.heartbeatAt), lte(clubReleaseRuns.heartbeatAt, staleBefore)),
    ),
  )

/**
 * When the release job next has work for the tenant: now for a run to take up (`runsToTakeUp`)
 * or a due release not queued yet; when a running run's lease runs out (its process
 * may have died); else the start, in the tenant's zone, of the next process date; null when
 * nothing is planned. Its queries are prepared once per connection: the due index asks this of
 * every tenant written (platform/jobs/next-work.ts).
 */
export function nextReleaseWork(db: Db, today: string, timeZone: string, now = Date.now()): NextWork {
  const waiting = preparedOn(db, 'club-release-runs-to-take-up', () =>
    db
      .select({ id: clubReleaseRuns.id })
      .from(clubReleaseRuns)
      .where(runsToTakeUp(sql.placeholder('staleBefore')))
      .limit(1)
      .prepare(),
  ).get({ staleBefore: new Date(now - DEFAULT_LEASE_MS).toISOString() })
  if (waiting) return now
  const unqueued = preparedOn(db, 'club-release-unqueued', () => {
    const scheduledRun = db
      .select({ id: clubReleaseRuns.id })
      .from(clubReleaseRuns)
      .where(and(eq(clubReleaseRuns.releaseId, clubReleases.id), eq(clubReleaseRuns.trigger, 'schedule')))
    return db
      .select({ id: clubReleases.id })
      .from(clubReleases)
      .where(
        and(
          eq(clubReleases.status, 'Active'),
          lte(clubReleases.processDate, sql.placeholder('today')),
          notExists(scheduledRun),
        ),
      )
      .limit(1)
      .prepare()
  }).get({ today })
  if (unqueued) return now
  const heartbeat = earliestInstant(db, oldestRunningHeartbeat)
  return earliestOf(
    heartbeat === null ? null : heartbeat + DEFAULT_LEASE_MS,
    earliestDateStart(db, nextProcessDate, timeZone, { today }),
  )
}

const oldestRunningHeartbeat: LeastValue = {
  key: 'club-release-running-heartbeat',
  table: clubReleaseRuns,
  column: clubReleaseRuns.heartbeatAt,
  where: () => eq(clubReleaseRuns.status, 'Running'),
}
const nextProcessDate: LeastValue = {
  key: 'club-release-next-process-date',
  table: clubReleases,
  column: clubReleases.processDate,
  where: () => and(eq(clubReleases.status, 'Active'), gt(clubReleases.processDate, sql.placeholder('today'))),
}

/**
 * The job's work for one tenant: queue due releases, then run every queued run, oldest first,
 * and resume every run whose process died mid-run (Running, no heartbeat for a claim's lease): its
 * memberships already processed are left alone, an interrupted charge is asked again with its key.
 */
export async function processDue(
  db: Db,
  tenantId: string,
  today: string,
  deps: ReleaseDeps,
  signal?: AbortSignal,
  options: RunOptions = {},
) {
  queueDueReleases(db, tenantId, today)
  const staleBefore = new Date(Date.now() - (options.claimLeaseMs ?? DEFAULT_LEASE_MS)).toISOString()
  const pending = db
    .select({ id: clubReleaseRuns.id })
    .from(clubReleaseRuns)
    .where(runsToTakeUp(staleBefore))
    .orderBy(asc(clubReleaseRuns.createdAt), asc(clubReleaseRuns.id))
    .all()
  for (const { id } of pending) {
    if (signal?.aborted) return
    await executeRun(db, tenantId, deps, id, options)
  }
}

/** Retries one declined shipment now: a new charge attempt, answered with the shipment. */
export async function retryShipment(
  db: Db,
  actor: Actor,
  deps: ReleaseDeps,
  ids: { clubId: string; releaseId: string; shipmentId: string },
) {
  const { run, release, shipment } = inWriteTransaction(db, (tx) => {
    const shipment = getShipmentRow(tx, ids.clubId, ids.releaseId, ids.shipmentId)
    const release = getReleaseRow(tx, ids.clubId, ids.releaseId)
    assertReleaseStatus(release, ['Active'], 'retry shipments of')
    if (shipment.status !== 'Declined')
      throw conflict(`only a Declined shipment can be retried; this one is ${shipment.status}`, {
        currentStatus: shipment.status,
      })
    const run = queueRun(tx, actor, release, 'retry')!
    tx.update(clubReleaseRuns)
      .set({ status: 'Running', startedAt: nowIso(), heartbeatAt: nowIso() })
      .where(eq(clubReleaseRuns.id, run.id))
      .run()
    return { run, release, shipment }
  })
  await processMembership(db, actor, deps, run, release, shipment.membershipId, DEFAULT_LEASE_MS)
  finishRun(db, actor, run, null)
  return shipmentView(db.select().from(clubShipments).where(eq(clubShipments.id, shipment.id)).get()!)
}
