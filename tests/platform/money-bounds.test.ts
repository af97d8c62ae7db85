// Money in request bodies: every money field of every route is an integer in minor units bounded
// by the one MAX_MONEY (0.. for amounts, -MAX_MONEY.. for signed changes), and the coupon fields
// that once took any number refuse what is not such an integer, writing nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { t as elysia } from 'elysia'
import { int, MAX_MONEY, money, signedMoney } from '../../src/platform/foundation/types'
import { countRows, createTestApp, type TestApp } from '../harness'

/**
 * The name rule for money fields: the first or the last camelCase word of the name is one of
 * these money nouns, as in amount, amountTendered, priceDelta, costOfGood, tipAmount, unitPrice,
 * unitCost, startingBalance, bottleDeposit, basePayRateCents, productDiscount, cashOutThreshold.
 * Basis points (`*Bps`, tax rates) and counts (`*Count`, `*Quantity`, `usageLimit`) are not money.
 */
const moneyWords = new Set([
  'amount',
  'price',
  'cost',
  'balance',
  'deposit',
  'cents',
  'tip',
  'fee',
  'charge',
  'total',
  'wage',
  'discount',
  'threshold',
])
/** Money fields whose names say so another way. */
const otherMoneyNames = new Set(['contributionValue', 'digitalPurchaseLimit', 'physicalPurchaseLimit'])
/** Names the rule catches that are not money, and what they are instead. */
const notMoneyNames = new Map([
  ['inheritStartingBalance', 'a boolean: whether to copy the starting balance'],
  ['paymentCharge', 'an enum: none, deposit or full'],
  ['chargeType', 'an enum: fixed or percent (a service charge’s `value` is bounded by MAX_MONEY)'],
])

function isMoneyName(name: string): boolean {
  if (otherMoneyNames.has(name)) return true
  if (notMoneyNames.has(name)) return false
  const words = name.split(/(?=[A-Z])/).map((w) => w.toLowerCase())
  return moneyWords.has(words[0]!) || moneyWords.has(words.at(-1)!)
}

type Schema = Record<string, any>

/** Why a money field's schema is not a bounded money integer, or null when it is one. */
function moneySchemaProblem(schema: Schema): string | null {
  // Nullable money is a union with null; every other branch must be money.
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf.filter((b: Schema) => b?.type !== 'null')
    if (branches.length === 0) return 'no money branch'
    return branches.map(moneySchemaProblem).find((p: string | null) => p !== null) ?? null
  }
  if (schema.type !== 'integer') return `type ${schema.type ?? 'unknown'}, not integer`
  if (schema.maximum !== MAX_MONEY) return `maximum ${schema.maximum}, not MAX_MONEY (${MAX_MONEY})`
  if (typeof schema.minimum !== 'number') return 'no minimum'
  if (schema.minimum < 0 && schema.minimum !== -MAX_MONEY)
    return `minimum ${schema.minimum}: 0 or more, or -MAX_MONEY for signed changes`
  return null
}

/** Every money field under a schema (nested objects, arrays, unions, records), with its problem. */
function moneyFields(schema: unknown, path = 'body'): { path: string; problem: string | null }[] {
  if (!schema || typeof schema !== 'object') return []
  const node = schema as Schema
  const found: { path: string; problem: string | null }[] = []
  for (const [key, child] of Object.entries<Schema>(node.properties ?? {})) {
    if (isMoneyName(key)) found.push({ path: `${path}/${key}`, problem: moneySchemaProblem(child) })
    found.push(...moneyFields(child, `${path}/${key}`))
  }
  for (const key of ['items', 'anyOf', 'allOf', 'oneOf', 'additionalProperties'] as const) {
    const value = node[key]
    if (Array.isArray(value)) {
      for (const [i, child] of value.entries()) found.push(...moneyFields(child, `${path}/${key}[${i}]`))
    } else if (value) found.push(...moneyFields(value, `${path}/${key}`))
  }
  for (const [pattern, child] of Object.entries(node.patternProperties ?? {}))
    found.push(...moneyFields(child, `${path}/${pattern}`))
  return found
}

