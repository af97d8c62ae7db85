// What a membership gets from a release: whether a run takes it (and why not), and its order,
// made through the orders service.

import type { Actor } from '../../platform/foundation/actor'
import { ApiError, conflict } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import type { Queryable } from '../../platform/tenancy/transaction'
import type { ClubMembershipRow } from '../club-memberships'
import { membershipOn } from '../club-memberships'
import { clubCouponCodes } from '../coupons'
import { findAddress } from '../customers'
import { firstLocation } from '../locations'
import type { ShipTo } from '../orders'
import { applyCoupon, createOrder, getOrderRow } from '../orders'
import type { ClubReleaseRow } from './schema'

export type Decision = { take: true } | { take: false; status: 'Skipped' | 'OnHold'; reason: string }

/**
 * Whether a live membership is part of the release: Active on the process date, delivered as
 * offered, and due: its nextProcessDate on the process date (what the API shows then) is not after it.
 */
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
  const due = membershipOn(tx, m, release.processDate).nextProcessDate!
  if (due > release.processDate)
    return {
      take: false,
      status: 'Skipped',
      reason: `not due until ${due} (${m.lastProcessedDate ? `last processed ${m.lastProcessedDate}` : `signed up ${m.signupDate}`})`,
    }
  return { take: true }
}

/** Where a new club order is placed: the membership's sign-up location, else the tenant's first. */
function orderLocationOf(tx: Queryable, m: ClubMembershipRow): string {
  if (m.locationId) return m.locationId
  const first = firstLocation(tx)
  if (!first) throw conflict('the tenant has no location to place club orders at')
  return first.id
}

/** Where a shipped membership's order ships to: its ship-to address; null when it has none. */
function shipToOf(tx: Queryable, m: ClubMembershipRow): ShipTo | null {
  if (!m.shipToCustomerAddressId) return null
  const address = findAddress(tx, m.shipToCustomerAddressId)
  return address ? { countryCode: address.countryCode, stateCode: address.region } : null
}

/**
 * The member's order, through the orders service: the release's items (at the release price, if
 * any) and the club's member coupons the coupons engine accepts. A shipped membership's order is a
 * `shipping` order to the member's address, so the orders service charges its default shipping rate
 * and taxes it all at the ship-to; a picked-up one is taxed at the pickup location.
 */
export function createMemberOrder(db: Db, actor: Actor, release: ClubReleaseRow, m: ClubMembershipRow) {
  const shipped = m.orderDeliveryMethod === 'Ship'
  const order = createOrder(
    db,
    actor,
    {
      locationId: orderLocationOf(db, m),
      customerId: m.customerId,
      source: 'api',
      fulfillmentMode: shipped ? 'shipping' : 'pickup',
      shipTo: shipped ? shipToOf(db, m) : null,
      note: `Club release: ${release.title}`,
      lineItems: release.items.map((item) => ({
        productVariantId: item.productVariantId,
        quantity: item.quantity,
      })),
    },
    release.items.map((item) => ({ unitPrice: item.price ?? undefined })),
  )
  for (const couponCode of clubCouponCodes(db, release.clubId)) {
    try {
      applyCoupon(db, actor, order.id, { couponCode })
    } catch (error) {
      // A member coupon the engine refuses for this cart (minimum not met, expired) is left off.
      if (!(error instanceof ApiError)) throw error
    }
  }
  return getOrderRow(db, order.id)
}
