// The fulfilment flow of off-premise orders. Staging: `pending` → `staged` → `ready` (or a whole
// staging batch made ready at once). Pickup: `waiting` → `ready` → `completed`, with the guest's
// arrival (`arrived`) at any point before completion. Delivery: `pending` → `ready_for_dispatch`
// → `dispatched` → `delivered`. Every other move is 409 with the current states. Each step is one
// transaction with its audit entry, its `order` event and any guest notification it queues.
import { and, eq } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { conflict, invalid } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { OrderRow, OrderView } from '../orders'
import { getOrderRow, loadOrder } from '../orders'
import { findStaffUser } from '../staff'
import { type GuestEvent, queueNotification } from './notifications'
import type { ArriveInput, DispatchInput, StageInput } from './order-model'
import { type OrderOffPremiseRow, orderOffPremise, type PersonValue } from './schema'
import { settingsOrDefaults } from './settings'

/** Order statuses in which the off-premise flow may move. */
const ACTIVE_STATUSES = ['submitted', 'paid'] as const

function person(tx: Queryable, staffUserId: string | null): PersonValue | null {
  if (!staffUserId) return null
  const staff = findStaffUser(tx, staffUserId)
  return staff ? { staffUserId, displayName: `${staff.firstName} ${staff.lastName}` } : null
}

const statesOf = (order: OrderRow, row: OrderOffPremiseRow) => ({
  currentStatus: order.status,
  stagingState: row.staging.state,
  pickupState: row.pickup?.state ?? null,
  deliveryState: row.delivery?.state ?? null,
})

function refuse(order: OrderRow, row: OrderOffPremiseRow, detail: string) {
  return conflict(detail, statesOf(order, row))
}

function loadOffPremise(tx: Queryable, orderId: string) {
  const order = getOrderRow(tx, orderId)
  const row = tx.select().from(orderOffPremise).where(eq(orderOffPremise.orderId, orderId)).get()
  if (!row)
    throw conflict(
      `order ${orderId} is not an off-premise order (fulfillmentMode ${order.fulfillmentMode})`,
      {
        currentStatus: order.status,
        fulfillmentMode: order.fulfillmentMode,
      },
    )
  if (!(ACTIVE_STATUSES as readonly string[]).includes(order.status))
    throw refuse(
      order,
      row,
      `the off-premise flow of an order that is ${order.status} cannot move (submit it first; voided and closed orders are done)`,
    )
  return { order, row }
}

interface Step {
  /** Audit action, e.g. `order.off_premise.stage`. */
  action: string
  /** Outbox action on object `order`. */
  event: string
}

interface StepResult {
  set: Partial<OrderOffPremiseRow>
  notify?: GuestEvent
  details?: Record<string, unknown>
}

/** Persists one step on one order, queues its guest message, audits and emits. */
function applyStep(
  tx: Queryable,
  actor: Actor,
  order: OrderRow,
  row: OrderOffPremiseRow,
  step: Step,
  result: StepResult,
) {
  const updatedAt = nowIso()
  tx.update(orderOffPremise)
    .set({ ...result.set, updatedAt })
    .where(eq(orderOffPremise.orderId, order.id))
    .run()
  let notified = false
  if (result.notify) {
    const current = tx.select().from(orderOffPremise).where(eq(orderOffPremise.orderId, order.id)).get()!
    notified = queueNotification(
      tx,
      current,
      order.orderNumber,
      result.notify,
      settingsOrDefaults(tx, order.locationId).guestMessagingEnabled,
    )
  }
  const after = tx.select().from(orderOffPremise).where(eq(orderOffPremise.orderId, order.id)).get()!
  const view = loadOrder(tx, order.id)
  recordWrite(tx, actor, {
    action: step.action,
    entityType: 'order',
    entityId: order.id,
    metadata: {
      orderNumber: order.orderNumber,
      from: statesOf(order, row),
      to: statesOf(order, after),
      notification: result.notify && notified ? result.notify : null,
      ...result.details,
    },
    events: [{ object: 'order', action: step.event, aggregateId: order.id, payload: view }],
  })
  return view
}

function step(
  db: Db,
  actor: Actor,
  orderId: string,
  spec: Step,
  work: (tx: Queryable, order: OrderRow, row: OrderOffPremiseRow) => StepResult,
): OrderView {
  return inWriteTransaction(db, (tx) => {
    const { order, row } = loadOffPremise(tx, orderId)
    return applyStep(tx, actor, order, row, spec, work(tx, order, row))
  })
}