describe('the money name rule and schema check', () => {
  test.each([
    'amount',
    'tipAmount',
    'amountTendered',
    'unitPrice',
    'priceDelta',
    'amountDelta',
    'unitCost',
    'costOfGood',
    'startingBalance',
    'bottleDeposit',
    'basePayRateCents',
    'defaultWageAmount',
    'productDiscount',
    'shippingDiscount',
    'minimumCartAmount',
    'maxDiscountAmount',
    'cashOutThreshold',
    'digitalPurchaseLimit',
    'contributionValue',
  ])('%s is money', (name) => expect(isMoneyName(name)).toBe(true))

  test.each([
    'quantity',
    'usageLimit',
    'productDiscountType',
    'isPriceOverride',
    'pricingStrategy',
    'portionPriceMultiplier',
    'tipsEnabled',
    'participatesInTipPool',
    'serviceChargeInteraction',
    'availableForSaleCount',
    'wine',
    ...notMoneyNames.keys(),
  ])('%s is not money', (name) => expect(isMoneyName(name)).toBe(false))

  test('money() and signedMoney() pass, nullable or not', () => {
    const body = elysia.Object({
      amount: money(),
      tipAmount: money({ minimum: 1 }),
      amountDelta: signedMoney(),
      maxDiscountAmount: elysia.Optional(elysia.Nullable(money())),
    })
    expect(moneyFields(body).map((f) => f.problem)).toEqual([null, null, null, null])
  })

  test('unbounded, differently bounded, fractional or string money fails, however deeply nested', () => {
    const body = elysia.Object({
      productDiscount: elysia.Nullable(int({ minimum: 0 })),
      lines: elysia.Array(elysia.Object({ unitPrice: int({ minimum: 0, maximum: 1_000_000 }) })),
      choice: elysia.Union([
        elysia.Literal('none'),
        elysia.Object({ tipAmount: elysia.Number({ minimum: 0, maximum: MAX_MONEY }) }),
      ]),
      extras: elysia.Record(elysia.String(), elysia.Object({ price: elysia.String() })),
      priceDelta: int({ minimum: -1, maximum: MAX_MONEY }),
      amount: int({ maximum: MAX_MONEY }),
    })
    expect(moneyFields(body)).toEqual([
      { path: 'body/productDiscount', problem: `maximum undefined, not MAX_MONEY (${MAX_MONEY})` },
      { path: 'body/lines/items/unitPrice', problem: `maximum 1000000, not MAX_MONEY (${MAX_MONEY})` },
      { path: 'body/choice/anyOf[1]/tipAmount', problem: 'type number, not integer' },
      { path: 'body/extras/^(.*)$/price', problem: 'type string, not integer' },
      { path: 'body/priceDelta', problem: 'minimum -1: 0 or more, or -MAX_MONEY for signed changes' },
      { path: 'body/amount', problem: 'no minimum' },
    ])
  })
})

describe('every route body', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  const fieldsOfRoutes = () =>
    t.app.routes.flatMap((route) =>
      moneyFields((route.hooks as { body?: unknown }).body).map((f) => ({
        ...f,
        route: `${route.method} ${route.path} ${f.path}`,
      })),
    )

  test('every money field is an integer bounded by MAX_MONEY', () => {
    expect(fieldsOfRoutes().flatMap((f) => (f.problem ? [`${f.route}: ${f.problem}`] : []))).toEqual([])
  })

  test('the walk reaches the money fields of every module that takes money', () => {
    const routes = new Set(fieldsOfRoutes().map((f) => f.route))
    for (const field of [
      'POST /coupon body/productDiscount',
      'PUT /coupons/:id body/shippingDiscount',
      'POST /coupon body/minimumCartAmount',
      'PUT /coupon/:id body/maxDiscountAmount',
      'POST /order/:id/payments body/amount',
      'POST /gift-card/:id/adjust body/amountDelta',
      'POST /cash-management/drawers body/startingBalance',
      'POST /product body/variants/items/price',
      'POST /order/:id/line body/modifiers/items/modifiers/items/priceDelta',
      'POST /shipping body/services/items/topRate/price',
      'POST /inventory/ingredients/:id/receivings body/unitCost',
      'POST /labor/jobs body/defaultWageAmount',
      'POST /reservation body/price',
      'POST /order body/fundraising/anyOf[0]/contributionValue',
    ])
      expect(routes).toContain(field)
  })
})

