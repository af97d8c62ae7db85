// What a membership gets from a release: whether a run takes it (and why not), and its order,
// made through the orders service.
import { and, asc, eq } from 'drizzle-orm'
import type { Actor } from '../../platform/auth/actor'
import { ApiError, conflict } from '../../platform/http/problem'
import type { Db } from '../../platform/tenancy/databases'
import type { Queryable } from '../../platform/tenancy/transaction'
import { nextProcessDate } from '../club-memberships/cadence'
import type { ClubMembershipRow } from '../club-memberships/schema'
import { cadenceOf } from '../club-memberships/service'
import { coupons } from '../coupons/schema'
import { customerAddresses } from '../customers/schema'
import { locations } from '../locations/schema'
import { applyCoupon } from '../orders/discounts'
import { addLine, type TaxPlace } from '../orders/lines'
import { createOrder } from '../orders/orders'
import type { OrdersPort } from '../orders/ports'
import { getOrderRow } from '../orders/view'
import { quoteOrderShipping } from '../shipping/order-rates'
import type { ClubReleaseRow } from './schema'

export type Decision = { take: true } | { take: false; status: 'Skipped' | 'OnHold'; reason: string }

/** Whether a live membership is part of the release: Active on the process date, delivered as offered, due. */
export function decide(tx: Queryable, m: ClubMembershipRow, release: ClubReleaseRow): Decision {
  if (m.status === 'On Hold' && (m.holdUntil === null || m.holdUntil > release.processDate))
    return {
      take: false,
      status: 'OnHold',
      reason: `on hold until ${m.holdUntil}${m.holdReason ? ` (${m.holdReason})` : ''}`,
    }
  if (!release.deliveryMethods.includes(m.orderDeliveryMethod))
    return {
      take: false,
      status: 'Skipped',
      reason: `delivery method ${m.orderDeliveryMethod} is not offered by this release`,
    }
  if (m.lastProcessedDate !== null) {
    const due = nextProcessDate(m.lastProcessedDate, cadenceOf(tx, m))
    if (due > release.processDate)
      return {
        take: false,
        status: 'Skipped',
        reason: `not due until ${due} (last processed ${m.lastProcessedDate})`,
      }
  }
  return { take: true }
}

/** Where a new club order is placed: the membership's sign-up location, else the tenant's first. */
function orderLocationOf(tx: Queryable, m: ClubMembershipRow): string {
  if (m.locationId) return m.locationId
  const first = tx
    .select({ id: locations.id })
    .from(locations)
    .orderBy(asc(locations.createdAt))
    .limit(1)
    .get()
  if (!first) throw conflict('the tenant has no location to place club orders at')
  return first.id
}

function shipToPlace(tx: Queryable, m: ClubMembershipRow): TaxPlace | undefined {
  if (m.orderDeliveryMethod !== 'Ship' || !m.shipToCustomerAddressId) return undefined
  const address = tx
    .select()
    .from(customerAddresses)
    .where(eq(customerAddresses.id, m.shipToCustomerAddressId))
    .get()
  return address ? { countryCode: address.countryCode, stateCode: address.region } : undefined
}

/** The club's member discounts: Enabled coupons available to this club, by code. */
function memberCouponCodes(tx: Queryable, clubId: string): string[] {
  return tx
    .select({ code: coupons.code, availableTo: coupons.availableTo, ids: coupons.availableToObjectIds })
    .from(coupons)
    .where(and(eq(coupons.status, 'Enabled'), eq(coupons.availableTo, 'Club')))
    .orderBy(asc(coupons.code))
    .all()
    .filter((c) => c.ids.includes(clubId))
    .map((c) => c.code)
}

/**
 * The member's order, through the orders service: the release's items (at the release price, if
 * any), the club's member coupons the coupons engine accepts, and for a shipped membership the
 * default shipping rate for the weight and ship-to, as a freight line; taxed at the ship-to, or
 * at the pickup location.
 */
export function createMemberOrder(
  db: Db,
  actor: Actor,
  port: OrdersPort,
  release: ClubReleaseRow,
  m: ClubMembershipRow,
) {
  const taxPlace = shipToPlace(db, m)
  const order = createOrder(
    db,
    actor,
    port,
    {
      locationId: orderLocationOf(db, m),
      customerId: m.customerId,
      source: 'api',
      fulfillmentMode: m.orderDeliveryMethod === 'Ship' ? 'shipping' : 'pickup',
      note: `Club release: ${release.title}`,
      lineItems: release.items.map((item) => ({
        productVariantId: item.productVariantId,
        quantity: item.quantity,
      })),
    },
    release.items.map((item) => ({ unitPrice: item.price ?? undefined, taxPlace })),
  )
  for (const couponCode of memberCouponCodes(db, release.clubId)) {
    try {
      applyCoupon(db, actor, port, order.id, { couponCode })
    } catch (error) {
      // A member coupon the engine refuses for this cart (minimum not met, expired) is left off.
      if (!(error instanceof ApiError)) throw error
    }
  }
  if (taxPlace) {
    const { rates } = quoteOrderShipping(db, order.id, {
      countryCode: taxPlace.countryCode,
      stateCode: taxPlace.stateCode ?? undefined,
    })
    const rate = rates.find((r) => r.isDefault) ?? rates[0]
    if (rate && rate.price > 0)
      addLine(
        db,
        actor,
        port,
        order.id,
        {
          lineType: 'open_item',
          openItemScope: 'freight',
          title: `Shipping: ${rate.title}`,
          unitPrice: rate.price,
        },
        { taxPlace },
      )
  }
  return getOrderRow(db, order.id)
}
