// Routes under /order/{id}/...: lines, discounts, service charges, lifecycle and fulfillments,
// each located by its order.
import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import type { MessageSender } from '../../platform/messaging/sender'
import { addServiceCharge, removeServiceCharge } from './charges'
import { applyCoupon, removeDiscount } from './discounts'
import { withFulfillmentEmail } from './fulfillment-email'
import { deleteFulfillment, fulfillAll, fulfillItems } from './fulfillments'
import { closeOrder, submitOrder, voidLine, voidOrder } from './lifecycle'
import { addLine, removeLine, updateLine } from './lines'
import {
  AddServiceCharge,
  ApplyDiscount,
  DiscountParams,
  FulfillAll,
  FulfillItems,
  FulfillmentParams,
  Order,
  OrderParams,
  ServiceChargeParams,
  VoidBody,
} from './model'
import { AddLine, LineParams, UpdateLine } from './model-lines'
import { orderLocated } from './view'

const refused = 'An order in another status is 409 `conflict` with `currentStatus` (and `allowedStatuses`).'

export const orderActionRoutes = (auth: AuthPlugin, messages: MessageSender) =>
  new Elysia({ name: 'order-actions', prefix: '/order/:id', detail: { tags: ['Orders'] } })
    .use(auth)
    .post('/line', ({ db, actor, params, body }) => addLine(db, actor, params.id, body), {
      permission: 'orders:write',
      locatedBy: orderLocated,
      params: OrderParams,
      body: AddLine,
      response: Order,
      detail: {
        summary: 'Add a line item',
        description: `Catalog lines are priced from the variant (\`productVariantId\` or \`sku\`); a sent \`unitPrice\` is 400. Open items (\`lineType: open_item\`) need \`title\`, \`unitPrice\` and \`openItemScope\`. Modifiers nest up to 3 levels. The line starts \`new\`; submit sends it. Answers the repriced order. Allowed on \`draft\` and \`submitted\` orders. ${refused}`,
      },
    })
    .put(
      '/line/:lineId',
      ({ db, actor, params, body }) => updateLine(db, actor, params.id, params.lineId, body),
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: LineParams,
        body: UpdateLine,
        response: Order,
        detail: {
          summary: 'Change a line item',
          description: `Partial: quantity, modifiers, seat, course, notes... (price and title only for open items). Only lines not yet sent: a sent line is 409 (void it instead). Tax rate is re-resolved. ${refused}`,
        },
      },
    )
    .delete('/line/:lineId', ({ db, actor, params }) => removeLine(db, actor, params.id, params.lineId), {
      permission: 'orders:write',
      locatedBy: orderLocated,
      params: LineParams,
      response: Order,
      detail: {
        summary: 'Remove a line item',
        description: `Only lines not yet sent (a sent line is 409: void it instead); line discounts on it go too. Answers the repriced order. ${refused}`,
      },
    })
    .post(
      '/line/:lineId/void',
      ({ db, actor, params, body }) => voidLine(db, actor, params.id, params.lineId, body),
      {
        permission: 'orders:void',
        locatedBy: orderLocated,
        params: LineParams,
        body: VoidBody,
        response: Order,
        detail: {
          summary: 'Void a line item',
          description: `Records the reason, time and staff user; the line then counts 0 in every total, and stock taken for it is put back. Voiding twice is 409. Refused (409) when the new total would fall below what is already paid. ${refused}`,
        },
      },
    )
    .post('/submit', ({ db, actor, params }) => submitOrder(db, actor, params.id), {
      permission: 'orders:write',
      locatedBy: orderLocated,
      params: OrderParams,
      response: Order,
      detail: {
        summary: 'Submit (send) an order',
        description: `Sends every \`new\` line to the kitchen (\`sendStatus\` \`sent\`, \`sentAt\`), depletes stock, and makes a \`draft\` order \`submitted\` (\`submittedAt\`, kept on later sends). Nothing new to send is 409. Allowed on \`draft\` and \`submitted\`. ${refused}`,
      },
    })
    .post('/void', ({ db, actor, params, body }) => voidOrder(db, actor, params.id, body), {
      permission: 'orders:void',
      locatedBy: orderLocated,
      params: OrderParams,
      body: VoidBody,
      response: Order,
      detail: {
        summary: 'Void an order',
        description: `Voids every line with the reason and makes the order \`voided\` (totals 0); stock is put back. Only \`draft\` or \`submitted\` orders with nothing paid (refund first). ${refused}`,
      },
    })
    .post('/close', ({ db, actor, params }) => closeOrder(db, actor, params.id), {
      permission: 'orders:write',
      locatedBy: orderLocated,
      params: OrderParams,
      response: Order,
      detail: {
        summary: 'Close an order',
        description: `From \`paid\`, or from \`submitted\` when nothing is due (a fully comped check). A balance still due is 409 with \`balanceDue\`. ${refused}`,
      },
    })
    .post('/discount', ({ db, actor, params, body }) => applyCoupon(db, actor, params.id, body), {
      permission: 'orders:write',
      locatedBy: orderLocated,
      params: OrderParams,
      body: ApplyDiscount,
      response: Order,
      detail: {
        summary: 'Apply a coupon',
        description: `Adds an AppliedDiscount from the coupon with \`couponCode\` (case-insensitive), to the order or to one line (\`lineItemId\`; a voided line is 409). An unknown code is 400. Whether the coupon applies is decided by the coupons module's engine on the order's cart: its lines not voided and not gift card sales (those too when the gift card setting \`allowDiscounts\` is on), each at what earlier discounts left of it; the order's subtotal; today in the location's time zone; the coupon's uses on other orders that are not voided (of the order's customer for \`Per Customer\` limits); the customer's live (not cancelled) club memberships and Manual customer tags. A coupon that does not apply is 409 with \`reason\`, checked in this order: \`disabled\`, \`not_started\`, \`expired\` (dates inclusive), \`usage_limit_reached\`, \`customer_required\` and \`customer_usage_limit_reached\` (\`Per Customer\`), \`not_available_to_customer\` (\`availableTo\` Customer, Club or Customer Tag), \`already_applied\`, \`not_combinable\` (an \`exclusive\` coupon stands alone), \`minimum_not_met\` (subtotal below \`minimumCartAmount\`), \`no_eligible_items\` (\`appliesTo\` Product/Collection matching no line, or a \`lineItemId\` the coupon does not apply to). A Store coupon applies even before the order has lines (its amount is 0 until it has). A coupon that requires manager approval needs \`managerApprovedByStaffUserId\` naming an active staff user with \`discounts:approve\` at the order's location: missing, or a user without it, is 403 (\`reason\` \`manager_approval_required\` when missing); an unknown user, or naming one for a coupon that needs no approval, is 400. Amounts are recomputed by the same engine whenever the order changes, discounts stacking in the order applied. ${refused}`,
      },
    })
    .delete(
      '/discount/:discountId',
      ({ db, actor, params }) => removeDiscount(db, actor, params.id, params.discountId),
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: DiscountParams,
        response: Order,
        detail: {
          summary: 'Remove an applied discount',
          description: `Answers the repriced order. ${refused}`,
        },
      },
    )
    .post('/service-charges', ({ db, actor, params, body }) => addServiceCharge(db, actor, params.id, body), {
      permission: 'orders:write',
      locatedBy: orderLocated,
      params: OrderParams,
      body: AddServiceCharge,
      response: Order,
      detail: {
        summary: 'Add a service charge',
        description: `A \`fixed\` charge of \`value\` cents, or a \`percent\` charge of \`value\` basis points (at most 10000, else 400) of the lines: the subtotal, less what discounts whose coupon says \`serviceChargeInteraction: post_discount\` take from the lines (\`pre_discount\` ones leave the base alone). A Store coupon that does not exclude service charges (\`excludesServiceCharges: false\`) reduces the charges too, never a \`gratuity\`. A \`taxable\` charge is taxed (Added) at the rate of \`taxCode\` (default \`food\`) where the order is taxed. The charge is listed in \`serviceCharges\` and summed in \`serviceChargeTotal\`; amounts follow every later change of the order. Answers the repriced order. ${refused}`,
      },
    })
    .delete(
      '/service-charges/:serviceChargeId',
      ({ db, actor, params }) => removeServiceCharge(db, actor, params.id, params.serviceChargeId),
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: ServiceChargeParams,
        response: Order,
        detail: {
          summary: 'Remove a service charge',
          description: `An unknown charge (or one of another order) is 404. Answers the repriced order. ${refused}`,
        },
      },
    )
    .post(
      '/fulfillment/all',
      ({ db, actor, params, body }) =>
        withFulfillmentEmail(db, actor, messages, fulfillAll(db, actor, params.id, body)),
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: OrderParams,
        body: FulfillAll,
        response: Order,
        detail: {
          summary: 'Fulfill every line',
          description:
            'Records one fulfillment of everything not yet fulfilled, by SKU (lines without a SKU, open items, are not fulfilled by SKU). Nothing left is 409. Only `submitted`, `paid` or `closed` orders (409 with `currentStatus` otherwise). `shipped` only with type `Shipped`, `pickedUp` only with `Picked Up`. With `sendTransactionEmail` the order’s customer is emailed through the message sender once the fulfillment is recorded (its items, and tracking numbers when shipped); the outcome is audited as `order.fulfillment.email` (`sent`, `failed` with the reason, or `skipped` without a customer email) and never undoes the fulfillment.',
        },
      },
    )
    .post(
      '/fulfillment',
      ({ db, actor, params, body }) =>
        withFulfillmentEmail(db, actor, messages, fulfillItems(db, actor, params.id, body)),
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: OrderParams,
        body: FulfillItems,
        response: Order,
        detail: {
          summary: 'Fulfill some items',
          description:
            'Items by SKU (case-insensitive; repeated SKUs add up). A SKU not on the order is 400; more than remains unfulfilled is 409 with `remainingQuantity`. Only `submitted`, `paid` or `closed` orders. With `sendTransactionEmail` the order’s customer is emailed through the message sender once the fulfillment is recorded (its items, and tracking numbers when shipped); the outcome is audited as `order.fulfillment.email` (`sent`, `failed` with the reason, or `skipped` without a customer email) and never undoes the fulfillment.',
        },
      },
    )
    .delete(
      '/fulfillment/:fulfillmentId',
      ({ db, actor, params, set }) => {
        deleteFulfillment(db, actor, params.id, params.fulfillmentId)
        set.status = 204
      },
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: FulfillmentParams,
        response: { 204: t.Void() },
        detail: {
          summary: 'Delete a fulfillment',
          description: 'Its items count as unfulfilled again. 204 with no body.',
        },
      },
    )