describe('coupon money fields over HTTP', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  /** Each field with the discount types that make it money. */
  const couponFields = {
    productDiscount: '"productDiscountType": "Dollar Off"',
    shippingDiscount: '"shippingDiscountType": "Dollar Off"',
    minimumCartAmount: '"productDiscountType": "Free"',
    maxDiscountAmount: '"productDiscountType": "Free"',
  }
  /** As sent on the wire: JSON text, so 2^53+1 reaches the parser unrounded. */
  const badValues = ['1e300', String(2n ** 53n + 1n), '1.5', '"100"', String(MAX_MONEY + 1), '-1']

  const written = () => ({
    coupons: countRows(t.tenant.db, 'coupons'),
    audit: countRows(t.tenant.db, 'audit_entries'),
    events: countRows(t.tenant.db, 'outbox_events'),
  })

  for (const [field, context] of Object.entries(couponFields)) {
    for (const value of badValues) {
      test(`${field}: ${value} is 400 naming the field, on create and update, writing nothing`, async () => {
        const existing = await t.request('POST', '/coupon', { body: { title: 'Kept' } })
        expect(existing.status).toBe(201)
        const before = written()
        const create = await t.request('POST', '/coupon', {
          body: `{"title": "x", ${context}, "${field}": ${value}}`,
        })
        const update = await t.request('PUT', `/coupons/${existing.body.id}`, {
          body: `{${context}, "${field}": ${value}}`,
        })
        for (const res of [create, update]) {
          expect(res.status).toBe(400)
          expect(res.body.code).toBe('validation_failed')
          expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(`body/${field}`)
        }
        expect(written()).toEqual(before)
        expect((await t.request('GET', `/coupon/${existing.body.id}`)).body).toEqual(existing.body)
      })
    }
  }

  test('MAX_MONEY is accepted and stored as an integer', async () => {
    const res = await t.request('POST', '/coupon', {
      body: {
        title: 'Largest',
        productDiscountType: 'Dollar Off',
        productDiscount: MAX_MONEY,
        shippingDiscountType: 'Set Price',
        shippingDiscount: MAX_MONEY,
        minimumCartAmount: MAX_MONEY,
        maxDiscountAmount: MAX_MONEY,
      },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      productDiscount: MAX_MONEY,
      shippingDiscount: MAX_MONEY,
      minimumCartAmount: MAX_MONEY,
      maxDiscountAmount: MAX_MONEY,
    })
    const stored = t.tenant.db.$client
      .query(
        `SELECT typeof(product_discount) AS p, typeof(shipping_discount) AS s,
                typeof(minimum_cart_amount) AS m, typeof(max_discount_amount) AS x
         FROM coupons WHERE id = ?`,
      )
      .get(res.body.id)
    expect(stored).toEqual({ p: 'integer', s: 'integer', m: 'integer', x: 'integer' })
  })

  test('a Percentage Off value within the money bound but above 10000 bps is still 400', async () => {
    const before = written()
    for (const [type, field] of [
      ['productDiscountType', 'productDiscount'],
      ['shippingDiscountType', 'shippingDiscount'],
    ]) {
      const res = await t.request('POST', '/coupon', {
        body: { title: 'Too much', [type!]: 'Percentage Off', [field!]: 10_001 },
      })
      expect(res.status).toBe(400)
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(`body/${field}`)
    }
    expect(written()).toEqual(before)
    const full = await t.request('POST', '/coupon', {
      body: { title: 'All of it', productDiscountType: 'Percentage Off', productDiscount: 10_000 },
    })
    expect(full.status).toBe(201)
  })

  test('a usageLimit past its bound is 400 too (a count, but stored the same way)', async () => {
    const res = await t.request('POST', '/coupon', {
      body: '{"title": "x", "usageLimitType": "Total", "usageLimit": 1e300}',
    })
    expect(res.status).toBe(400)
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain('body/usageLimit')
  })

  test('who may not write coupons is refused, bound or not', async () => {
    const before = written()
    for (const body of [
      '{"title": "x", "maxDiscountAmount": 100}',
      '{"title": "x", "maxDiscountAmount": 1e300}',
    ]) {
      const res = await t.request('POST', '/coupon', { as: t.tenant.readOnly, body })
      expect(res.status).toBe(403)
    }
    expect(written()).toEqual(before)
  })
})
