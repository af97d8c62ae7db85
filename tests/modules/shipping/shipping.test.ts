// Shipping configurations over HTTP: CRUD, nested validation, rate quotes, permission, isolation.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { MAX_MONEY } from '../../../src/platform/foundation/types'
import { countRows, createTestApp, runScenarios, type TestApp } from '../../harness'

export const groundConfig = () => ({
  title: 'Domestic',
  regions: [
    { countryCode: 'us', stateCode: 'ca' },
    { countryCode: 'US', stateCode: 'OR' },
  ],
  services: [
    {
      title: 'Ground',
      code: 'GND',
      carrier: 'UPS',
      isDefault: true,
      rates: [
        { toWeight: 2, price: 800 },
        { toWeight: 5, price: 1200 },
        { toWeight: 10, price: 1850 },
      ],
      topRate: { isWrapShipping: false, forEveryXWeight: 5, price: 300 },
    },
    {
      title: 'Express',
      code: 'EXP',
      rates: [{ toWeight: 1, price: 2500, weightUnits: 'Kg' }],
      topRate: { isWrapShipping: true },
    },
  ],
})

const service = (over: Record<string, unknown>) => ({ ...groundConfig().services[0], ...over })

describe('shipping: scenarios', () => {
  runScenarios([
    {
      name: 'create answers 201 with ids on every nested element and upper-cased places',
      method: 'POST',
      url: '/shipping',
      body: groundConfig(),
      status: 201,
      check: (res) => {
        expect(res.body.regions).toEqual([
          { id: expect.any(String), countryCode: 'US', stateCode: 'CA' },
          { id: expect.any(String), countryCode: 'US', stateCode: 'OR' },
        ])
        const [ground, express] = res.body.services
        expect(ground).toMatchObject({ code: 'GND', isActive: true, isDefault: true, sortOrder: 0 })
        expect(ground.rates[0]).toEqual({
          id: expect.any(String),
          toWeight: 2,
          price: 800,
          weightUnits: 'Lbs',
        })
        expect(ground.topRate).toMatchObject({
          isWrapShipping: false,
          forEveryXWeight: 5,
          price: 300,
          weightUnits: 'Lbs',
        })
        expect(express.topRate).toMatchObject({ isWrapShipping: true, forEveryXWeight: null, price: null })
      },
    },
    {
      name: 'create without regions is 400',
      method: 'POST',
      url: '/shipping',
      body: { title: 'x', services: [] },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a rate without price is 400',
      method: 'POST',
      url: '/shipping',
      body: { ...groundConfig(), services: [service({ rates: [{ toWeight: 2 }] })] },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a price as a numeric string is 400',
      method: 'POST',
      url: '/shipping',
      body: { ...groundConfig(), services: [service({ rates: [{ toWeight: 2, price: '800' }] })] },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a fractional price is 400 (cents are integers)',
      method: 'POST',
      url: '/shipping',
      body: { ...groundConfig(), services: [service({ rates: [{ toWeight: 2, price: 8.5 }] })] },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a topRate without isWrapShipping is 400',
      method: 'POST',
      url: '/shipping',
      body: { ...groundConfig(), services: [service({ topRate: { forEveryXWeight: 5, price: 300 } })] },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a top rate without wrap needs its step and price, and four decimals are refused',
      method: 'POST',
      url: '/shipping',
      body: {
        ...groundConfig(),
        services: [service({ rates: [{ toWeight: 2.0005, price: 1 }], topRate: { isWrapShipping: false } })],
      },
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        const paths = res.body.errors.map((e: { path: string }) => e.path)
        expect(paths).toContain('body/services/0/rates/0/toWeight')
        expect(paths).toContain('body/services/0/topRate/forEveryXWeight')
        expect(paths).toContain('body/services/0/topRate/price')
        expect(countRows(ctx.t.tenant.db, 'shipping_configurations')).toBe(0)
      },
    },
    {
      name: 'duplicate band weights (2 lb and 2 lb), codes and defaults are 400',
      method: 'POST',
      url: '/shipping',
      body: {
        ...groundConfig(),
        services: [
          service({
            rates: [
              { toWeight: 2, price: 1 },
              { toWeight: 2, price: 2 },
            ],
          }),
          service({ code: 'gnd' }),
        ],
      },
      status: 400,
      code: 'validation_failed',
      check: (res) => {
        const paths = res.body.errors.map((e: { path: string }) => e.path)
        expect(paths).toEqual(
          expect.arrayContaining([
            'body/services/0/rates/1/toWeight',
            'body/services/1/code',
            'body/services',
          ]),
        )
      },
    },
    {
      name: 'the same region twice is 400',
      method: 'POST',
      url: '/shipping',
      body: { ...groundConfig(), regions: [{ countryCode: 'US' }, { countryCode: 'us', stateCode: null }] },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown field is 400',
      method: 'POST',
      url: '/shipping',
      body: { ...groundConfig(), colour: 1 },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'the staff role may read but not create (403 without shipping:write)',
      method: 'POST',
      url: '/shipping',
      as: (ctx) => ctx.t.tenant.staff,
      body: groundConfig(),
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('shipping:write')
        expect(countRows(ctx.t.tenant.db, 'shipping_configurations')).toBe(0)
      },
    },
    { name: 'an unknown id is 404', method: 'GET', url: '/shipping/nope', status: 404, code: 'not_found' },
    { name: 'no token is 401', method: 'GET', url: '/shipping', as: () => null, status: 401 },
  ])
})

