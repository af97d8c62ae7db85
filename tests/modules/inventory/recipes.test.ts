// Recipes: validation, one active recipe per product/output, list filters, update, cost.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'
import { makeIngredient, makeProduct, receive } from './helpers'

const two = async (ctx: ScenarioContext) => {
  ctx.vars.a = await makeIngredient(ctx.t, { name: 'Flour' })
  ctx.vars.b = await makeIngredient(ctx.t, { name: 'Water' })
  ctx.vars.margherita = await makeProduct(ctx.t, 'Margherita')
}
const pizza = (ctx: ScenarioContext, extra: Record<string, unknown> = {}) => ({
  kind: 'menu_item',
  title: 'Margherita',
  productId: ctx.vars.margherita,
  yieldQuantity: 1,
  components: [
    { ingredientId: ctx.vars.a.id, quantity: 250 },
    { ingredientId: ctx.vars.b.id, quantity: 150 },
  ],
  ...extra,
})
const createPizza = async (ctx: ScenarioContext, extra: Record<string, unknown> = {}) => {
  await two(ctx)
  const res = await ctx.t.request('POST', '/inventory/recipes', { body: pizza(ctx, extra) })
  expect(res.status).toBe(201)
  ctx.vars.recipe = res.body
}
const invalid = (name: string, body: (ctx: ScenarioContext) => unknown, paths: string[] = []) => ({
  name,
  method: 'POST',
  url: '/inventory/recipes',
  setup: two,
  body,
  status: 400,
  code: 'validation_failed',
  check: (res: any, ctx: ScenarioContext) => {
    for (const p of paths) expect(res.body.errors.map((e: any) => e.path)).toContain(p)
    expect(countRows(ctx.t.tenant.db, 'recipes')).toBe(0)
  },
})

