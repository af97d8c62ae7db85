// Status transitions of a membership: hold, resume (early, or by itself when the hold ends) and
// cancel. Each refuses a cancelled membership with 409 and the current state.
import { asc, eq } from 'drizzle-orm'
import { type Actor, systemActor } from '../../platform/foundation/actor'
import { ApiError, invalid } from '../../platform/foundation/problem'
import { earliestDateStart, type NextWork } from '../../platform/jobs/next-work'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { CancelInput, HoldInput } from './model'
import { type ClubMembershipRow, clubMemberships } from './schema'
import { apply, getMembershipRow, holdEndedBy, holdRelease, refuseCancelled, view } from './service'

export function holdMembership(db: Db, actor: Actor, id: string, input: HoldInput, today: string) {
  return inWriteTransaction(db, (tx) => {
    const before = getMembershipRow(tx, id)
    refuseCancelled(before, 'put on hold')
    if (input.holdUntil <= today) throw invalid('body/holdUntil', `must be after today (${today})`)
    const changes = {
      status: 'On Hold' as const,
      holdUntil: input.holdUntil,
      holdReason: input.holdReason ?? null,
    }
    return view(tx, apply(tx, actor, before, changes, 'hold'))
  })
}

function resumeRow(tx: Queryable, actor: Actor, before: ClubMembershipRow, reason: string) {
  return apply(tx, actor, before, holdRelease, 'resume', {
    reason,
    heldUntil: before.holdUntil,
    holdReason: before.holdReason,
  })
}

export function resumeMembership(db: Db, actor: Actor, id: string) {
  return inWriteTransaction(db, (tx) => {
    const before = getMembershipRow(tx, id)
    if (before.status !== 'On Hold')
      throw new ApiError('conflict', 'only a membership on hold can be resumed', {
        extensions: { currentStatus: before.status, clubMembership: before },
      })
    return view(tx, resumeRow(tx, actor, before, 'resumed early'))
  })
}

export function cancelMembership(db: Db, actor: Actor, id: string, input: CancelInput, today: string) {
  return inWriteTransaction(db, (tx) => {
    const before = getMembershipRow(tx, id)
    refuseCancelled(before, 'cancelled again')
    const cancelDate = input.cancelDate ?? today
    if (cancelDate < before.signupDate)
      throw invalid('body/cancelDate', `must not be before the sign-up date (${before.signupDate})`)
    const changes = {
      status: 'Cancelled' as const,
      cancelDate,
      cancelReason: input.cancelReason ?? null,
      holdUntil: null,
      holdReason: null,
    }
    return view(tx, apply(tx, actor, before, changes, 'cancel'))
  })
}

/** When the next hold ends: the start of its end date in the tenant's zone; null when none. */
export const nextHoldEnd = (db: Db, timeZone: string): NextWork =>
  earliestDateStart(
    db,
    {
      key: 'club-membership-hold-end',
      table: clubMemberships,
      column: clubMemberships.holdUntil,
      where: () => eq(clubMemberships.status, 'On Hold'),
    },
    timeZone,
  )

/**
 * Holds end on their own: every membership on hold whose `holdUntil` has come (by `today`, the
 * tenant's local date) is Active again, audited by the system and with the `resume` event. The
 * scheduler runs this (jobs.ts), and so does every membership write before it reads the
 * membership; reads only present ended holds as released. A cheap indexed check when nothing is
 * due; answers how many memberships were released.
 */
export function releaseEndedHolds(db: Db, tenantId: string, today: string): number {
  const due = holdEndedBy(today)
  if (!db.select({ id: clubMemberships.id }).from(clubMemberships).where(due).limit(1).get()) return 0
  return inWriteTransaction(db, (tx) => {
    const actor = systemActor(tenantId, 'club-hold-release')
    const rows = tx.select().from(clubMemberships).where(due).orderBy(asc(clubMemberships.holdUntil)).all()
    for (const row of rows) resumeRow(tx, actor, row, `hold ended on ${row.holdUntil}`)
    return rows.length
  })
}
