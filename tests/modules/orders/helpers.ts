// Test app for orders with an in-memory catalog in place of the other families (orders/others.ts:
// replaceOthersForTests), so the order rules are tested on their own; the families' own answers
// are tested through the service app (wiring.test.ts). The shipping rate and the off-premise
// block stay the families'.
import { expect } from 'bun:test'
import { Elysia } from 'elysia'
import { orderActionRoutes } from '../../../src/modules/orders/action-routes'
import {
  type CatalogVariantInfo,
  type CustomerSegments,
  type DepletionRequest,
  type GiftCardIssue,
  type OrderCoupon,
  type Others,
  replaceOthersForTests,
  type TaxRateInfo,
} from '../../../src/modules/orders/others'
import { orderRoutes } from '../../../src/modules/orders/routes'
import type { TaxCode } from '../../../src/modules/orders/schema'
import { httpConventions } from '../../../src/platform/http/conventions'
import { type BodySchemas, takeOverBodyChecks } from '../../../src/platform/http/request-body'
import { createTestApp, type RequestOptions, type TestApp, type TestResponse } from '../../harness'

export interface FakeCatalog {
  variants: CatalogVariantInfo[]
  /** Keyed `US-CA` or `US` (country-wide), by tax code. */
  taxes: Map<string, Record<TaxCode, number> & { calculation: TaxRateInfo['taxCalculation'] }>
  coupons: OrderCoupon[]
  /** Clubs and tags by customer id. */
  segments: Map<string, CustomerSegments>
  depleted: DepletionRequest[]
  reversed: { orderId: string; lineIds?: string[] }[]
  issued: GiftCardIssue[]
}

function fakeOthers(catalog: FakeCatalog): Partial<Others> {
  return {
    findCustomer: (_db, id) => (id.startsWith('cust-') ? { id, name: `Customer ${id}` } : undefined),
    findVariant: (_db, ref) =>
      catalog.variants.find((v) =>
        ref.variantId ? v.variantId === ref.variantId : v.sku.toLowerCase() === ref.sku?.toLowerCase(),
      ),
    taxRate: (_db, place, code) => {
      const tax =
        catalog.taxes.get(`${place.countryCode}-${place.stateCode}`) ?? catalog.taxes.get(place.countryCode)
      if (!tax) return null
      return { taxId: 'tax', rateBps: tax[code], taxCalculation: tax.calculation }
    },
    findCouponByCode: (_db, code) => catalog.coupons.find((c) => c.code.toLowerCase() === code.toLowerCase()),
    customerSegments: (_db, customerId) => catalog.segments.get(customerId) ?? { clubIds: [], tagIds: [] },
    depleteForOrderLines: (_tx, _actor, request) => {
      catalog.depleted.push(request)
    },
    reverseDepletion: (_tx, _actor, request) => {
      catalog.reversed.push(request)
    },
    issueGiftCards: (_tx, _actor, issue) => {
      catalog.issued.push(issue)
    },
  }
}

export const variant = (
  over: Partial<CatalogVariantInfo> & { sku: string; price: number },
): CatalogVariantInfo => ({
  variantId: `v-${over.sku}`,
  productId: `p-${over.sku}`,
  productTitle: `Product ${over.sku}`,
  variantTitle: `Product ${over.sku}`,
  taxCode: 'food',
  productType: 'Food',
  availableForSale: true,
  collectionIds: [],
  bottleDeposit: 0,
  ...over,
})

