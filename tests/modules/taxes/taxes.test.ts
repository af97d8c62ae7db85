// /tax: CRUD with basis-point rates, one tax per country/state, filters, paging, permissions,
// tenant isolation, audit and events.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'

export const california = {
  title: 'California',
  countryCode: 'US',
  stateCode: 'CA',
  freight: 0,
  food: 875,
  generalMerchandise: 875,
  wine: 875,
  taxCalculation: 'Added',
}

const createTax = async (ctx: ScenarioContext, body: Record<string, unknown> = california) => {
  const res = await ctx.t.request('POST', '/tax', { body })
  expect(res.status).toBe(201)
  ctx.vars.taxId = res.body.id
  return res.body
}

const without = (field: string) => Object.fromEntries(Object.entries(california).filter(([k]) => k !== field))

describe('taxes: scenarios', () => {
  runScenarios([
    {
      name: 'create answers 201 with the tax',
      method: 'POST',
      url: '/tax',
      body: california,
      status: 201,
      expectBody: california,
    },
    {
      name: 'codes are stored upper-case',
      method: 'POST',
      url: '/tax',
      body: { ...california, countryCode: 'us', stateCode: 'or' },
      status: 201,
      expectBody: { countryCode: 'US', stateCode: 'OR' },
    },
    {
      name: 'a country-wide tax has no stateCode',
      method: 'POST',
      url: '/tax',
      body: {
        ...without('stateCode'),
        title: 'New Zealand GST',
        countryCode: 'NZ',
        taxCalculation: 'Included',
        food: 1500,
      },
      status: 201,
      expectBody: { stateCode: null, taxCalculation: 'Included', food: 1500 },
    },
    ...['title', 'countryCode', 'freight', 'food', 'generalMerchandise', 'wine', 'taxCalculation'].map(
      (field) => ({
        name: `create without ${field} is 400`,
        method: 'POST',
        url: '/tax',
        body: without(field),
        status: 400,
        code: 'validation_failed',
        check: (_res: unknown, ctx: ScenarioContext) => expect(countRows(ctx.t.tenant.db, 'taxes')).toBe(0),
      }),
    ),
    {
      name: 'a rate above 10000 bps is 400',
      method: 'POST',
      url: '/tax',
      body: { ...california, wine: 10_001 },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a negative rate is 400',
      method: 'POST',
      url: '/tax',
      body: { ...california, food: -1 },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a fractional rate is 400',
      method: 'POST',
      url: '/tax',
      body: { ...california, food: 8.75 },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a rate as a decimal string is 400',
      method: 'POST',
      url: '/tax',
      body: { ...california, food: '8.75' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a 3-letter country code is 400',
      method: 'POST',
      url: '/tax',
      body: { ...california, countryCode: 'USA' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown taxCalculation is 400',
      method: 'POST',
      url: '/tax',
      body: { ...california, taxCalculation: 'Compound' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown field is 400',
      method: 'POST',
      url: '/tax',
      body: { ...california, beer: 100 },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a second tax for the same country/state is 409, whatever the case',
      method: 'POST',
      url: '/tax',
      setup: (ctx) => createTax(ctx).then(() => {}),
      body: { ...california, title: 'CA again', countryCode: 'us', stateCode: 'ca' },
      status: 409,
      code: 'conflict',
      check: (res, ctx) => expect(res.body.existingTaxId).toBe(ctx.vars.taxId),
    },
    {
      name: 'a second country-wide tax for a country is 409',
      method: 'POST',
      url: '/tax',
      setup: (ctx) => createTax(ctx, { ...without('stateCode'), countryCode: 'NZ' }).then(() => {}),
      body: { ...without('stateCode'), countryCode: 'NZ', stateCode: null },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'a state tax beside the country-wide one is fine',
      method: 'POST',
      url: '/tax',
      setup: (ctx) => createTax(ctx, { ...without('stateCode'), title: 'US default' }).then(() => {}),
      body: california,
      status: 201,
    },
    {
      name: 'update is partial',
      method: 'PUT',
      url: (ctx) => `/tax/${ctx.vars.taxId}`,
      setup: (ctx) => createTax(ctx).then(() => {}),
      body: { wine: 1000 },
      status: 200,
      expectBody: { ...california, wine: 1000 },
    },
    {
      name: 'update onto a taken country/state is 409',
      method: 'PUT',
      url: (ctx) => `/tax/${ctx.vars.taxId}`,
      setup: async (ctx) => {
        await createTax(ctx)
        await createTax(ctx, { ...california, stateCode: 'OR', title: 'Oregon' })
      },
      body: { stateCode: 'ca' },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'update to clear the state makes it country-wide',
      method: 'PUT',
      url: (ctx) => `/tax/${ctx.vars.taxId}`,
      setup: (ctx) => createTax(ctx).then(() => {}),
      body: { stateCode: null },
      status: 200,
      expectBody: { stateCode: null },
    },
    {
      name: 'update with a rate above 10000 is 400',
      method: 'PUT',
      url: '/tax/x',
      body: { food: 20_000 },
      status: 400,
      code: 'validation_failed',
    },
    { name: 'an unknown id is 404', method: 'GET', url: '/tax/nope', status: 404, code: 'not_found' },
    {
      name: 'update of an unknown id is 404',
      method: 'PUT',
      url: '/tax/nope',
      body: { title: 'x' },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'delete of an unknown id is 404',
      method: 'DELETE',
      url: '/tax/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'limit 101 is 400',
      method: 'GET',
      url: '/tax?limit=101',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'read_only may list',
      method: 'GET',
      url: '/tax',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      expectBody: { taxes: [], total: 0 },
    },
    {
      name: 'staff may not create taxes (403 without taxes:write)',
      method: 'POST',
      url: '/tax',
      as: (ctx) => ctx.t.tenant.staff,
      body: california,
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('taxes:write')
        expect(countRows(ctx.t.tenant.db, 'taxes')).toBe(0)
      },
    },
    {
      name: 'a manager may create taxes',
      method: 'POST',
      url: '/tax',
      as: (ctx) => ctx.t.tenant.manager,
      body: california,
      status: 201,
    },
  ])
})

describe('taxes: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('round trip; delete is 204 with no body and frees the place', async () => {
    const created = (await t.request('POST', '/tax', { body: california })).body
    expect((await t.request('GET', `/tax/${created.id}`)).body).toEqual(created)
    const deleted = await t.request('DELETE', `/tax/${created.id}`)
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expect((await t.request('GET', `/tax/${created.id}`)).status).toBe(404)
    expect((await t.request('POST', '/tax', { body: california })).status).toBe(201)
  })

  test('lists by country then state, country-wide first; filters, q and paging', async () => {
    for (const [countryCode, stateCode, title] of [
      ['US', 'WA', 'Washington'],
      ['CA', 'BC', 'British Columbia'],
      ['US', null, 'US default'],
      ['US', 'CA', 'California'],
    ] as const)
      await t.request('POST', '/tax', { body: { ...california, countryCode, stateCode, title } })
    const titles = async (qs: string) =>
      (await t.request('GET', `/tax${qs}`)).body.taxes.map((x: { title: string }) => x.title)
    expect(await titles('')).toEqual(['British Columbia', 'US default', 'California', 'Washington'])
    expect(await titles('?countryCode=us')).toEqual(['US default', 'California', 'Washington'])
    expect(await titles('?stateCode=wa')).toEqual(['Washington'])
    expect(await titles('?q=COLUMBIA')).toEqual(['British Columbia'])
    const page = await t.request('GET', '/tax?limit=3&page=2')
    expect(page.body.total).toBe(4)
    expect(page.body.taxes.map((x: { title: string }) => x.title)).toEqual(['Washington'])
  })

  test("another tenant's tax is 404 for every route; the same place is free here", async () => {
    const other = await t.addTenant('other')
    const theirs = (await t.request('POST', '/tax', { as: other.owner, tenant: other, body: california }))
      .body
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { title: 'mine' }],
      ['DELETE', undefined],
    ] as const)
      expect((await t.request(method, `/tax/${theirs.id}`, { body })).status).toBe(404)
    expect((await t.request('POST', '/tax', { body: california })).status).toBe(201)
    expect((await t.request('GET', `/tax/${theirs.id}`, { as: other.owner, tenant: other })).body.title).toBe(
      'California',
    )
  })

  test('writes append audit entries and events', async () => {
    const created = (await t.request('POST', '/tax', { body: california })).body
    await t.request('PUT', `/tax/${created.id}`, { body: { food: 900 } })
    await t.request('PUT', `/tax/${created.id}`, { body: { food: 900, countryCode: 'us' } })
    await t.request('DELETE', `/tax/${created.id}`)
    const entries = t.tenant.db.$client
      .query("SELECT action, metadata FROM audit_entries WHERE entity_type = 'tax' ORDER BY seq")
      .all() as { action: string; metadata: string }[]
    expect(entries.map((e) => e.action)).toEqual(['tax.create', 'tax.update', 'tax.delete'])
    expect(JSON.parse(entries[1]!.metadata)).toEqual({ changes: { food: { from: 875, to: 900 } } })
    const events = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'tax' ORDER BY seq")
      .all()
    expect(events).toEqual([{ action: 'create' }, { action: 'update' }, { action: 'delete' }])
  })

  test('the database itself refuses a second tax for a place, country-wide included (NULL state)', () => {
    const insert = (id: string, stateCode: string | null) =>
      t.tenant.db.$client
        .query(
          `INSERT INTO taxes (id, title, country_code, state_code, freight_bps, food_bps, general_merchandise_bps, wine_bps, tax_calculation, created_at, updated_at)
           VALUES (?, 't', 'US', ?, 0, 0, 0, 0, 'Added', 'now', 'now')`,
        )
        .run(id, stateCode)
    insert('a', null)
    insert('b', 'CA')
    expect(() => insert('c', null)).toThrow(/UNIQUE/)
    expect(() => insert('d', 'CA')).toThrow(/UNIQUE/)
  })
})