describe('shipping: lifecycle', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('list with q and total, update keeps ids sent, delete is 204; audit and events', async () => {
    const a = (await t.request('POST', '/shipping', { body: groundConfig() })).body
    await t.request('POST', '/shipping', { body: { ...groundConfig(), title: 'International' } })
    const list = await t.request('GET', '/shipping?q=domes', { as: t.tenant.readOnly })
    expect(list.status).toBe(200)
    expect(list.body.total).toBe(1)
    expect(list.body.shippings[0].id).toBe(a.id)
    expect((await t.request('GET', '/shipping?limit=1')).body).toMatchObject({ total: 2 })

    const ground = a.services[0]
    const updated = await t.request('PUT', `/shipping/${a.id}`, {
      body: {
        title: 'Domestic US',
        services: [
          { ...service({}), id: ground.id, rates: [{ id: ground.rates[0].id, toWeight: 3, price: 900 }] },
        ],
      },
    })
    expect(updated.status).toBe(200)
    expect(updated.body.title).toBe('Domestic US')
    expect(updated.body.services).toHaveLength(1)
    expect(updated.body.services[0].id).toBe(ground.id)
    expect(updated.body.services[0].rates[0]).toMatchObject({
      id: ground.rates[0].id,
      toWeight: 3,
      price: 900,
    })
    expect(updated.body.regions).toEqual(a.regions)

    const same = await t.request('PUT', `/shipping/${a.id}`, { body: {} })
    expect(same.body.updatedAt).toBe(updated.body.updatedAt)

    const deleted = await t.request('DELETE', `/shipping/${a.id}`)
    expect(deleted.status).toBe(204)
    expect((await t.request('GET', `/shipping/${a.id}`)).status).toBe(404)
    expect(countRows(t.tenant.db, 'shipping_services')).toBe(2)

    const audit = t.tenant.db.$client
      .query("SELECT action FROM audit_entries WHERE entity_type = 'shipping_configuration' ORDER BY rowid")
      .all()
      .map((r: any) => r.action)
    expect(audit).toEqual(['shipping.create', 'shipping.create', 'shipping.update', 'shipping.delete'])
    const events = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'shipping' ORDER BY seq")
      .all()
      .map((r: any) => r.action)
    expect(events).toEqual(['create', 'create', 'update', 'delete'])
  })

  test('rate quotes: by destination (state or whole country), weight and unit; inactive services skipped', async () => {
    const domestic = (await t.request('POST', '/shipping', { body: groundConfig() })).body
    await t.request('POST', '/shipping', {
      body: {
        title: 'Canada',
        regions: [{ countryCode: 'CA' }],
        services: [
          {
            title: 'Post',
            code: 'CP',
            rates: [{ toWeight: 1, price: 1500, weightUnits: 'Kg' }],
            topRate: { isWrapShipping: true },
          },
        ],
      },
    })
    const ca = await t.request('GET', '/shipping/rates?weight=12&countryCode=US&stateCode=CA', {
      as: t.tenant.staff,
    })
    expect(ca.status).toBe(200)
    expect(ca.body.rates.map((r: any) => [r.code, r.price])).toEqual([
      ['GND', 1850 + 300], // 12 lb: 2 lb over 10 lb, one $3.00 step
      ['EXP', 5 * 2500 + 2500], // 12 lb = 5.443 kg: five full 1 kg packages, then 0.443 kg in the 1 kg band
    ])
    const kg = await t.request(
      'GET',
      '/shipping/rates?weight=0.908&weightUnits=Kg&countryCode=US&stateCode=OR',
    )
    expect(kg.body.rates[0]).toMatchObject({ code: 'GND', price: 1200, shippingConfigurationId: domestic.id })
    expect((await t.request('GET', '/shipping/rates?weight=1&countryCode=US&stateCode=NY')).body.total).toBe(
      0,
    )
    expect((await t.request('GET', '/shipping/rates?weight=1&countryCode=US')).body.total).toBe(0)
    const canada = await t.request('GET', '/shipping/rates?weight=3&countryCode=ca&stateCode=BC')
    expect(canada.body.rates.map((r: any) => r.price)).toEqual([3000])

    await t.request('PUT', `/shipping/${domestic.id}`, {
      body: { services: [service({ isActive: false })] },
    })
    expect((await t.request('GET', '/shipping/rates?weight=1&countryCode=US&stateCode=CA')).body.total).toBe(
      0,
    )

    const bad = await t.request('GET', '/shipping/rates?weight=1.0001&countryCode=US')
    expect(bad.status).toBe(400)
    expect((await t.request('GET', '/shipping/rates?weight=-1&countryCode=US')).status).toBe(400)
    expect((await t.request('GET', '/shipping/rates?weight=1&countryCode=USA')).status).toBe(400)
  })

  test('a quote that would pass 2^53 cents is 400; lighter weights are still quoted', async () => {
    const steep = {
      title: 'Steep',
      code: 'STP',
      rates: [{ toWeight: 0.001, price: MAX_MONEY }],
      topRate: { isWrapShipping: false, forEveryXWeight: 0.001, price: MAX_MONEY },
    }
    expect(
      (await t.request('POST', '/shipping', { body: { ...groundConfig(), services: [steep] } })).status,
    ).toBe(201)
    const light = await t.request('GET', '/shipping/rates?weight=1&countryCode=US&stateCode=CA')
    expect(light.body.rates.map((r: any) => r.price)).toEqual([1000 * MAX_MONEY])
    const heavy = await t.request('GET', '/shipping/rates?weight=1000&countryCode=US&stateCode=CA')
    expect(heavy.status).toBe(400)
    expect(heavy.body.errors[0].path).toBe('weight')
  })

  test("another tenant's configuration is 404 and not in its list", async () => {
    const a = (await t.request('POST', '/shipping', { body: groundConfig() })).body
    const other = await t.addTenant('other')
    for (const [method, body] of [['GET'], ['PUT', { title: 'x' }], ['DELETE']] as const)
      expect(
        (await t.request(method, `/shipping/${a.id}`, { as: other.owner, tenant: other, body })).status,
      ).toBe(404)
    expect((await t.request('GET', '/shipping', { as: other.owner, tenant: other })).body.total).toBe(0)
  })
})