/** pending → staged: where the order waits, optionally in a batch. */
export const stageOrder = (db: Db, actor: Actor, orderId: string, input: StageInput) =>
  step(
    db,
    actor,
    orderId,
    { action: 'order.off_premise.stage', event: 'off_premise_staged' },
    (tx, order, row) => {
      if (row.staging.state !== 'pending')
        throw refuse(order, row, `the order is already ${row.staging.state}`)
      if (input.batchId && !settingsOrDefaults(tx, order.locationId).batchReadyEnabled)
        throw conflict('batches are not enabled at this location (batchReadyEnabled)', statesOf(order, row))
      const at = nowIso()
      return {
        set: {
          stagingState: 'staged',
          batchId: input.batchId ?? null,
          staging: {
            ...row.staging,
            state: 'staged',
            stagedAt: at,
            stagingArea: input.stagingArea ?? null,
            stagingSlot: input.stagingSlot ?? null,
            handoffZone: input.handoffZone ?? null,
            batchId: input.batchId ?? null,
            batchLabel: input.batchLabel ?? null,
          },
          pickup: row.pickup ? { ...row.pickup, stagedAt: at } : null,
          delivery: row.delivery ? { ...row.delivery, stagedAt: at } : null,
        },
      }
    },
  )

function readyResult(
  tx: Queryable,
  actor: Actor,
  order: OrderRow,
  row: OrderOffPremiseRow,
  batchReadyAt: string | null,
): StepResult {
  if (row.staging.state !== 'staged')
    throw refuse(
      order,
      row,
      row.staging.state === 'ready' ? 'the order is already ready' : 'stage the order before making it ready',
    )
  const at = nowIso()
  const pickupState = row.pickup && row.pickup.state === 'waiting' ? 'ready' : row.pickup?.state
  return {
    set: {
      stagingState: 'ready',
      readyAt: at,
      staging: { ...row.staging, state: 'ready', readyBy: person(tx, actor.staffUserId), batchReadyAt },
      pickup: row.pickup ? { ...row.pickup, state: pickupState! } : null,
      delivery: row.delivery ? { ...row.delivery, state: 'ready_for_dispatch' } : null,
    },
    // Delivery orders are ready for the driver; the guest hears when it leaves.
    notify: row.pickup ? (batchReadyAt ? 'batch_ready' : 'order_ready') : undefined,
  }
}

/** staged → ready: pickup orders tell the guest (`order_ready`); delivery orders await dispatch. */
export const readyOrder = (db: Db, actor: Actor, orderId: string) =>
  step(
    db,
    actor,
    orderId,
    { action: 'order.off_premise.ready', event: 'off_premise_ready' },
    (tx, order, row) => readyResult(tx, actor, order, row, null),
  )

/**
 * Makes every staged order of this order's batch ready at once (`batchReadyAt`, `batch_ready`
 * messages). Needs `batchReadyEnabled` and a staged order in a batch. Answers this order.
 */
export function readyBatch(db: Db, actor: Actor, orderId: string): { view: OrderView; orderIds: string[] } {
  return inWriteTransaction(db, (tx) => {
    const { order, row } = loadOffPremise(tx, orderId)
    if (!settingsOrDefaults(tx, order.locationId).batchReadyEnabled)
      throw conflict('batches are not enabled at this location (batchReadyEnabled)', statesOf(order, row))
    if (!row.batchId) throw refuse(order, row, 'the order is not in a batch (stage it with a batchId)')
    if (row.staging.state !== 'staged')
      throw refuse(order, row, `the order is ${row.staging.state}, not staged`)
    const members = tx
      .select()
      .from(orderOffPremise)
      .where(
        and(
          eq(orderOffPremise.locationId, order.locationId),
          eq(orderOffPremise.batchId, row.batchId),
          eq(orderOffPremise.stagingState, 'staged'),
        ),
      )
      .all()
    const batchReadyAt = nowIso()
    let view: OrderView | undefined
    const orderIds: string[] = []
    for (const member of members) {
      const memberOrder = getOrderRow(tx, member.orderId)
      if (!(ACTIVE_STATUSES as readonly string[]).includes(memberOrder.status)) continue
      const result = readyResult(tx, actor, memberOrder, member, batchReadyAt)
      const v = applyStep(
        tx,
        actor,
        memberOrder,
        member,
        { action: 'order.off_premise.batch_ready', event: 'off_premise_ready' },
        { ...result, details: { batchId: row.batchId, batchSize: members.length } },
      )
      orderIds.push(member.orderId)
      if (member.orderId === orderId) view = v
    }
    return { view: view!, orderIds }
  })
}