describe('recipes: scenarios', () => {
  runScenarios([
    {
      name: 'create a menu_item recipe: 201 with components in order',
      method: 'POST',
      url: '/inventory/recipes',
      setup: two,
      body: (ctx: ScenarioContext) => pizza(ctx, { note: 'Stretch thin' }),
      status: 201,
      expectBody: {
        kind: 'menu_item',
        title: 'Margherita',
        outputIngredientId: null,
        yieldQuantity: 1,
        active: true,
        note: 'Stretch thin',
      },
      check: (res, ctx) => {
        expect(res.body.productId).toBe(ctx.vars.margherita)
        expect(res.body.components.map((c: any) => [c.ingredientId, c.quantity])).toEqual([
          [ctx.vars.a.id, 250],
          [ctx.vars.b.id, 150],
        ])
      },
    },
    {
      name: 'create a prep recipe producing an ingredient',
      method: 'POST',
      url: '/inventory/recipes',
      setup: async (ctx) => {
        await two(ctx)
        ctx.vars.dough = await makeIngredient(ctx.t, { name: 'Dough' })
      },
      body: (ctx: ScenarioContext) => ({
        kind: 'prep',
        title: 'Dough batch',
        outputIngredientId: ctx.vars.dough.id,
        yieldQuantity: 1600,
        components: [
          { ingredientId: ctx.vars.a.id, quantity: 1000 },
          { ingredientId: ctx.vars.b.id, quantity: 650 },
        ],
      }),
      status: 201,
      expectBody: { kind: 'prep', productId: null, yieldQuantity: 1600 },
    },
    invalid('no components is 400', (ctx) => pizza(ctx, { components: [] })),
    invalid('yieldQuantity 0 is 400', (ctx) => pizza(ctx, { yieldQuantity: 0 })),
    invalid('a component quantity 0 is 400', (ctx) =>
      pizza(ctx, { components: [{ ingredientId: ctx.vars.a.id, quantity: 0 }] }),
    ),
    invalid('an unknown kind is 400', (ctx) => pizza(ctx, { kind: 'cocktail' })),
    invalid('an unknown component field is 400', (ctx) =>
      pizza(ctx, { components: [{ ingredientId: ctx.vars.a.id, quantity: 1, unit: 'g' }] }),
    ),
    invalid(
      'a duplicate and an unknown ingredient are both named',
      (ctx) =>
        pizza(ctx, {
          components: [
            { ingredientId: ctx.vars.a.id, quantity: 1 },
            { ingredientId: 'nope', quantity: 1 },
            { ingredientId: ctx.vars.a.id, quantity: 2 },
          ],
        }),
      ['body/components/1/ingredientId', 'body/components/2/ingredientId'],
    ),
    invalid('a menu_item without productId is 400', (ctx) => pizza(ctx, { productId: undefined }), [
      'body/productId',
    ]),
    invalid(
      'a menu_item naming an unknown product is 400',
      (ctx) => pizza(ctx, { productId: 'no-such-product' }),
      ['body/productId'],
    ),
    {
      ...invalid(
        "a menu_item naming another tenant's product is 400",
        (ctx) => pizza(ctx, { productId: ctx.vars.theirs }),
        ['body/productId'],
      ),
      setup: async (ctx: ScenarioContext) => {
        await two(ctx)
        const other = await ctx.t.addTenant('other')
        ctx.vars.theirs = await makeProduct(ctx.t, 'Theirs', other)
      },
    },
    {
      name: 'update moving a recipe to an unknown product is 400 and changes nothing',
      method: 'PUT',
      url: (ctx) => `/inventory/recipes/${ctx.vars.recipe.id}`,
      setup: (ctx) => createPizza(ctx),
      body: { productId: 'no-such-product', title: 'Changed' },
      status: 400,
      code: 'validation_failed',
      check: async (res, ctx) => {
        expect(res.body.errors.map((e: any) => e.path)).toEqual(['body/productId'])
        const after = await ctx.t.request('GET', `/inventory/recipes/${ctx.vars.recipe.id}`)
        expect(after.body).toMatchObject({ title: 'Margherita', productId: ctx.vars.margherita })
      },
    },
    {
      name: 'deleting a product an active recipe uses is 409 naming the recipe',
      method: 'DELETE',
      url: (ctx) => `/product/${ctx.vars.margherita}`,
      setup: (ctx) => createPizza(ctx),
      status: 409,
      code: 'conflict',
      check: async (res, ctx) => {
        expect(res.body.recipe).toEqual({ id: ctx.vars.recipe.id, title: 'Margherita' })
        expect((await ctx.t.request('GET', `/product/${ctx.vars.margherita}`)).status).toBe(200)
      },
    },
    {
      name: 'a product whose recipe is inactive can be deleted; the recipe then cannot be reactivated (400)',
      method: 'DELETE',
      url: (ctx) => `/product/${ctx.vars.margherita}`,
      setup: async (ctx) => {
        await createPizza(ctx)
        await ctx.t.request('POST', `/inventory/recipes/${ctx.vars.recipe.id}/deactivate`)
      },
      status: 204,
      check: async (_res, ctx) => {
        const reactivate = await ctx.t.request('POST', `/inventory/recipes/${ctx.vars.recipe.id}/reactivate`)
        expect(reactivate.status).toBe(400)
        expect(reactivate.body.errors.map((e: any) => e.path)).toEqual(['body/productId'])
      },
    },
    {
      name: 'read_only may not create a recipe for a product (403)',
      method: 'POST',
      url: '/inventory/recipes',
      setup: two,
      as: (ctx) => ctx.t.tenant.readOnly,
      body: (ctx: ScenarioContext) => pizza(ctx),
      status: 403,
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'recipes')).toBe(0),
    },
    invalid(
      'a menu_item with an outputIngredientId is 400',
      (ctx) => pizza(ctx, { outputIngredientId: ctx.vars.b.id }),
      ['body/outputIngredientId'],
    ),
    invalid(
      'a prep recipe without outputIngredientId is 400',
      (ctx) => pizza(ctx, { kind: 'prep', productId: undefined }),
      ['body/outputIngredientId'],
    ),
    invalid(
      'a prep recipe using its own output is 400',
      (ctx) => pizza(ctx, { kind: 'prep', productId: undefined, outputIngredientId: ctx.vars.a.id }),
      ['body/components/0/ingredientId'],
    ),
    invalid(
      'a prep recipe with an unknown output is 400',
      (ctx) => pizza(ctx, { kind: 'prep', productId: undefined, outputIngredientId: 'nope' }),
      ['body/outputIngredientId'],
    ),
    {
      ...invalid('an inactive component is 400', (ctx) => pizza(ctx), ['body/components/0/ingredientId']),
      setup: async (ctx: ScenarioContext) => {
        await two(ctx)
        await ctx.t.request('POST', `/inventory/ingredients/${ctx.vars.a.id}/deactivate`)
      },
    },
    {
      name: 'a second active recipe for the same product is 409 naming the first',
      method: 'POST',
      url: '/inventory/recipes',
      setup: (ctx) => createPizza(ctx),
      body: (ctx: ScenarioContext) => pizza(ctx, { title: 'Margherita v2' }),
      status: 409,
      code: 'conflict',
      check: (res, ctx) => expect(res.body.recipe).toEqual({ id: ctx.vars.recipe.id, title: 'Margherita' }),
    },
    {
      name: 'a new recipe for a product whose recipe is inactive is allowed',
      method: 'POST',
      url: '/inventory/recipes',
      setup: async (ctx) => {
        await createPizza(ctx)
        await ctx.t.request('POST', `/inventory/recipes/${ctx.vars.recipe.id}/deactivate`)
      },
      body: (ctx: ScenarioContext) => pizza(ctx, { title: 'Margherita v2' }),
      status: 201,
    },
    {
      name: 'reactivating while another recipe holds the product is 409',
      method: 'POST',
      url: (ctx) => `/inventory/recipes/${ctx.vars.recipe.id}/reactivate`,
      setup: async (ctx) => {
        await createPizza(ctx)
        await ctx.t.request('POST', `/inventory/recipes/${ctx.vars.recipe.id}/deactivate`)
        await ctx.t.request('POST', '/inventory/recipes', { body: pizza(ctx, { title: 'v2' }) })
      },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'an unknown recipe is 404',
      method: 'GET',
      url: '/inventory/recipes/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'cost of an unknown recipe is 404',
      method: 'GET',
      url: '/inventory/recipes/nope/cost',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'update with kind is 400 (kind cannot change)',
      method: 'PUT',
      url: (ctx) => `/inventory/recipes/${ctx.vars.recipe.id}`,
      setup: (ctx) => createPizza(ctx),
      body: { kind: 'prep' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'update giving a menu_item an output is 400',
      method: 'PUT',
      url: (ctx) => `/inventory/recipes/${ctx.vars.recipe.id}`,
      setup: (ctx) => createPizza(ctx),
      body: (ctx: ScenarioContext) => ({ outputIngredientId: ctx.vars.a.id }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'read_only may list and cost but not create',
      method: 'POST',
      url: '/inventory/recipes',
      setup: two,
      as: (ctx) => ctx.t.tenant.readOnly,
      body: (ctx: ScenarioContext) => pizza(ctx),
      status: 403,
      code: 'forbidden',
      check: async (_res, ctx) => {
        const list = await ctx.t.request('GET', '/inventory/recipes', { as: ctx.t.tenant.readOnly })
        expect(list.status).toBe(200)
      },
    },
    {
      name: 'read_only may not deactivate',
      method: 'POST',
      url: (ctx) => `/inventory/recipes/${ctx.vars.recipe.id}/deactivate`,
      setup: (ctx) => createPizza(ctx),
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 403,
      code: 'forbidden',
    },
  ])
})

