import { Elysia, t } from 'elysia'
import type { Permission } from '../../platform/auth/permissions'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { forbidden } from '../../platform/foundation/problem'
import { idempotencyKeyHeader, idempotentWrite } from '../../platform/http/idempotency'
import { getOrderSettings, putOrderSettings } from './charges'
import {
  CreateOrder,
  LocationParams,
  LocationTaxPlace,
  Order,
  OrderList,
  OrderListQuery,
  OrderParams,
  OrderSettings,
  PutLocationTaxPlace,
  PutOrderSettings,
  UpdateOrder,
} from './model'
import {
  createOrder,
  getLocationTaxPlace,
  getOrder,
  listOrders,
  putLocationTaxPlace,
  updateOrder,
} from './orders'
import { orderLocated } from './view'

/** A shipping override (set or cleared) needs its own primitive beside `orders:write`. */
function assertMayOverrideShipping(
  permissions: ReadonlySet<Permission>,
  body: { shippingOverride?: unknown },
) {
  if (body.shippingOverride !== undefined && !permissions.has('orders:shipping-override'))
    throw forbidden('setting shippingOverride needs the orders:shipping-override permission')
}

const SHIPPING =
  'A `shipping` order with a `shipTo` is charged the configured rate for its shipping weight (`GET /order/{id}/shipping-rates`), recomputed on every change, and is taxed where it ships (lines, service charges and shipping at the `freight` rate); `shippingOverride` (permission `orders:shipping-override`, else 403) charges an explicit amount instead.'

const ROUNDING =
  'Money is integer cents. Line subtotal = (unitPrice + modifier amounts) × quantity; modifier amounts round half-up per portion; discounts apply in order, each to what earlier ones left; bottle deposits are the variant’s `bottleDeposit` × quantity, never discounted; tax is computed per line on the discounted amount (plus the deposit when the tenant taxes deposits, `PUT /order-settings`) and rounded half-up to the cent (`Added`: on top; `Included`: inside the price, reported in `includedTaxTotal`), per service charge and on shipping. total = subtotal − discountTotal + serviceChargeTotal + shippingTotal + bottleDepositTotal + (taxTotal − includedTaxTotal) + tipTotal + fundraising contribution; each total is the sum of its breakdown (lines, service charges, `shipping`).'

export const orderRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'orders', prefix: '/order', detail: { tags: ['Orders'] } })
    .use(auth)
    .get('', ({ db, query, locations }) => listOrders(db, { ...query, ...pageOf(query) }, locations), {
      permission: 'orders:read',
      query: OrderListQuery,
      response: OrderList,
      detail: {
        summary: 'List orders',
        description:
          'Newest first. `q` is an order number (exact, `#` optional) or part of the customer or guest name; `createdAfter` is inclusive, `createdBefore` exclusive. `total` counts every match.',
      },
    })
    .post(
      '',
      ({ db, actor, permissions, body, headers, request, set }) => {
        assertMayOverrideShipping(permissions, body)
        const key = headers['idempotency-key']
        const run = () => ({ status: 201, body: createOrder(db, actor, body) })
        const result = key
          ? idempotentWrite(
              db,
              actor,
              { key, method: 'POST', path: new URL(request.url).pathname, body },
              run,
            )
          : run()
        set.status = result.status
        return result.body
      },
      {
        permission: 'orders:write',
        body: CreateOrder,
        headers: t.Object({ 'idempotency-key': t.Optional(t.String(idempotencyKeyHeader)) }),
        response: { 201: Order },
        detail: {
          summary: 'Create an order',
          description: `A \`customerId\` must name a customer (a merged-away id is taken to its primary) and fills \`customerName\` unless sent. Starts a \`draft\` order with the next order number of the tenant (no gaps, no duplicates), at \`locationId\` or the \`x-location-id\` location, optionally with lines. Send an \`idempotency-key\` to make retries safe. ${SHIPPING} ${ROUNDING}`,
        },
      },
    )
    .get('/settings/locations/:locationId', ({ db, params }) => getLocationTaxPlace(db, params.locationId), {
      permission: 'orders:read',
      params: LocationParams,
      response: LocationTaxPlace,
      detail: {
        summary: 'Get where a location charges tax',
        description:
          'The country and state whose Tax record prices the location’s order lines; null until set.',
      },
    })
    .put(
      '/settings/locations/:locationId',
      ({ db, actor, params, body }) => putLocationTaxPlace(db, actor, params.locationId, body),
      {
        permission: 'locations:write',
        params: LocationParams,
        body: PutLocationTaxPlace,
        response: LocationTaxPlace,
        detail: {
          summary: 'Set where a location charges tax',
          description:
            'Lines added afterwards take `taxRateBps` from the Tax record of this state (else the country-wide one) by `taxCode`. Without a place or a matching Tax record, lines are untaxed (rate 0).',
        },
      },
    )
    .get('/:id', ({ db, params }) => getOrder(db, params.id), {
      permission: 'orders:read',
      locatedBy: orderLocated,
      params: OrderParams,
      response: Order,
      detail: { summary: 'Get an order', description: ROUNDING },
    })
    .put(
      '/:id',
      ({ db, actor, permissions, params, body }) => {
        assertMayOverrideShipping(permissions, body)
        return updateOrder(db, actor, params.id, body)
      },
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: OrderParams,
        body: UpdateOrder,
        response: Order,
        detail: {
          summary: 'Update an order’s header',
          description: `Partial: customer, guest, table, seats, note, server, fulfillment mode, fundraising, ship-to, shipping override. A change of where the order is taxed (its ship-to or fulfillment mode) re-rates its lines and service charges. Only \`draft\` and \`submitted\` orders; otherwise 409 with \`currentStatus\`. ${SHIPPING}`,
        },
      },
    )

export const orderSettingsRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'order-settings', prefix: '/order-settings', detail: { tags: ['Orders'] } })
    .use(auth)
    .get('', ({ db }) => getOrderSettings(db), {
      permission: 'orders:read',
      response: OrderSettings,
      detail: {
        summary: 'Get the tenant’s order settings',
        description: 'Whether bottle deposits are taxed; the defaults until first set (`updatedAt` null).',
      },
    })
    .put('', ({ db, actor, body }) => putOrderSettings(db, actor, body), {
      permission: 'taxes:write',
      body: PutOrderSettings,
      response: OrderSettings,
      detail: {
        summary: 'Set the tenant’s order settings',
        description:
          '`bottleDepositTaxable`: bottle deposits are taxed with their line, at its rate (California CRV is taxable; most other states’ deposits are not). Open orders follow at their next change; paid ones keep what they were charged.',
      },
    })