/** The guest is here: pickup orders only, before completion; curbside details are recorded. */
export const arriveForPickup = (db: Db, actor: Actor, orderId: string, input: ArriveInput) =>
  step(
    db,
    actor,
    orderId,
    { action: 'order.off_premise.arrive', event: 'off_premise_arrived' },
    (_tx, order, row) => {
      if (!row.pickup) throw refuse(order, row, 'a delivery order has no pickup')
      if (row.pickup.state === 'arrived' || row.pickup.state === 'completed')
        throw refuse(
          order,
          row,
          `the guest has already ${row.pickup.state === 'arrived' ? 'arrived' : 'picked up'}`,
        )
      const curbsideSent = Object.values(input).some((v) => v !== undefined)
      const base = row.pickup.curbside ?? {
        vehicleMakeModel: null,
        vehicleColor: null,
        instructions: null,
        parkingSpot: null,
        arrivalNote: null,
      }
      const curbside =
        row.pickup.kind === 'curbside' || curbsideSent
          ? {
              ...base,
              vehicleMakeModel: input.vehicleMakeModel ?? base.vehicleMakeModel,
              vehicleColor: input.vehicleColor ?? base.vehicleColor,
              parkingSpot: input.parkingSpot ?? base.parkingSpot,
              arrivalNote: input.arrivalNote ?? base.arrivalNote,
            }
          : null
      return { set: { pickup: { ...row.pickup, state: 'arrived', arrivedAt: nowIso(), curbside } } }
    },
  )

/** Handed to the guest: the order must be ready; pickup becomes `completed`. */
export const completePickup = (db: Db, actor: Actor, orderId: string) =>
  step(
    db,
    actor,
    orderId,
    { action: 'order.off_premise.complete', event: 'off_premise_picked_up' },
    (_tx, order, row) => {
      if (!row.pickup) throw refuse(order, row, 'a delivery order is completed by delivering it')
      if (row.pickup.state === 'completed') throw refuse(order, row, 'the order was already picked up')
      if (row.staging.state !== 'ready') throw refuse(order, row, 'the order is not ready yet')
      return { set: { pickup: { ...row.pickup, state: 'completed', completedAt: nowIso() } } }
    },
  )

/**
 * ready_for_dispatch → dispatched, to a staff driver (an active staff user) or a courier, as the
 * location's `dispatchAssignmentMode` allows. The guest hears `out_for_delivery`.
 */
export const dispatchOrder = (db: Db, actor: Actor, orderId: string, input: DispatchInput) =>
  step(
    db,
    actor,
    orderId,
    { action: 'order.off_premise.dispatch', event: 'off_premise_dispatched' },
    (tx, order, row) => {
      if (!row.delivery) throw refuse(order, row, 'only delivery orders are dispatched')
      const hasDriver = Boolean(input.driverStaffUserId)
      const hasCourier = Boolean(input.courierName)
      if (hasDriver === hasCourier) throw invalid('body', 'give either driverStaffUserId or courierName')
      const mode = settingsOrDefaults(tx, order.locationId).dispatchAssignmentMode
      if ((mode === 'staff_drivers' && hasCourier) || (mode === 'couriers' && hasDriver))
        throw conflict(
          `this location dispatches to ${mode === 'couriers' ? 'couriers' : 'staff drivers'} only`,
          {
            ...statesOf(order, row),
            dispatchAssignmentMode: mode,
          },
        )
      if (row.delivery.state !== 'ready_for_dispatch')
        throw refuse(
          order,
          row,
          row.delivery.state === 'pending'
            ? 'the order is not ready for dispatch yet'
            : `the order was already ${row.delivery.state}`,
        )
      let driver: PersonValue | null = null
      if (hasDriver) {
        const staff = findStaffUser(tx, input.driverStaffUserId!)
        if (staff?.status !== 'active')
          throw invalid('body/driverStaffUserId', `no active staff user ${input.driverStaffUserId}`)
        driver = person(tx, staff.id)
      }
      const at = nowIso()
      return {
        set: {
          delivery: {
            ...row.delivery,
            state: 'dispatched',
            dispatchedAt: at,
            dispatchNote: input.dispatchNote ?? null,
            dispatch: {
              assignmentMode: hasDriver ? 'staff_driver' : 'courier',
              assignedDriver: driver,
              dispatchedBy: person(tx, actor.staffUserId),
              courierName: input.courierName ?? null,
              courierPhone: input.courierPhone ?? null,
              vehicleLabel: input.vehicleLabel ?? null,
              assignedAt: at,
            },
          },
        },
        notify: 'out_for_delivery',
      }
    },
  )

/** dispatched → delivered; the guest hears `order_delivered`. */
export const deliverOrder = (
  db: Db,
  actor: Actor,
  orderId: string,
  input: { deliveryNotes?: string | null },
) =>
  step(
    db,
    actor,
    orderId,
    { action: 'order.off_premise.deliver', event: 'off_premise_delivered' },
    (_tx, order, row) => {
      if (!row.delivery) throw refuse(order, row, 'only delivery orders are delivered')
      if (row.delivery.state !== 'dispatched')
        throw refuse(
          order,
          row,
          row.delivery.state === 'delivered'
            ? 'the order was already delivered'
            : 'dispatch the order before delivering it',
        )
      return {
        set: {
          delivery: {
            ...row.delivery,
            state: 'delivered',
            deliveredAt: nowIso(),
            deliveryNotes: input.deliveryNotes ?? null,
          },
        },
        notify: 'order_delivered',
      }
    },
  )
