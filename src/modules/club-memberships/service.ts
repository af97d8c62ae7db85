import { and, asc, count, desc, eq, inArray, isNull, lte, ne, or, type SQL, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import type { DomainEvent } from '../../platform/audit/outbox'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { ApiError, conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { clubIdsMatching, clubsByIds, clubView, getClubRow } from '../clubs'
import {
  customerIdsMatching,
  customersByIds,
  customerViews,
  findCustomerAddress,
  findCustomerPaymentMethod,
  resolveCustomerId,
} from '../customers'
import { nextProcessDate } from './cadence'
import { lentToClubMemberships } from './lent'
import type { ClubMembershipView, CreateClubMembershipInput, UpdateClubMembershipInput } from './model'
import { type Cadence, type ClubMembershipRow, clubMemberships } from './schema'

export type Expansion = 'customer' | 'club'

export const parseExpand = (expand: string | undefined): Set<Expansion> =>
  new Set((expand?.split(',') ?? []) as Expansion[])

function views(db: Queryable, rows: ClubMembershipRow[], expand: Set<Expansion>): ClubMembershipView[] {
  const customersById = new Map(
    expand.has('customer') && rows.length > 0
      ? customerViews(db, [
          ...customersByIds(
            db,
            rows.map((r) => r.customerId),
          ).values(),
        ]).map((c) => [c.id, c])
      : [],
  )
  const clubsById = new Map(
    expand.has('club') && rows.length > 0
      ? [
          ...clubsByIds(
            db,
            rows.map((r) => r.clubId),
          ).values(),
        ].map((c) => [c.id, clubView(c)] as const)
      : [],
  )
  return rows.map((row) => ({
    ...row,
    ...(expand.has('customer') ? { customer: customersById.get(row.customerId) } : {}),
    ...(expand.has('club') ? { club: clubsById.get(row.clubId) } : {}),
  }))
}

export const view = (db: Queryable, row: ClubMembershipRow, expand = new Set<Expansion>()) =>
  views(db, [row], expand)[0]!

export const findMembershipRow = (db: Queryable, id: string): ClubMembershipRow | undefined =>
  db.select().from(clubMemberships).where(eq(clubMemberships.id, id)).get()

export function getMembershipRow(db: Queryable, id: string): ClubMembershipRow {
  const row = findMembershipRow(db, id)
  if (!row) throw notFound('club membership', id)
  return row
}

/** The clubs a customer holds a membership of that is not cancelled: what coupons for a club match. */
export function clubIdsOfCustomer(db: Queryable, customerId: string): string[] {
  return db
    .selectDistinct({ id: clubMemberships.clubId })
    .from(clubMemberships)
    .where(and(eq(clubMemberships.customerId, customerId), ne(clubMemberships.status, 'Cancelled')))
    .all()
    .map((r) => r.id)
}

/** What releasing a hold that has ended changes (the release job writes it; reads present it). */
export const holdRelease = { status: 'Active', holdUntil: null, holdReason: null } as const

/** Memberships whose hold has ended by `today` (the tenant's local date) but is still stored. */
export const holdEndedBy = (today: string) =>
  and(eq(clubMemberships.status, 'On Hold'), lte(clubMemberships.holdUntil, today))

/** The status a membership has on `today`: a hold that has ended is Active, released or not. */
const statusOn = (today: string) =>
  sql`CASE WHEN ${holdEndedBy(today)} THEN 'Active' ELSE ${clubMemberships.status} END`

/**
 * The membership as it is on `date`. A hold that has ended reads as released (Active, next
 * processing recomputed) between its end and the release job's run, so reads never write.
 */
export function membershipOn(db: Queryable, row: ClubMembershipRow, date: string): ClubMembershipRow {
  if (row.status !== 'On Hold' || row.holdUntil === null || row.holdUntil > date) return row
  const released = { ...row, ...holdRelease }
  return { ...released, nextProcessDate: scheduleOf(db, released) }
}

export const getMembership = (db: Queryable, id: string, expand: Set<Expansion>, today: string) =>
  view(db, membershipOn(db, getMembershipRow(db, id), today), expand)

export interface MembershipListQuery extends PageRequest {
  q?: string
  clubId?: string
  customerId?: string
  status?: ClubMembershipRow['status']
  expand: Set<Expansion>
  /** The tenant's local date: holds that have ended by then read as released. */
  today: string
}

export function listMemberships(db: Queryable, query: MembershipListQuery) {
  const customersMatching = customerIdsMatching(query.q)
  const clubsMatching = clubIdsMatching(query.q)
  const conditions: (SQL | undefined)[] = [
    customersMatching &&
      clubsMatching &&
      or(
        inArray(clubMemberships.customerId, customersMatching),
        inArray(clubMemberships.clubId, clubsMatching),
      ),
    query.clubId ? eq(clubMemberships.clubId, query.clubId) : undefined,
    query.customerId
      ? eq(clubMemberships.customerId, resolveCustomerIdOrSelf(db, query.customerId))
      : undefined,
    query.status ? eq(statusOn(query.today), query.status) : undefined,
  ]
  const where = and(...conditions)
  // A membership's customer and club always exist (foreign keys), so none drops out here.
  const total = db.select({ n: count() }).from(clubMemberships).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(clubMemberships)
    .where(where)
    .orderBy(desc(clubMemberships.signupDate), desc(clubMemberships.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
    .map((r) => membershipOn(db, r, query.today))
  return { clubMemberships: views(db, rows, query.expand), total }
}

/** A customer filter follows merges; an unknown id simply matches nothing. */
function resolveCustomerIdOrSelf(db: Queryable, id: string): string {
  try {
    return resolveCustomerId(db, id)
  } catch {
    return id
  }
}

interface Placement {
  customerId: string
  orderDeliveryMethod: ClubMembershipRow['orderDeliveryMethod']
  billToCustomerAddressId: string | null
  shipToCustomerAddressId: string | null
  customerCreditCardId: string | null
}

/** Addresses and card must be the member's own; `Ship` needs a ship-to address. */
function checkPlacement(tx: Queryable, p: Placement) {
  const ownAddress = (field: 'billToCustomerAddressId' | 'shipToCustomerAddressId') => {
    const id = p[field]
    if (id === null) return
    if (!findCustomerAddress(tx, p.customerId, id))
      throw invalid(`body/${field}`, `address ${id} is not an address of customer ${p.customerId}`)
  }
  ownAddress('billToCustomerAddressId')
  ownAddress('shipToCustomerAddressId')
  if (p.orderDeliveryMethod === 'Ship' && p.shipToCustomerAddressId === null)
    throw invalid('body/shipToCustomerAddressId', 'required when orderDeliveryMethod is Ship')
  if (p.customerCreditCardId === null) return { providerCustomerId: null, providerPaymentMethodId: null }
  const card = findCustomerPaymentMethod(tx, p.customerId, p.customerCreditCardId)
  if (!card)
    throw invalid(
      'body/customerCreditCardId',
      `payment method ${p.customerCreditCardId} is not a stored card of customer ${p.customerId}`,
    )
  return {
    providerCustomerId: card.providerCustomerId,
    providerPaymentMethodId: card.providerPaymentMethodId,
  }
}

export function cadenceOf(
  tx: Queryable,
  row: Pick<ClubMembershipRow, 'clubId' | 'cadenceOverride'>,
): Cadence {
  if (row.cadenceOverride) return row.cadenceOverride
  const club = getClubRow(tx, row.clubId)
  return { unit: club.cadenceUnit, count: club.cadenceCount }
}

type Schedule = Pick<
  ClubMembershipRow,
  | 'status'
  | 'clubId'
  | 'cadenceOverride'
  | 'orderDeliveryMethod'
  | 'signupDate'
  | 'lastProcessedDate'
  | 'holdUntil'
>

/**
 * The membership's nextProcessDate (the rule is the field's description in model.ts). A new member
 * gets the club's next release, as wineries expect; after it, or while none is planned, the
 * cadence paces the membership.
 */
export function scheduleOf(tx: Queryable, m: Schedule): string | null {
  if (m.status === 'Cancelled') return null
  const holdEnd = m.status === 'On Hold' ? m.holdUntil : null
  if (m.lastProcessedDate === null) {
    const from = holdEnd !== null && holdEnd > m.signupDate ? holdEnd : m.signupDate
    const release = lentToClubMemberships('plannedReleaseDate')(tx, m.clubId, from, m.orderDeliveryMethod)
    if (release !== null) return release
  }
  return nextProcessDate(m.lastProcessedDate ?? m.signupDate, cadenceOf(tx, m), holdEnd)
}

/** A membership write: its audit entry and its event (object `club_membership`, the same verb). */
function record(
  tx: Queryable,
  actor: Actor,
  action: string,
  row: ClubMembershipRow,
  metadata: Record<string, unknown>,
) {
  recordWrite(tx, actor, {
    action: `club_membership.${action}`,
    entityType: 'club_membership',
    entityId: row.id,
    metadata,
    event: row,
  })
}

export function createMembership(db: Db, actor: Actor, input: CreateClubMembershipInput, today: string) {
  return inWriteTransaction(db, (tx) => {
    let customerId: string
    try {
      customerId = resolveCustomerId(tx, input.customerId)
    } catch {
      throw invalid('body/customerId', `customer ${input.customerId} not found`)
    }
    const club = clubsByIds(tx, [input.clubId]).get(input.clubId)
    if (!club) throw invalid('body/clubId', `club ${input.clubId} not found`)
    if (club.adminStatus !== 'Available')
      throw conflict('the club is not available for sign-ups (adminStatus is Not Available)', {
        clubId: club.id,
      })
    const live = tx
      .select({ id: clubMemberships.id, status: clubMemberships.status })
      .from(clubMemberships)
      .where(
        and(
          eq(clubMemberships.customerId, customerId),
          eq(clubMemberships.clubId, club.id),
          ne(clubMemberships.status, 'Cancelled'),
        ),
      )
      .get()
    if (live)
      throw conflict('the customer already has a live membership of this club', {
        clubMembershipId: live.id,
        currentStatus: live.status,
      })
    const placement = {
      customerId,
      orderDeliveryMethod: input.orderDeliveryMethod,
      billToCustomerAddressId: input.billToCustomerAddressId ?? null,
      shipToCustomerAddressId: input.shipToCustomerAddressId ?? null,
      customerCreditCardId: input.customerCreditCardId ?? null,
    }
    const providerRefs = checkPlacement(tx, placement)
    const signupDate = input.signupDate ?? today
    const schedule = {
      status: 'Active' as const,
      clubId: club.id,
      cadenceOverride: input.cadenceOverride ?? null,
      signupDate,
      lastProcessedDate: null,
      holdUntil: null,
    }
    const now = nowIso()
    const row = tx
      .insert(clubMemberships)
      .values({
        id: newId(),
        ...schedule,
        ...placement,
        ...providerRefs,
        cancelDate: null,
        cancelReason: null,
        nextProcessDate: scheduleOf(tx, { ...schedule, ...placement }),
        holdReason: null,
        currentNumberOfShipments: 0,
        subscriptionTemplateId: input.subscriptionTemplateId ?? null,
        locationId: actor.locationId,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    record(tx, actor, 'create', row, { clubMembership: row })
    return view(tx, row)
  })
}

export function refuseCancelled(row: ClubMembershipRow, action: string) {
  if (row.status === 'Cancelled')
    throw new ApiError('conflict', `a cancelled membership cannot be ${action}`, {
      extensions: { currentStatus: row.status, clubMembership: row },
    })
}

/**
 * Which live memberships' nextProcessDate follows what: the club's cadence (those without an
 * override), its planned releases (those never processed).
 */
const followers = {
  cadence: isNull(clubMemberships.cadenceOverride),
  releases: isNull(clubMemberships.lastProcessedDate),
}

/**
 * Stores again the nextProcessDate of the club's live memberships that follow what `changed`
 * (the club's cadence, its releases): one audit entry for the club, an `update` event per
 * membership moved.
 */
export function rescheduleMemberships(
  tx: Queryable,
  actor: Actor,
  clubId: string,
  changed: keyof typeof followers,
) {
  const rows = tx
    .select()
    .from(clubMemberships)
    .where(
      and(eq(clubMemberships.clubId, clubId), ne(clubMemberships.status, 'Cancelled'), followers[changed]),
    )
    .all()
  const moved: { id: string; from: string | null; to: string | null }[] = []
  const events: DomainEvent[] = []
  for (const row of rows) {
    const next = scheduleOf(tx, row)
    if (next === row.nextProcessDate) continue
    const updated = tx
      .update(clubMemberships)
      .set({ nextProcessDate: next, updatedAt: nowIso() })
      .where(eq(clubMemberships.id, row.id))
      .returning()
      .get()
    events.push({ object: 'club_membership', action: 'update', aggregateId: row.id, payload: updated })
    moved.push({ id: row.id, from: row.nextProcessDate, to: next })
  }
  if (moved.length > 0)
    recordWrite(tx, actor, {
      action: 'club_membership.reschedule',
      entityType: 'club',
      entityId: clubId,
      metadata: { changed, nextProcessDates: moved },
      events,
    })
}

/** Writes the changed columns (recomputing nextProcessDate), with audit and event. */
export function apply(
  tx: Queryable,
  actor: Actor,
  before: ClubMembershipRow,
  changes: Partial<ClubMembershipRow>,
  action: string,
  extra: Record<string, unknown> = {},
) {
  const merged = { ...before, ...changes }
  const next = { ...changes, nextProcessDate: scheduleOf(tx, merged) }
  const diff = diffFields(before, next)
  if (Object.keys(diff).length === 0) return before
  const row = tx
    .update(clubMemberships)
    .set({ ...next, updatedAt: nowIso() })
    .where(eq(clubMemberships.id, before.id))
    .returning()
    .get()
  record(tx, actor, action, row, { changes: diff, ...extra })
  return row
}

export function updateMembership(db: Db, actor: Actor, id: string, patch: UpdateClubMembershipInput) {
  return inWriteTransaction(db, (tx) => {
    const before = getMembershipRow(tx, id)
    refuseCancelled(before, 'changed')
    const merged = { ...before, ...patch }
    const providerRefs = checkPlacement(tx, merged)
    const changes = { ...patch, ...(patch.customerCreditCardId !== undefined ? providerRefs : {}) }
    return view(tx, apply(tx, actor, before, changes, 'update'))
  })
}

/** club-releases: the ids of a club's memberships not cancelled, oldest sign-up first. */
export const liveMembershipIdsOf = (db: Queryable, clubId: string): { id: string }[] =>
  db
    .select({ id: clubMemberships.id })
    .from(clubMemberships)
    .where(and(eq(clubMemberships.clubId, clubId), ne(clubMemberships.status, 'Cancelled')))
    .orderBy(asc(clubMemberships.signupDate), asc(clubMemberships.id))
    .all()
