// Orders: numbering, create, read, list, header changes, and each location's tax place.
import { and, count, desc, eq, gte, lt, or, type SQL, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { invalid } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findLocation, getLocation } from '../locations'
import { findStaffUser } from '../staff'
import { insertLines, type LineTerms } from './lines'
import type { CreateOrderInput, OrderView, UpdateOrderInput } from './model'
import { changeOrder, OPEN_STATUSES } from './mutation'
import { others } from './others'
import { repriceOrder } from './reprice'
import {
  type FundraisingValue,
  type OrderRow,
  orderLines,
  orderLocationSettings,
  orderSequences,
  orderServiceCharges,
  orders,
  type TaxCode,
} from './schema'
import { resolveTax, taxPlaceOf } from './tax-place'
import { linesOf, loadOrder, ordersByIds, presentOrders, serviceChargesOf } from './view'

/**
 * The next order number of the tenant. The counter row is updated inside the caller's
 * BEGIN IMMEDIATE transaction, which holds the database's write lock until commit: two creates
 * (in this process or another) cannot read the same value, and a rolled-back create gives its
 * number back, so numbers have neither gaps nor duplicates.
 */
export function nextOrderNumber(tx: Queryable): number {
  const row = tx
    .insert(orderSequences)
    .values({ name: 'order', lastValue: 1 })
    .onConflictDoUpdate({
      target: orderSequences.name,
      set: { lastValue: sql`${orderSequences.lastValue} + 1` },
    })
    .returning({ value: orderSequences.lastValue })
    .get()
  return row!.value
}

function fundraisingOf(input: CreateOrderInput['fundraising']): FundraisingValue | null {
  if (!input) return null
  return {
    campaignId: input.campaignId ?? null,
    campaignCode: input.campaignCode ?? null,
    campaignName: input.campaignName ?? null,
    causeName: input.causeName ?? null,
    contributionType: input.contributionType,
    contributionValue: input.contributionValue ?? 100,
  }
}

type ShipToInput = CreateOrderInput['shipTo']

/** The ship-to columns of a request's `shipTo` (null clears; undefined leaves them). */
const shipToColumns = (shipTo: ShipToInput) =>
  shipTo === undefined
    ? {}
    : {
        shipToCountryCode: shipTo ? shipTo.countryCode.toUpperCase() : null,
        shipToStateCode: shipTo?.stateCode ? shipTo.stateCode.toUpperCase() : null,
      }

/**
 * Follows a change of where the order is taxed (its ship-to or fulfillment mode): lines not
 * voided and service charges take the rate of their tax code at the new place.
 */
function retax(tx: Queryable, order: OrderRow) {
  for (const line of linesOf(tx, order.id))
    if (!line.voidedAt)
      tx.update(orderLines)
        .set(resolveTax(tx, order, line.taxCode as TaxCode | null))
        .where(eq(orderLines.id, line.id))
        .run()
  for (const charge of serviceChargesOf(tx, order.id))
    tx.update(orderServiceCharges)
      .set({ taxRateBps: resolveTax(tx, order, charge.taxCode as TaxCode).taxRateBps })
      .where(eq(orderServiceCharges.id, charge.id))
      .run()
}

function resolveCustomer(tx: Queryable, id: string) {
  const customer = others.findCustomer(tx, id)
  if (!customer) throw invalid('body/customerId', `no customer ${id}`)
  return customer
}

function assertStaff(tx: Queryable, staffUserId: string | null | undefined, path: string) {
  if (!staffUserId) return
  const staff = findStaffUser(tx, staffUserId)
  if (staff?.status !== 'active') throw invalid(path, `no active staff user ${staffUserId}`)
}

/**
 * `lineTerms[i]` sets what a request cannot on `input.lineItems[i]` (see LineTerms): for callers
 * inside the service only, never from a request body.
 */
