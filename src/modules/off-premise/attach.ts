// Order creation's off-premise step: a takeout, pickup, curbside or delivery order gets its
// `offPremise` block, with the quote computed from the location's settings, or is refused.
// Runs inside the order's create transaction, so a refusal writes nothing (not even a number).
import { and, desc, eq, gt, inArray, ne } from 'drizzle-orm'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { conflict, invalid } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { findCustomerAddress, findCustomerRow } from '../customers'
import { getLocation } from '../locations'
import { type OffPremiseInputValue, orderIdsInStatus } from '../orders'
import { quoteOrder } from './quote'
import { type ChannelMode, type ChannelValue, offPremiseChannels, orderOffPremise } from './schema'
import { settingsOrDefaults } from './settings'

export const OFF_PREMISE_MODES = ['takeout', 'pickup', 'curbside', 'delivery'] as const

export const isOffPremiseMode = (mode: string): boolean =>
  (OFF_PREMISE_MODES as readonly string[]).includes(mode)

interface OrderFacts {
  id: string
  locationId: string
  fulfillmentMode: string
  customerId: string | null
}

/** The latest promise among the location's ASAP orders of the mode still being prepared. */
function latestPromised(tx: Queryable, locationId: string, mode: ChannelMode, now: Date): Date | null {
  const row = tx
    .select({ at: orderOffPremise.promisedFulfillmentAt })
    .from(orderOffPremise)
    .where(
      and(
        eq(orderOffPremise.locationId, locationId),
        eq(orderOffPremise.mode, mode),
        eq(orderOffPremise.scheduled, false),
        ne(orderOffPremise.stagingState, 'ready'),
        inArray(orderOffPremise.orderId, orderIdsInStatus(['draft', 'submitted', 'paid'])),
        gt(orderOffPremise.promisedFulfillmentAt, now.toISOString()),
      ),
    )
    .orderBy(desc(orderOffPremise.promisedFulfillmentAt))
    .limit(1)
    .get()
  return row ? new Date(row.at) : null
}

function customerBlock(tx: Queryable, order: OrderFacts, input: OffPremiseInputValue['customer']) {
  const given = input?.customerId ?? order.customerId
  // A merged-away id names its primary.
  const record = given ? findCustomerRow(tx, given) : undefined
  if (given && !record) throw invalid('body/offPremise/customer/customerId', `no customer ${given}`)
  return {
    customerId: record?.id ?? null,
    firstName: input?.firstName ?? record?.firstName ?? null,
    lastName: input?.lastName ?? record?.lastName ?? null,
    phone: input?.phone ?? record?.phone ?? null,
    email: input?.email ?? record?.email ?? null,
  }
}

function deliveryAddress(tx: Queryable, customerId: string | null, input: OffPremiseInputValue['delivery']) {
  if (!input?.addressId) return { addressId: null, addressLabel: input?.addressLabel ?? null }
  const address = customerId ? findCustomerAddress(tx, customerId, input.addressId) : undefined
  if (!address)
    throw invalid(
      'body/offPremise/delivery/addressId',
      `no address ${input.addressId} of the order's customer`,
    )
  const line = [address.line1, address.line2, address.city, address.region, address.postalCode]
  return { addressId: address.id, addressLabel: input.addressLabel ?? line.filter(Boolean).join(', ') }
}

