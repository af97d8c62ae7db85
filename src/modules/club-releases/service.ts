// Club releases: what a club ships its members on a process date. Planning (editable) → Active
// (processed on its date, or on request) → Archived (never charged again). A new member's
// nextProcessDate is the next release planned, so writes that change the plan reschedule them.
import { and, asc, count, desc, eq, gte, inArray, ne, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { type ClubMembershipRow, rescheduleMemberships } from '../club-memberships'
import { getClubRow } from '../clubs'
import { findVariant, findVariantBySku } from '../products'
import type { ClubReleaseView, CreateClubReleaseInput, UpdateClubReleaseInput } from './model'
import {
  type ClubReleaseRow,
  type ClubShipmentRow,
  clubReleases,
  clubShipments,
  deliveryMethods,
  type ReleaseItemValue,
  type ReleaseStatus,
  shipmentStatuses,
} from './schema'

type ItemInput = CreateClubReleaseInput['items'][number]

/** The stored items of a request: each a variant that exists, found by id or SKU. */
function resolveItems(tx: Queryable, inputs: ItemInput[]): ReleaseItemValue[] {
  return inputs.map((input, i) => {
    const path = `body/items/${i}`
    if (!input.productVariantId && !input.sku)
      throw invalid(`${path}/productVariantId`, 'give productVariantId or sku')
    const variant = input.productVariantId
      ? findVariant(tx, input.productVariantId)
      : findVariantBySku(tx, input.sku!)
    if (!variant)
      throw invalid(
        `${path}/${input.productVariantId ? 'productVariantId' : 'sku'}`,
        'no such product variant',
      )
    if (input.sku && variant.sku.toLowerCase() !== input.sku.toLowerCase())
      throw invalid(`${path}/sku`, 'sku is not the SKU of productVariantId')
    return {
      productVariantId: variant.id,
      sku: variant.sku,
      title:
        variant.title === variant.product.title ? variant.title : `${variant.product.title} ${variant.title}`,
      quantity: input.quantity,
      price: input.price ?? null,
    }
  })
}

const emptySummary = () =>
  Object.fromEntries(shipmentStatuses.map((s) => [s, { count: 0, amount: 0 }])) as ClubReleaseView['summary']

function summariesOf(db: Queryable, releaseIds: string[]) {
  const summaries = new Map(releaseIds.map((id) => [id, emptySummary()]))
  if (releaseIds.length === 0) return summaries
  const rows = db
    .select({
      releaseId: clubShipments.releaseId,
      status: clubShipments.status,
      n: count(),
      amount: sql<number>`coalesce(sum(${clubShipments.amount}), 0)`,
    })
    .from(clubShipments)
    .where(inArray(clubShipments.releaseId, releaseIds))
    .groupBy(clubShipments.releaseId, clubShipments.status)
    .all()
  for (const row of rows) summaries.get(row.releaseId)![row.status] = { count: row.n, amount: row.amount }
  return summaries
}

function views(db: Queryable, rows: ClubReleaseRow[]): ClubReleaseView[] {
  const summaries = summariesOf(
    db,
    rows.map((r) => r.id),
  )
  return rows.map((row) => {
    const items = row.items.map((item) => ({
      ...item,
      unitPrice: item.price ?? findVariant(db, item.productVariantId)?.price ?? 0,
    }))
    return {
      ...row,
      items,
      totals: {
        quantity: items.reduce((n, i) => n + i.quantity, 0),
        subtotal: items.reduce((n, i) => n + i.unitPrice * i.quantity, 0),
      },
      summary: summaries.get(row.id)!,
    }
  })
}

export const releaseView = (db: Queryable, row: ClubReleaseRow) => views(db, [row])[0]!

/** The release of the club; another club's release (or none) is 404. */
export function getReleaseRow(db: Queryable, clubId: string, releaseId: string): ClubReleaseRow {
  getClubRow(db, clubId)
  const row = db
    .select()
    .from(clubReleases)
    .where(and(eq(clubReleases.id, releaseId), eq(clubReleases.clubId, clubId)))
    .get()
  if (!row) throw notFound('club release', releaseId)
  return row
}

export const getRelease = (db: Queryable, clubId: string, releaseId: string) =>
  releaseView(db, getReleaseRow(db, clubId, releaseId))

export function listReleases(db: Queryable, clubId: string, query: { status?: ReleaseStatus } & PageRequest) {
  getClubRow(db, clubId)
  const where = and(
    eq(clubReleases.clubId, clubId),
    query.status ? eq(clubReleases.status, query.status) : undefined,
  )
  const total = db.select({ n: count() }).from(clubReleases).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(clubReleases)
    .where(where)
    .orderBy(desc(clubReleases.processDate), desc(clubReleases.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { clubReleases: views(db, rows), total }
}

/** A release write's audit entry and its `club_release.<verb>` event. */
export function recordRelease(
  tx: Queryable,
  actor: Actor,
  verb: string,
  row: ClubReleaseRow,
  metadata: Record<string, unknown>,
) {
  const view = releaseView(tx, row)
  recordWrite(tx, actor, {
    action: `club_release.${verb}`,
    entityType: 'club_release',
    entityId: row.id,
    metadata: { clubId: row.clubId, ...metadata },
    event: view,
  })
  return view
}

export function createRelease(db: Db, actor: Actor, clubId: string, input: CreateClubReleaseInput) {
  return inWriteTransaction(db, (tx) => {
    getClubRow(tx, clubId)
    const now = nowIso()
    const row = tx
      .insert(clubReleases)
      .values({
        id: newId(),
        clubId,
        title: input.title,
        status: 'Planning',
        processDate: input.processDate,
        shipDate: input.shipDate ?? null,
        items: resolveItems(tx, input.items),
        deliveryMethods: input.deliveryMethods ?? [...deliveryMethods],
        activatedAt: null,
        archivedAt: null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    const view = recordRelease(tx, actor, 'create', row, { title: row.title, processDate: row.processDate })
    rescheduleMemberships(tx, actor, clubId, 'releases')
    return view
  })
}

export function assertReleaseStatus(row: ClubReleaseRow, allowed: ReleaseStatus[], doing: string) {
  if (!allowed.includes(row.status))
    throw conflict(`cannot ${doing} a release that is ${row.status} (allowed when ${allowed.join(' or ')})`, {
      currentStatus: row.status,
      allowedStatuses: allowed,
    })
}

export function updateRelease(
  db: Db,
  actor: Actor,
  clubId: string,
  releaseId: string,
  patch: UpdateClubReleaseInput,
) {
  return inWriteTransaction(db, (tx) => {
    const before = getReleaseRow(tx, clubId, releaseId)
    assertReleaseStatus(before, ['Planning'], 'change')
    const { items, ...fields } = patch
    const set = { ...fields, ...(items ? { items: resolveItems(tx, items) } : {}) }
    const changes = diffFields(before, set)
    if (Object.keys(changes).length === 0) return releaseView(tx, before)
    const row = tx
      .update(clubReleases)
      .set({ ...set, updatedAt: nowIso() })
      .where(eq(clubReleases.id, releaseId))
      .returning()
      .get()
    const view = recordRelease(tx, actor, 'update', row, { changes })
    rescheduleMemberships(tx, actor, clubId, 'releases')
    return view
  })
}

/** Planning → Active, or Planning/Active → Archived: the status move, audited. */
function moveRelease(
  db: Db,
  actor: Actor,
  clubId: string,
  releaseId: string,
  move: { verb: 'activate' | 'archive'; from: ReleaseStatus[]; to: ReleaseStatus },
) {
  return inWriteTransaction(db, (tx) => {
    const before = getReleaseRow(tx, clubId, releaseId)
    assertReleaseStatus(before, move.from, move.verb)
    const now = nowIso()
    const row = tx
      .update(clubReleases)
      .set({
        status: move.to,
        updatedAt: now,
        ...(move.verb === 'activate' ? { activatedAt: now } : { archivedAt: now }),
      })
      .where(eq(clubReleases.id, releaseId))
      .returning()
      .get()
    const view = recordRelease(tx, actor, move.verb, row, { from: before.status, to: row.status })
    // Activating keeps the release planned; archiving takes it off new members' next date.
    if (move.verb === 'archive') rescheduleMemberships(tx, actor, clubId, 'releases')
    return view
  })
}

export const activateRelease = (db: Db, actor: Actor, clubId: string, releaseId: string) =>
  moveRelease(db, actor, clubId, releaseId, { verb: 'activate', from: ['Planning'], to: 'Active' })

export const archiveRelease = (db: Db, actor: Actor, clubId: string, releaseId: string) =>
  moveRelease(db, actor, clubId, releaseId, { verb: 'archive', from: ['Planning', 'Active'], to: 'Archived' })

// ---- Shipments ----

export const shipmentView = ({ claimedByRunId: _, claimedAt: __, ...row }: ClubShipmentRow) => row

export function listShipments(
  db: Queryable,
  clubId: string,
  releaseId: string,
  query: { status?: ClubShipmentRow['status'] } & PageRequest,
) {
  getReleaseRow(db, clubId, releaseId)
  const where = and(
    eq(clubShipments.releaseId, releaseId),
    query.status ? eq(clubShipments.status, query.status) : undefined,
  )
  const total = db.select({ n: count() }).from(clubShipments).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(clubShipments)
    .where(where)
    .orderBy(clubShipments.createdAt, clubShipments.id)
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { clubShipments: rows.map(shipmentView), total }
}

export function getShipmentRow(db: Queryable, clubId: string, releaseId: string, shipmentId: string) {
  getReleaseRow(db, clubId, releaseId)
  const row = db
    .select()
    .from(clubShipments)
    .where(and(eq(clubShipments.id, shipmentId), eq(clubShipments.releaseId, releaseId)))
    .get()
  if (!row) throw notFound('club shipment', shipmentId)
  return row
}

/**
 * The process date of the club's first release, not archived, on or after `from` that offers
 * `method`; null when none is planned.
 */
export function plannedReleaseDate(
  tx: Queryable,
  clubId: string,
  from: string,
  method: ClubMembershipRow['orderDeliveryMethod'],
): string | null {
  const planned = tx
    .select({ processDate: clubReleases.processDate, deliveryMethods: clubReleases.deliveryMethods })
    .from(clubReleases)
    .where(
      and(
        eq(clubReleases.clubId, clubId),
        ne(clubReleases.status, 'Archived'),
        gte(clubReleases.processDate, from),
      ),
    )
    .orderBy(asc(clubReleases.processDate))
    .all()
  return planned.find((r) => r.deliveryMethods.includes(method))?.processDate ?? null
}