describe('shipping: an order’s rates', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('the order weighs its shippable lines (thousandths of a pound, up) and is quoted by destination', async () => {
    await t.request('POST', '/shipping', { body: groundConfig() })
    const wine = await t.request('POST', '/product', {
      body: {
        title: 'Pinot',
        type: 'Wine',
        variants: [
          { title: '750ml', sku: 'PN-750', price: 3000, weight: 2.675 },
          { title: 'Magnum', sku: 'PN-1500', price: 6000, weight: 4.0001 },
        ],
      },
    })
    expect(wine.status).toBe(201)
    const order = (
      await t.request('POST', '/order', {
        body: {
          locationId: t.tenant.locationId,
          fulfillmentMode: 'shipping',
          lineItems: [
            { sku: 'PN-750', quantity: 2 },
            { sku: 'PN-1500', quantity: 1 },
            { lineType: 'open_item', title: 'Gift wrap', unitPrice: 500, openItemScope: 'food' },
          ],
        },
      })
    ).body
    const res = await t.request('GET', `/order/${order.id}/shipping-rates?countryCode=US&stateCode=CA`, {
      as: t.tenant.readOnly,
    })
    expect(res.status).toBe(200)
    // 2 × 2.675 + 4.001 (4.0001 rounded up) = 9.351 lb: the 10 lb band.
    expect(res.body).toMatchObject({ weight: 9.351, weightUnits: 'Lbs', total: 2 })
    expect(res.body.rates.map((r: any) => [r.code, r.price])).toEqual([
      ['GND', 1850],
      ['EXP', 4 * 2500 + 2500], // 9.351 lb = 4.2415 kg: four full 1 kg packages and the rest
    ])
    expect((await t.request('GET', `/order/nope/shipping-rates?countryCode=US`)).status).toBe(404)
    const other = await t.addTenant('other')
    expect(
      (
        await t.request('GET', `/order/${order.id}/shipping-rates?countryCode=US`, {
          as: other.owner,
          tenant: other,
        })
      ).status,
    ).toBe(404)
  })
})
