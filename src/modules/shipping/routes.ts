import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { OrderParams, orderLocated } from '../orders'
import {
  CreateShipping,
  OrderRateQuery,
  OrderRateQuoteList,
  RateQuoteList,
  RateQuoteQuery,
  ShippingConfiguration,
  ShippingList,
  ShippingListQuery,
  ShippingParams,
  UpdateShipping,
} from './model'
import { quoteOrderShipping } from './order-rates'
import {
  createShipping,
  deleteShipping,
  getShipping,
  listShippings,
  quoteShippingRates,
  updateShipping,
} from './service'

const RATES =
  'Prices are integer cents. A service charges the price of the band with the smallest `toWeight` at or above the weight (bands are inclusive upward). Above the last band: without wrap, the last band’s price plus `topRate.price` for every `topRate.forEveryXWeight` or part of it above the last band; with `isWrapShipping`, full packages of the last band’s weight at its price plus the band price of the rest. Weights have at most three decimals and are compared exactly across units (1 lb = 0.45359237 kg).'

export const shippingRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'shipping', prefix: '/shipping', detail: { tags: ['Shipping'] } })
    .use(auth)
    .get('', ({ db, query }) => listShippings(db, { q: query.q, ...pageOf(query) }), {
      permission: 'shipping:read',
      query: ShippingListQuery,
      response: ShippingList,
      detail: {
        summary: 'List shipping configurations',
        description: 'Ordered by title; `q` matches the title.',
      },
    })
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createShipping(db, actor, body)
      },
      {
        permission: 'shipping:write',
        body: CreateShipping,
        response: { 201: ShippingConfiguration },
        detail: {
          summary: 'Create a shipping configuration',
          description: `Regions are distinct country/state pairs (no state: the whole country); service codes are unique within the configuration; at most one default service; each service's bands need distinct weights. ${RATES}`,
        },
      },
    )
    .get('/rates', ({ db, query }) => quoteShippingRates(db, query), {
      permission: 'shipping:read',
      query: RateQuoteQuery,
      response: RateQuoteList,
      detail: {
        summary: 'Quote shipping rates',
        description: `What every active service of each configuration covering the destination charges for the weight. A region covers the destination when the country matches and its state is the destination's or empty (whole country); a destination without \`stateCode\` is covered by whole-country regions only. ${RATES}`,
      },
    })
    .get('/:id', ({ db, params }) => getShipping(db, params.id), {
      permission: 'shipping:read',
      params: ShippingParams,
      response: ShippingConfiguration,
      detail: { summary: 'Get a shipping configuration', description: RATES },
    })
    .put('/:id', ({ db, actor, params, body }) => updateShipping(db, actor, params.id, body), {
      permission: 'shipping:write',
      params: ShippingParams,
      body: UpdateShipping,
      response: ShippingConfiguration,
      detail: {
        summary: 'Update a shipping configuration',
        description:
          'Partial: `title`; `regions` and `services`, when sent, replace the lists (send an element’s `id` to keep it). The same rules as create.',
      },
    })
    .delete(
      '/:id',
      ({ db, actor, params, set }) => {
        deleteShipping(db, actor, params.id)
        set.status = 204
      },
      {
        permission: 'shipping:write',
        params: ShippingParams,
        response: { 204: t.Void() },
        detail: { summary: 'Delete a shipping configuration', description: 'Answers 204 with no body.' },
      },
    )

/** Shipping rates for an order's own weight: GET /order/{id}/shipping-rates. */
export const orderShippingRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'order-shipping', prefix: '/order', detail: { tags: ['Shipping'] } })
    .use(auth)
    .get('/:id/shipping-rates', ({ db, params, query }) => quoteOrderShipping(db, params.id, query), {
      permission: 'orders:read',
      locatedBy: orderLocated,
      params: OrderParams,
      query: OrderRateQuery,
      response: OrderRateQuoteList,
      detail: {
        summary: 'Quote shipping for an order',
        description: `The order’s shipping weight is the sum, over lines that are not voided and sell a variant with \`hasShipping\` and a \`weight\` (pounds), of the weight rounded up to the next thousandth of a pound times the quantity; then the rates as \`GET /shipping/rates\` for the destination. ${RATES}`,
      },
    })