export function createOrder(
  db: Db,
  actor: Actor,
  input: CreateOrderInput,
  lineTerms: LineTerms[] = [],
): OrderView {
  const locationId = input.locationId ?? actor.locationId
  if (!locationId) throw invalid('body/locationId', 'give locationId or the x-location-id header')
  return inWriteTransaction(db, (tx) => {
    if (!findLocation(tx, locationId)) throw invalid('body/locationId', `unknown location ${locationId}`)
    assertStaff(tx, input.assignedStaffUserId, 'body/assignedStaffUserId')
    const customer = input.customerId ? resolveCustomer(tx, input.customerId) : null
    const now = nowIso()
    const order = tx
      .insert(orders)
      .values({
        id: newId(),
        orderNumber: nextOrderNumber(tx),
        customerId: customer?.id ?? null,
        customerName: input.customerName ?? customer?.name ?? null,
        guestName: input.guestName ?? null,
        locationId,
        assignedStaffUserId: input.assignedStaffUserId ?? actor.staffUserId,
        status: 'draft',
        source: input.source ?? 'pos',
        fulfillmentMode: input.fulfillmentMode ?? 'dine_in',
        tableId: input.tableId ?? null,
        sectionId: input.sectionId ?? null,
        serviceAreaId: input.serviceAreaId ?? null,
        tableLabel: input.tableLabel ?? null,
        seatCount: input.seatCount ?? null,
        note: input.note ?? null,
        subtotal: 0,
        discountTotal: 0,
        taxTotal: 0,
        includedTaxTotal: 0,
        tipTotal: 0,
        contributionAmountCents: 0,
        total: 0,
        amountPaid: 0,
        balanceDue: 0,
        paymentIntentIds: [],
        fundraising: fundraisingOf(input.fundraising),
        ...shipToColumns(input.shipTo),
        shippingOverride: input.shippingOverride ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    others.attachOffPremise(tx, actor, order, input.offPremise)
    insertLines(tx, order, input.lineItems ?? [], 'body/lineItems/#', lineTerms)
    repriceOrder(tx, order.id)
    const view = loadOrder(tx, order.id)
    recordWrite(tx, actor, {
      action: 'order.create',
      entityType: 'order',
      entityId: order.id,
      metadata: {
        orderNumber: order.orderNumber,
        locationId,
        lines: view.lineItems.length,
        total: view.total,
      },
      event: view,
    })
    return view
  })
}

export const getOrder = (db: Queryable, id: string): OrderView => loadOrder(db, id)

export interface OrderListQuery extends PageRequest {
  q?: string
  locationId?: string
  status?: OrderRow['status']
  createdAfter?: string
  createdBefore?: string
}

/**
 * Newest first. `q` is an exact order number or part of the customer or guest name. Only orders
 * at the request's locations, in the rows and in the count.
 */
export function listOrders(db: Queryable, query: OrderListQuery, locations: LocationScope) {
  const conditions: (SQL | undefined)[] = [
    scopeCondition(locations, orders.locationId),
    query.locationId ? eq(orders.locationId, query.locationId) : undefined,
    query.status ? eq(orders.status, query.status) : undefined,
    query.createdAfter ? gte(orders.createdAt, new Date(query.createdAfter).toISOString()) : undefined,
    query.createdBefore ? lt(orders.createdAt, new Date(query.createdBefore).toISOString()) : undefined,
  ]
  const q = query.q?.trim()
  if (q) {
    const byName = searchColumns(q, [orders.customerName, orders.guestName])
    const number = /^#?\d{1,15}$/.test(q) ? Number(q.replace('#', '')) : null
    conditions.push(number !== null ? or(eq(orders.orderNumber, number), byName) : byName)
  }
  const where = and(...conditions)
  const total = db.select({ n: count() }).from(orders).where(where).get()?.n ?? 0
  // The page's ids through drizzle (the filters vary), its rows by raw statement (table-rows.ts).
  const ids = db
    .select({ id: orders.id })
    .from(orders)
    .where(where)
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
    .map((row) => row.id)
  return { orders: presentOrders(db, ordersByIds(db, ids)), total }
}

export function updateOrder(db: Db, actor: Actor, id: string, patch: UpdateOrderInput): OrderView {
  return changeOrder(
    db,
    actor,
    id,
    { action: 'order.update', event: 'update', allowed: OPEN_STATUSES, doing: 'change the header of' },
    (tx, order) => {
      assertStaff(tx, patch.assignedStaffUserId, 'body/assignedStaffUserId')
      if (patch.fulfillmentMode) others.changeOffPremiseMode(tx, actor, order, patch.fulfillmentMode)
      const { fundraising, shipTo, ...fields } = patch
      const set: Partial<OrderRow> = { ...fields, ...shipToColumns(shipTo) }
      if (fields.customerId) {
        const customer = resolveCustomer(tx, fields.customerId)
        set.customerId = customer.id
        if (fields.customerName === undefined) set.customerName = customer.name
      }
      if (fundraising !== undefined) set.fundraising = fundraisingOf(fundraising)
      const changes = diffFields(order, set)
      if (Object.keys(changes).length > 0) {
        const updated = tx
          .update(orders)
          .set({ ...set, updatedAt: nowIso() })
          .where(eq(orders.id, id))
          .returning()
          .get()!
        if (JSON.stringify(taxPlaceOf(tx, order)) !== JSON.stringify(taxPlaceOf(tx, updated)))
          retax(tx, updated)
      }
      return { changes }
    },
  )
}

// ---- Where each location charges tax ----

export function getLocationTaxPlace(db: Queryable, locationId: string) {
  getLocation(db, locationId)
  const row = db
    .select()
    .from(orderLocationSettings)
    .where(eq(orderLocationSettings.locationId, locationId))
    .get()
  return row ?? { locationId, countryCode: null, stateCode: null, updatedAt: null }
}

export function putLocationTaxPlace(
  db: Db,
  actor: Actor,
  locationId: string,
  input: { countryCode: string; stateCode?: string | null },
) {
  return inWriteTransaction(db, (tx) => {
    getLocation(tx, locationId)
    const values = {
      locationId,
      countryCode: input.countryCode.toUpperCase(),
      stateCode: input.stateCode ? input.stateCode.toUpperCase() : null,
      updatedAt: nowIso(),
    }
    const row = tx
      .insert(orderLocationSettings)
      .values(values)
      .onConflictDoUpdate({ target: orderLocationSettings.locationId, set: values })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'location.tax_place.set',
      entityType: 'location',
      entityId: locationId,
      metadata: { countryCode: row.countryCode, stateCode: row.stateCode },
    })
    return row
  })
}