export function attachOffPremise(
  tx: Queryable,
  _actor: Actor,
  order: OrderFacts,
  input: OffPremiseInputValue | undefined,
  now = new Date(),
): void {
  if (!isOffPremiseMode(order.fulfillmentMode)) {
    if (input) throw invalid('body/offPremise', `only for ${OFF_PREMISE_MODES.join(', ')} orders`)
    return
  }
  const isDelivery = order.fulfillmentMode === 'delivery'
  if (isDelivery && input?.pickup) throw invalid('body/offPremise/pickup', 'not for delivery orders')
  if (!isDelivery && input?.delivery) throw invalid('body/offPremise/delivery', 'only for delivery orders')
  let scheduledFor: Date | null = null
  if (input?.scheduledFor) {
    scheduledFor = new Date(input.scheduledFor)
    if (scheduledFor.getTime() <= now.getTime())
      throw invalid('body/offPremise/scheduledFor', 'must be in the future')
  }
  const mode: ChannelMode = isDelivery ? 'delivery' : 'takeout'
  const location = getLocation(tx, order.locationId)
  const settings = settingsOrDefaults(tx, order.locationId)

  let channel: ChannelValue = { kind: 'first_party', provider: null, channelId: null }
  let quoteChannel: Parameters<typeof quoteOrder>[1]['channel'] = { kind: 'first_party' }
  if (input?.channel?.kind === 'third_party') {
    const channelId = input.channel.channelId
    if (!channelId) throw invalid('body/offPremise/channel/channelId', 'required for a third-party channel')
    const row = tx
      .select()
      .from(offPremiseChannels)
      .where(and(eq(offPremiseChannels.id, channelId), eq(offPremiseChannels.locationId, order.locationId)))
      .get()
    if (!row) throw invalid('body/offPremise/channel/channelId', `no channel ${channelId} at this location`)
    channel = { kind: 'third_party', provider: row.provider, channelId: row.id }
    quoteChannel = { kind: 'third_party', state: row }
  }

  const outcome = quoteOrder(settings, {
    mode,
    channel: quoteChannel,
    now,
    scheduledFor,
    timeZone: location.timezone,
    latestPromised: latestPromised(tx, order.locationId, mode, now),
  })
  if (!outcome.ok) throw conflict(`the order cannot be taken: ${outcome.detail}`, outcome.extensions)

  const customer = customerBlock(tx, order, input?.customer)
  const at = nowIso()
  const pickupKind = input?.pickup?.kind ?? (order.fulfillmentMode === 'curbside' ? 'curbside' : 'standard')
  const curbside = input?.pickup?.curbside
  tx.insert(orderOffPremise)
    .values({
      orderId: order.id,
      locationId: order.locationId,
      mode,
      scheduled: scheduledFor !== null,
      promisedFulfillmentAt: outcome.quote.promisedFulfillmentAt,
      channel,
      customer,
      quote: outcome.quote,
      readyAt: null,
      stagingState: 'pending',
      batchId: null,
      staging: {
        state: 'pending',
        batchId: null,
        batchLabel: null,
        stagingArea: null,
        stagingSlot: null,
        handoffZone: null,
        batchReadyAt: null,
        stagedAt: null,
        readyBy: null,
      },
      guestMessaging: {
        enabled: input?.guestMessaging?.enabled ?? true,
        preferredChannel: input?.guestMessaging?.preferredChannel ?? 'sms',
        lastUpdatedAt: null,
      },
      pickup: isDelivery
        ? null
        : {
            kind: pickupKind,
            state: 'waiting',
            stagedAt: null,
            arrivedAt: null,
            completedAt: null,
            curbside:
              pickupKind === 'curbside'
                ? {
                    vehicleMakeModel: curbside?.vehicleMakeModel ?? null,
                    vehicleColor: curbside?.vehicleColor ?? null,
                    instructions: curbside?.instructions ?? null,
                    parkingSpot: curbside?.parkingSpot ?? null,
                    arrivalNote: null,
                  }
                : null,
          },
      delivery: isDelivery
        ? {
            ...deliveryAddress(tx, customer.customerId, input?.delivery),
            state: 'pending',
            instructions: input?.delivery?.instructions ?? null,
            deliveryNotes: null,
            stagedAt: null,
            dispatchedAt: null,
            deliveredAt: null,
            dispatchNote: null,
            dispatch: {
              assignmentMode: 'unassigned',
              assignedDriver: null,
              dispatchedBy: null,
              courierName: null,
              courierPhone: null,
              vehicleLabel: null,
              assignedAt: null,
            },
          }
        : null,
      createdAt: at,
      updatedAt: at,
    })
    .run()
}

const modeClass = (mode: string) =>
  mode === 'delivery' ? 'delivery' : isOffPremiseMode(mode) ? 'takeout' : 'on_premise'

/**
 * An order's fulfillment mode changing (PUT /order/{id}). Into an off-premise mode from an
 * on-premise one: the order gets its block and quote now (or the change is refused like a
 * create). Between takeout, pickup and curbside: the pickup kind follows. Between pickup-style
 * and delivery, or back on premise: 409, the quote and flow would no longer hold.
 */
export function changeOffPremiseMode(tx: Queryable, actor: Actor, order: OrderFacts, newMode: string): void {
  if (newMode === order.fulfillmentMode) return
  const row = tx.select().from(orderOffPremise).where(eq(orderOffPremise.orderId, order.id)).get()
  if (!row) {
    attachOffPremise(tx, actor, { ...order, fulfillmentMode: newMode }, undefined)
    return
  }
  if (modeClass(newMode) !== modeClass(order.fulfillmentMode))
    throw conflict(
      `an off-premise ${order.fulfillmentMode} order cannot become ${newMode}; create a new order`,
      {
        fulfillmentMode: order.fulfillmentMode,
        stagingState: row.staging.state,
      },
    )
  if (!row.pickup) return
  const kind = newMode === 'curbside' ? 'curbside' : 'standard'
  const curbside =
    kind === 'curbside'
      ? (row.pickup.curbside ?? {
          vehicleMakeModel: null,
          vehicleColor: null,
          instructions: null,
          parkingSpot: null,
          arrivalNote: null,
        })
      : null
  tx.update(orderOffPremise)
    .set({ pickup: { ...row.pickup, kind, curbside }, updatedAt: nowIso() })
    .where(eq(orderOffPremise.orderId, order.id))
    .run()
}
