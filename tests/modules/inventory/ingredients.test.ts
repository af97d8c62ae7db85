// Ingredients: create, get, list, update, deactivate; validation, permission, isolation, audit.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'
import { addLocation, makeIngredient, receive } from './helpers'

const ingredient = async (ctx: ScenarioContext, body: Record<string, unknown> = {}) => {
  ctx.vars.ingredient = await makeIngredient(ctx.t, body)
}
const vendor = async (ctx: ScenarioContext, body: Record<string, unknown> = { name: 'Produce Co' }) => {
  ctx.vars.vendorId = (await ctx.t.request('POST', '/vendor', { body })).body.id
}

describe('ingredients: scenarios', () => {
  runScenarios([
    {
      name: 'create answers 201 with defaults and no stocks',
      method: 'POST',
      url: '/inventory/ingredients',
      setup: (ctx) => vendor(ctx),
      body: (ctx: ScenarioContext) => ({
        code: 'FLOUR',
        name: 'Flour',
        baseUnit: 'g',
        purchaseUnit: 'bag',
        purchaseUnitQuantity: 25000,
        vendorId: ctx.vars.vendorId,
      }),
      status: 201,
      expectBody: {
        code: 'FLOUR',
        baseUnit: 'g',
        purchaseUnit: 'bag',
        purchaseUnitQuantity: 25000,
        latestUnitCost: null,
        weightedAverageUnitCost: null,
        active: true,
        description: null,
        stocks: [],
      },
      check: (res, ctx) => expect(res.body.vendorId).toBe(ctx.vars.vendorId),
    },
    {
      name: 'purchaseUnitQuantity defaults to 1',
      method: 'POST',
      url: '/inventory/ingredients',
      body: { code: 'EGG', name: 'Eggs', baseUnit: 'each' },
      status: 201,
      expectBody: { purchaseUnitQuantity: 1, purchaseUnit: null, vendorId: null },
    },
    ...(
      [
        ['without code', { name: 'x', baseUnit: 'g' }],
        ['without baseUnit', { code: 'X', name: 'x' }],
        ['with an empty name', { code: 'X', name: '', baseUnit: 'g' }],
        ['with purchaseUnitQuantity 0', { code: 'X', name: 'x', baseUnit: 'g', purchaseUnitQuantity: 0 }],
        [
          'with a fractional purchaseUnitQuantity',
          { code: 'X', name: 'x', baseUnit: 'g', purchaseUnitQuantity: 1.5 },
        ],
        ['with a cost (read-only)', { code: 'X', name: 'x', baseUnit: 'g', weightedAverageUnitCost: 5 }],
        ['with an unknown field', { code: 'X', name: 'x', baseUnit: 'g', colour: 'red' }],
      ] as const
    ).map(([what, body]) => ({
      name: `create ${what} is 400`,
      method: 'POST',
      url: '/inventory/ingredients',
      body,
      status: 400,
      code: 'validation_failed',
      check: (_res: unknown, ctx: ScenarioContext) =>
        expect(countRows(ctx.t.tenant.db, 'ingredients')).toBe(0),
    })),
    {
      name: 'create with an unknown vendor is 400 naming vendorId',
      method: 'POST',
      url: '/inventory/ingredients',
      body: { code: 'X', name: 'x', baseUnit: 'g', vendorId: 'nope' },
      status: 400,
      code: 'validation_failed',
      check: (res) =>
        expect(res.body.errors).toEqual([{ path: 'body/vendorId', message: 'unknown vendor "nope"' }]),
    },
    {
      name: 'create with an inactive vendor is 400',
      method: 'POST',
      url: '/inventory/ingredients',
      setup: (ctx) => vendor(ctx, { name: 'Gone', status: 'inactive' }),
      body: (ctx: ScenarioContext) => ({ code: 'X', name: 'x', baseUnit: 'g', vendorId: ctx.vars.vendorId }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: "create with another tenant's vendor is 400",
      method: 'POST',
      url: '/inventory/ingredients',
      setup: async (ctx) => {
        const other = await ctx.t.addTenant('other')
        ctx.vars.vendorId = (
          await ctx.t.request('POST', '/vendor', { as: other.owner, tenant: other, body: { name: 'Theirs' } })
        ).body.id
      },
      body: (ctx: ScenarioContext) => ({ code: 'X', name: 'x', baseUnit: 'g', vendorId: ctx.vars.vendorId }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a duplicate code is 409, case-insensitively',
      method: 'POST',
      url: '/inventory/ingredients',
      setup: (ctx) => ingredient(ctx, { code: 'FLOUR' }),
      body: { code: 'flour', name: 'Other flour', baseUnit: 'g' },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'an unknown id is 404',
      method: 'GET',
      url: '/inventory/ingredients/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'update of an unknown id is 404',
      method: 'PUT',
      url: '/inventory/ingredients/nope',
      body: { name: 'x' },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'update to a code in use is 409',
      method: 'PUT',
      url: (ctx) => `/inventory/ingredients/${ctx.vars.ingredient.id}`,
      setup: async (ctx) => {
        await makeIngredient(ctx.t, { code: 'TAKEN' })
        await ingredient(ctx)
      },
      body: { code: 'taken' },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'update with a cost field is 400',
      method: 'PUT',
      url: (ctx) => `/inventory/ingredients/${ctx.vars.ingredient.id}`,
      setup: (ctx) => ingredient(ctx),
      body: { latestUnitCost: 3 },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'the base unit cannot change once there are movements (409)',
      method: 'PUT',
      url: (ctx) => `/inventory/ingredients/${ctx.vars.ingredient.id}`,
      setup: async (ctx) => {
        await ingredient(ctx)
        await receive(ctx.t, ctx.vars.ingredient.id, { quantity: 1, unitCost: 1 })
      },
      body: { baseUnit: 'kg' },
      status: 409,
      code: 'conflict',
      expectBody: { baseUnit: 'g' },
    },
    {
      name: 'the base unit may change before any movement',
      method: 'PUT',
      url: (ctx) => `/inventory/ingredients/${ctx.vars.ingredient.id}`,
      setup: (ctx) => ingredient(ctx),
      body: { baseUnit: 'kg', description: 'Type 00' },
      status: 200,
      expectBody: { baseUnit: 'kg', description: 'Type 00' },
    },
    {
      name: 'active=maybe is 400',
      method: 'GET',
      url: '/inventory/ingredients?active=maybe',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown locationId filter is 400',
      method: 'GET',
      url: '/inventory/ingredients?locationId=nope',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'limit 101 is 400',
      method: 'GET',
      url: '/inventory/ingredients?limit=101',
      status: 400,
      code: 'validation_failed',
    },
    { name: 'no token is 401', method: 'GET', url: '/inventory/ingredients', as: () => null, status: 401 },
    {
      name: 'read_only may list',
      method: 'GET',
      url: '/inventory/ingredients',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      expectBody: { items: [], page: { total: 0 } },
    },
    {
      name: 'read_only may not create (403 without inventory:write)',
      method: 'POST',
      url: '/inventory/ingredients',
      as: (ctx) => ctx.t.tenant.readOnly,
      body: { code: 'X', name: 'x', baseUnit: 'g' },
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('inventory:write')
        expect(countRows(ctx.t.tenant.db, 'ingredients')).toBe(0)
      },
    },
    {
      name: 'read_only may not deactivate',
      method: 'POST',
      url: (ctx) => `/inventory/ingredients/${ctx.vars.ingredient.id}/deactivate`,
      setup: (ctx) => ingredient(ctx),
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'a staff user with no role may not read',
      method: 'GET',
      url: '/inventory/ingredients',
      setup: async (ctx) => {
        ctx.vars.nobody = await ctx.t.addStaff(ctx.t.tenant)
      },
      as: (ctx) => ctx.vars.nobody,
      status: 403,
      code: 'forbidden',
    },
  ])
})

describe('ingredients: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('get shows stocks per location; list narrows them with locationId', async () => {
    const second = addLocation(t.tenant)
    const flour = await makeIngredient(t, { name: 'Flour' })
    await receive(t, flour.id, { quantity: 10, unitCost: 2 })
    await receive(t, flour.id, { locationId: second, quantity: 4, unitCost: 2 })
    const got = (await t.request('GET', `/inventory/ingredients/${flour.id}`)).body
    expect(got.stocks.map((s: any) => [s.locationId, s.onHandQuantity])).toEqual([
      [t.tenant.locationId, 10],
      [second, 4],
    ])
    const listed = (await t.request('GET', `/inventory/ingredients?locationId=${second}`)).body
    expect(listed.items[0].stocks.map((s: any) => s.locationId)).toEqual([second])
    const third = addLocation(t.tenant, 'Third')
    const none = (await t.request('GET', `/inventory/ingredients?locationId=${third}`)).body
    expect(none.items).toHaveLength(1)
    expect(none.items[0].stocks).toEqual([])
  })

  test('list: q, active, order by name, paging with total', async () => {
    const names = ['Sugar', 'basil', 'Flour', 'Butter']
    const made: Record<string, any> = {}
    for (const name of names)
      made[name] = await makeIngredient(t, { name, code: name.toUpperCase().slice(0, 3) })
    await t.request('PUT', `/inventory/ingredients/${made.Flour.id}`, {
      body: { description: 'Type 00 wheat' },
    })
    await t.request('POST', `/inventory/ingredients/${made.Sugar.id}/deactivate`)
    const list = async (qs: string) => (await t.request('GET', `/inventory/ingredients${qs}`)).body
    expect((await list('')).items.map((i: any) => i.name)).toEqual(['basil', 'Butter', 'Flour', 'Sugar'])
    expect((await list('?q=wheat')).items.map((i: any) => i.name)).toEqual(['Flour'])
    expect((await list('?q=bu')).items.map((i: any) => i.name)).toEqual(['Butter'])
    expect((await list('?q=BAS')).items.map((i: any) => i.name)).toEqual(['basil'])
    expect((await list('?active=false')).items.map((i: any) => i.name)).toEqual(['Sugar'])
    expect((await list('?active=true')).page.total).toBe(3)
    const page2 = await list('?limit=2&page=2')
    expect(page2.items.map((i: any) => i.name)).toEqual(['Flour', 'Sugar'])
    expect(page2.page).toEqual({ total: 4 })
  })

  test('deactivate and reactivate; inactive ingredients cannot be received; both are idempotent', async () => {
    const flour = await makeIngredient(t)
    const off = await t.request('POST', `/inventory/ingredients/${flour.id}/deactivate`)
    expect(off.body.active).toBe(false)
    expect((await t.request('POST', `/inventory/ingredients/${flour.id}/deactivate`)).body.active).toBe(false)
    const refused = await t.request('POST', `/inventory/ingredients/${flour.id}/receivings`, {
      body: { locationId: t.tenant.locationId, quantity: 1, unitCost: 1 },
    })
    expect(refused.status).toBe(409)
    expect(countRows(t.tenant.db, 'inventory_movements')).toBe(0)
    const on = await t.request('POST', `/inventory/ingredients/${flour.id}/reactivate`)
    expect(on.body.active).toBe(true)
    await receive(t, flour.id, { quantity: 1, unitCost: 1 })
  })

  test('deactivation is refused while an active recipe uses or produces the ingredient', async () => {
    const flour = await makeIngredient(t)
    const dough = await makeIngredient(t)
    const recipe = await t.request('POST', '/inventory/recipes', {
      body: {
        kind: 'prep',
        title: 'Dough',
        yieldQuantity: 1000,
        outputIngredientId: dough.id,
        components: [{ ingredientId: flour.id, quantity: 600 }],
      },
    })
    for (const id of [flour.id, dough.id]) {
      const res = await t.request('POST', `/inventory/ingredients/${id}/deactivate`)
      expect(res.status).toBe(409)
      expect(res.body.recipes).toEqual([{ id: recipe.body.id, title: 'Dough' }])
    }
    await t.request('POST', `/inventory/recipes/${recipe.body.id}/deactivate`)
    expect((await t.request('POST', `/inventory/ingredients/${flour.id}/deactivate`)).status).toBe(200)
  })

  test('a deleted vendor leaves the ingredient with no vendor', async () => {
    const v = (await t.request('POST', '/vendor', { body: { name: 'Produce' } })).body
    const flour = await makeIngredient(t, { vendorId: v.id })
    await t.request('DELETE', `/vendor/${v.id}`)
    expect((await t.request('GET', `/inventory/ingredients/${flour.id}`)).body.vendorId).toBeNull()
  })

  test("another tenant's ingredient is 404 for every route and stays unchanged", async () => {
    const other = await t.addTenant('other')
    const theirs = await makeIngredient(t, { name: 'Theirs' }, other)
    const cases: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['PUT', '', { name: 'Mine' }],
      ['POST', '/deactivate', undefined],
      ['POST', '/reactivate', undefined],
      ['POST', '/receivings', { locationId: t.tenant.locationId, quantity: 1, unitCost: 1 }],
      ['POST', '/waste', { locationId: t.tenant.locationId, quantity: 1 }],
      ['POST', '/counts', { locationId: t.tenant.locationId, countedQuantity: 1 }],
      ['PUT', `/stocks/${t.tenant.locationId}`, { parQuantity: 1 }],
      ['GET', '/movements', undefined],
    ]
    for (const [method, suffix, body] of cases) {
      const res = await t.request(method, `/inventory/ingredients/${theirs.id}${suffix}`, { body })
      expect({ route: `${method} ${suffix}`, status: res.status }).toEqual({
        route: `${method} ${suffix}`,
        status: 404,
      })
    }
    expect((await t.request('GET', '/inventory/ingredients')).body.page.total).toBe(0)
    const still = await t.request('GET', `/inventory/ingredients/${theirs.id}`, {
      as: other.owner,
      tenant: other,
    })
    expect(still.body).toMatchObject({ name: 'Theirs', active: true, stocks: [] })
  })

  test('writes are audited with events; refused writes append nothing', async () => {
    const flour = await makeIngredient(t)
    await t.request('PUT', `/inventory/ingredients/${flour.id}`, { body: { name: 'Flour 00' } })
    await t.request('PUT', `/inventory/ingredients/${flour.id}`, { body: { name: 'Flour 00' } }) // no change
    await t.request('POST', `/inventory/ingredients/${flour.id}/deactivate`)
    await t.request('POST', `/inventory/ingredients/${flour.id}/reactivate`)
    const audit = t.tenant.db.$client
      .query("SELECT action, metadata FROM audit_entries WHERE entity_type = 'ingredient' ORDER BY seq")
      .all() as { action: string; metadata: string }[]
    expect(audit.map((a) => a.action)).toEqual([
      'ingredient.create',
      'ingredient.update',
      'ingredient.deactivate',
      'ingredient.reactivate',
    ])
    expect(JSON.parse(audit[1]!.metadata).changes.name.to).toBe('Flour 00')
    const events = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'ingredient' ORDER BY seq")
      .all()
      .map((e: any) => e.action)
    expect(events).toEqual(['create', 'update', 'deactivate', 'reactivate'])
    const before = countRows(t.tenant.db, 'audit_entries')
    await t.request('POST', '/inventory/ingredients', {
      body: { code: flour.code, name: 'dup', baseUnit: 'g' },
    })
    await t.request('PUT', `/inventory/ingredients/${flour.id}`, { body: { vendorId: 'nope' } })
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
  })
})