describe('recipes: behaviour', () => {
  let t: TestApp
  const ctx = () => ({ t, vars: {} as Record<string, any> })
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('update replaces components, keeps what is not sent, and is audited only when it changes', async () => {
    const c = ctx()
    await createPizza(c)
    const basil = await makeIngredient(t, { name: 'Basil' })
    const url = `/inventory/recipes/${c.vars.recipe.id}`
    const res = await t.request('PUT', url, {
      body: {
        title: 'Margherita DOC',
        components: [
          { ingredientId: basil.id, quantity: 5 },
          { ingredientId: c.vars.a.id, quantity: 260 },
        ],
      },
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      title: 'Margherita DOC',
      productId: c.vars.margherita,
      yieldQuantity: 1,
    })
    expect(res.body.components.map((x: any) => [x.ingredientId, x.quantity])).toEqual([
      [basil.id, 5],
      [c.vars.a.id, 260],
    ])
    const same = await t.request('PUT', url, {
      body: {
        title: 'Margherita DOC',
        components: [
          { ingredientId: basil.id, quantity: 5 },
          { ingredientId: c.vars.a.id, quantity: 260 },
        ],
      },
    })
    expect(same.body).toEqual(res.body)
    const bad = await t.request('PUT', url, { body: { components: [{ ingredientId: 'nope', quantity: 1 }] } })
    expect(bad.status).toBe(400)
    expect((await t.request('GET', url)).body).toEqual(res.body)
    const audit = t.tenant.db.$client
      .query("SELECT action, metadata FROM audit_entries WHERE entity_type = 'recipe' ORDER BY seq")
      .all() as { action: string; metadata: string }[]
    expect(audit.map((a) => a.action)).toEqual(['recipe.create', 'recipe.update'])
    expect(JSON.parse(audit[1]!.metadata).changes.components.to).toEqual([
      { ingredientId: basil.id, quantity: 5 },
      { ingredientId: c.vars.a.id, quantity: 260 },
    ])
    const events = t.tenant.db.$client.query("SELECT action FROM outbox_events WHERE object = 'recipe'").all()
    expect(events).toEqual([{ action: 'create' }, { action: 'update' }])
  })

  test('moving a recipe to a product that has an active recipe is 409', async () => {
    const c = ctx()
    await createPizza(c)
    const other = await t.request('POST', '/inventory/recipes', {
      body: pizza(c, { productId: await makeProduct(t, 'Marinara') }),
    })
    expect(other.status).toBe(201)
    const res = await t.request('PUT', `/inventory/recipes/${other.body.id}`, {
      body: { productId: c.vars.margherita },
    })
    expect(res.status).toBe(409)
  })

  test('list: filters by kind, active, productId, ingredientId and q; ordered by title; paged', async () => {
    const c = ctx()
    await createPizza(c)
    const dough = await makeIngredient(t, { name: 'Dough' })
    const batch = await t.request('POST', '/inventory/recipes', {
      body: {
        kind: 'prep',
        title: 'dough batch',
        outputIngredientId: dough.id,
        yieldQuantity: 10,
        components: [{ ingredientId: c.vars.a.id, quantity: 6 }],
      },
    })
    expect(batch.body).toMatchObject({ kind: 'prep' })
    const focacciaId = await makeProduct(t, 'Focaccia')
    const focaccia = await t.request('POST', '/inventory/recipes', {
      body: {
        kind: 'menu_item',
        title: 'Focaccia',
        productId: focacciaId,
        yieldQuantity: 8,
        components: [{ ingredientId: dough.id, quantity: 800 }],
      },
    })
    await t.request('POST', `/inventory/recipes/${focaccia.body.id}/deactivate`)
    const titles = async (qs: string) =>
      (await t.request('GET', `/inventory/recipes${qs}`)).body.recipes.map((r: any) => r.title)
    expect(await titles('')).toEqual(['dough batch', 'Focaccia', 'Margherita'])
    expect(await titles('?kind=prep')).toEqual(['dough batch'])
    expect(await titles('?active=true')).toEqual(['dough batch', 'Margherita'])
    expect(await titles(`?productId=${focacciaId}`)).toEqual(['Focaccia'])
    expect(await titles(`?ingredientId=${c.vars.a.id}`)).toEqual(['dough batch', 'Margherita'])
    expect(await titles('?q=MARG')).toEqual(['Margherita'])
    const page = (await t.request('GET', '/inventory/recipes?limit=1&page=3')).body
    expect(page.recipes.map((r: any) => r.title)).toEqual(['Margherita'])
    expect(page.page).toEqual({ total: 3 })
    expect((await t.request('GET', '/inventory/recipes?kind=cocktail')).status).toBe(400)
  })

  test('theoretical cost from current weighted averages, worked by hand', async () => {
    const c = ctx()
    await createPizza(c, { yieldQuantity: 3 })
    const url = `/inventory/recipes/${c.vars.recipe.id}/cost`
    // Nothing received yet: every component is missing its cost.
    const none = (await t.request('GET', url)).body
    expect(none).toMatchObject({ complete: false, totalCost: 0, costPerYieldUnit: 0 })
    expect(none.missingCostIngredientIds).toEqual([c.vars.a.id, c.vars.b.id])
    // Flour: 1000 @ 2 then 1000 @ 3 -> average 2.5 -> 3 (half up). Water: 100 @ 1.
    await receive(t, c.vars.a.id, { quantity: 1000, unitCost: 2 })
    const partial = (await t.request('GET', url)).body
    expect(partial).toMatchObject({
      complete: false,
      totalCost: 500,
      costPerYieldUnit: 167,
      missingCostIngredientIds: [c.vars.b.id],
    })
    await receive(t, c.vars.a.id, { quantity: 1000, unitCost: 3 })
    await receive(t, c.vars.b.id, { quantity: 100, unitCost: 1 })
    const cost = (await t.request('GET', url)).body
    // 250 × 3 + 150 × 1 = 900 for 3 portions: 300 each.
    expect(cost).toEqual({
      recipeId: c.vars.recipe.id,
      yieldQuantity: 3,
      complete: true,
      totalCost: 900,
      costPerYieldUnit: 300,
      components: [
        {
          ingredientId: c.vars.a.id,
          code: c.vars.a.code,
          name: 'Flour',
          quantity: 250,
          unitCost: 3,
          cost: 750,
        },
        {
          ingredientId: c.vars.b.id,
          code: c.vars.b.code,
          name: 'Water',
          quantity: 150,
          unitCost: 1,
          cost: 150,
        },
      ],
      missingCostIngredientIds: [],
    })
    // Yield 7: 900 / 7 = 128.57 -> 129.
    await t.request('PUT', `/inventory/recipes/${c.vars.recipe.id}`, { body: { yieldQuantity: 7 } })
    expect((await t.request('GET', url)).body.costPerYieldUnit).toBe(129)
  })

  test("another tenant's recipe is 404 for every route; their ingredients cannot be components", async () => {
    const other = await t.addTenant('other')
    const theirs = await makeIngredient(t, {}, other)
    const recipe = await t.request('POST', '/inventory/recipes', {
      as: other.owner,
      tenant: other,
      body: {
        kind: 'menu_item',
        title: 'Theirs',
        productId: await makeProduct(t, 'Theirs', other),
        yieldQuantity: 1,
        components: [{ ingredientId: theirs.id, quantity: 1 }],
      },
    })
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PUT', '', { title: 'Mine' }],
      ['POST', '/deactivate', undefined],
      ['POST', '/reactivate', undefined],
      ['GET', '/cost', undefined],
    ] as const) {
      const res = await t.request(method, `/inventory/recipes/${recipe.body.id}${suffix}`, { body })
      expect(res.status).toBe(404)
    }
    const mine = await t.request('POST', '/inventory/recipes', {
      body: {
        kind: 'menu_item',
        title: 'Mine',
        productId: await makeProduct(t, 'Mine'),
        yieldQuantity: 1,
        components: [{ ingredientId: theirs.id, quantity: 1 }],
      },
    })
    expect(mine.status).toBe(400)
    const still = await t.request('GET', `/inventory/recipes/${recipe.body.id}`, {
      as: other.owner,
      tenant: other,
    })
    expect(still.body).toMatchObject({ title: 'Theirs', active: true })
  })
})