/** A coupon as the coupons module stores it (default: 5.00 off the store, for everyone). */
export const coupon = (over: Partial<OrderCoupon> & { code: string }): OrderCoupon => ({
  id: `c-${over.code}`,
  title: `Coupon ${over.code}`,
  actionMessage: null,
  status: 'Enabled',
  startDate: null,
  endDate: null,
  productDiscountType: 'Dollar Off',
  productDiscount: 500,
  shippingDiscountType: 'No Discount',
  shippingDiscount: null,
  maxDiscountAmount: null,
  minimumCartAmount: null,
  usageLimitType: 'Unlimited',
  usageLimit: null,
  appliesTo: 'Store',
  appliesToObjectIds: [],
  combinability: 'combinable',
  availableTo: 'Everyone',
  availableToObjectIds: [],
  requiresManagerApproval: false,
  excludesServiceCharges: false,
  serviceChargeInteraction: 'pre_discount',
  ...over,
})

export interface OrdersTestApp extends TestApp {
  catalog: FakeCatalog
  ordersApp: Elysia
}

export async function createOrdersTestApp(): Promise<OrdersTestApp> {
  const t = await createTestApp()
  const catalog: FakeCatalog = {
    variants: [
      variant({ sku: 'BURGER', price: 1250, productTitle: 'Burger' }),
      variant({ sku: 'FRIES', price: 450, productTitle: 'Fries' }),
      variant({
        sku: 'CAB-BTL',
        price: 4800,
        productTitle: 'Cabernet',
        variantTitle: 'Bottle',
        taxCode: 'wine',
        productType: 'Wine',
        collectionIds: ['col-red'],
      }),
      variant({
        sku: 'GIFT',
        price: 5000,
        productTitle: 'Gift card',
        taxCode: null,
        productType: 'Gift Card',
      }),
      variant({ sku: 'GONE', price: 100, availableForSale: false }),
    ],
    taxes: new Map([
      [
        'US-CA',
        { food: 875, wine: 1000, generalMerchandise: 725, freight: 0, calculation: 'Added' as const },
      ],
      [
        'FR',
        { food: 1000, wine: 2000, generalMerchandise: 2000, freight: 2000, calculation: 'Included' as const },
      ],
    ]),
    coupons: [],
    segments: new Map(),
    depleted: [],
    reversed: [],
    issued: [],
  }
  const restoreOthers = replaceOthersForTests(fakeOthers(catalog))
  const bodySchemas: BodySchemas = new Map()
  const ordersApp = new Elysia({ normalize: false })
    .use(httpConventions({ maxBodyBytes: t.platform.config.maxBodyBytes, log: t.platform.log, bodySchemas }))
    .use(orderRoutes(t.platform.auth))
    .use(orderActionRoutes(t.platform.auth, t.platform.messages)) as unknown as Elysia
  takeOverBodyChecks(ordersApp, bodySchemas)

  const request = async (method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> => {
    const headers = new Headers(opts.headers)
    const as = opts.as === undefined ? t.tenant.owner : opts.as
    if (as) headers.set('authorization', `Bearer ${typeof as === 'string' ? as : as.token}`)
    const target = opts.tenant === undefined ? t.tenant : opts.tenant
    if (target && !headers.has('x-tenant-id')) headers.set('x-tenant-id', target.id)
    let body: string | undefined
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body)
      headers.set('content-type', 'application/json')
    }
    const response = await ordersApp.handle(new Request(`http://localhost${path}`, { method, headers, body }))
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed as any, text }
  }
  const closeApp = t.close
  // The fake answers for the whole process: the families answer again once this app is closed.
  const close = () => {
    restoreOthers()
    return closeApp()
  }
  return Object.assign(t, { catalog, ordersApp, request, close }) as OrdersTestApp
}

/** Sets the acme location's tax place to California. */
export async function inCalifornia(t: TestApp) {
  const res = await t.request('PUT', `/order/settings/locations/${t.tenant.locationId}`, {
    body: { countryCode: 'us', stateCode: 'ca' },
  })
  expect(res.status).toBe(200)
}

export async function newOrder(t: TestApp, body: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/order', { body: { locationId: t.tenant.locationId, ...body } })
  expect(res.status).toBe(201)
  return res.body
}

export async function ok(res: Promise<TestResponse>, status = 200) {
  const r = await res
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`)
  return r.body
}
