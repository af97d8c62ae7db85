// Receivings, waste, counts, stock levels, the low-stock list and the movement ledger.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'
import { addLocation, expectLedgerConsistent, makeIngredient, receive } from './helpers'

const setup = async (ctx: ScenarioContext, onHand = 0) => {
  ctx.vars.ingredient = await makeIngredient(ctx.t)
  if (onHand > 0) await receive(ctx.t, ctx.vars.ingredient.id, { quantity: onHand, unitCost: 10 })
}
const path = (suffix: string) => (ctx: ScenarioContext) =>
  `/inventory/ingredients/${ctx.vars.ingredient.id}/${suffix}`
const at = (ctx: ScenarioContext, body: Record<string, unknown>) => ({
  locationId: ctx.t.tenant.locationId,
  ...body,
})

const invalidBodies: [string, string, Record<string, unknown>][] = [
  ['receivings', 'quantity 0', { quantity: 0, unitCost: 1 }],
  ['receivings', 'a fractional quantity', { quantity: 1.5, unitCost: 1 }],
  ['receivings', 'a negative unitCost', { quantity: 1, unitCost: -1 }],
  ['receivings', 'a fractional unitCost', { quantity: 1, unitCost: 0.5 }],
  ['receivings', 'no unitCost', { quantity: 1 }],
  ['receivings', 'an unknown field', { quantity: 1, unitCost: 1, vendor: 'x' }],
  ['waste', 'quantity 0', { quantity: 0 }],
  ['waste', 'an unknown reason', { quantity: 1, reason: 'eaten' }],
  ['counts', 'a negative count', { countedQuantity: -1 }],
  ['counts', 'no countedQuantity', {}],
]

describe('stock: scenarios', () => {
  runScenarios([
    ...invalidBodies.map(([route, what, body]) => ({
      name: `${route} with ${what} is 400 and writes nothing`,
      method: 'POST',
      url: path(route),
      setup: (ctx: ScenarioContext) => setup(ctx),
      body: (ctx: ScenarioContext) => at(ctx, body),
      status: 400,
      code: 'validation_failed',
      check: (_res: unknown, ctx: ScenarioContext) => {
        expect(countRows(ctx.t.tenant.db, 'inventory_movements')).toBe(0)
        expect(countRows(ctx.t.tenant.db, 'ingredient_stocks')).toBe(0)
      },
    })),
    ...['receivings', 'waste', 'counts'].map((route) => ({
      name: `${route} at an unknown location is 400 naming locationId`,
      method: 'POST',
      url: path(route),
      setup: (ctx: ScenarioContext) => setup(ctx),
      body: {
        receivings: { locationId: 'nope', quantity: 1, unitCost: 1 },
        waste: { locationId: 'nope', quantity: 1 },
        counts: { locationId: 'nope', countedQuantity: 1 },
      }[route],
      status: 400,
      code: 'validation_failed',
      check: (res: any) => expect(res.body.errors[0].path).toBe('body/locationId'),
    })),
    {
      name: 'receiving is 201 with {ingredient, stock, movement}',
      method: 'POST',
      url: path('receivings'),
      setup: (ctx) => setup(ctx),
      body: (ctx: ScenarioContext) =>
        at(ctx, { quantity: 12, unitCost: 250, invoiceNumber: 'INV-7', note: 'Tuesday' }),
      status: 201,
      expectBody: {
        ingredient: { latestUnitCost: 250, weightedAverageUnitCost: 250 },
        stock: { onHandQuantity: 12 },
        movement: {
          movementType: 'receiving',
          quantityDelta: 12,
          unitCost: 250,
          totalCost: 3000,
          resultingOnHandQuantity: 12,
          referenceType: 'invoice',
          referenceId: 'INV-7',
          note: 'Tuesday',
        },
      },
    },
    {
      name: 'a receiving whose total cost is not an exact integer (beyond 2^53) is 400 and writes nothing',
      method: 'POST',
      url: path('receivings'),
      setup: (ctx) => setup(ctx),
      body: (ctx: ScenarioContext) => at(ctx, { quantity: 1_000_000_000, unitCost: 1_000_000_000 }),
      status: 400,
      code: 'validation_failed',
      check: (_res, ctx) => {
        expect(countRows(ctx.t.tenant.db, 'inventory_movements')).toBe(0)
        expect(countRows(ctx.t.tenant.db, 'ingredient_stocks')).toBe(0)
      },
    },
    {
      name: 'waste beyond on-hand is 409 with the on-hand quantity, writing nothing',
      method: 'POST',
      url: path('waste'),
      setup: (ctx) => setup(ctx, 5),
      body: (ctx: ScenarioContext) => at(ctx, { quantity: 6 }),
      status: 409,
      code: 'conflict',
      expectBody: { onHandQuantity: 5 },
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'inventory_movements')).toBe(1),
    },
    {
      name: 'waste of exactly the on-hand quantity empties the stock',
      method: 'POST',
      url: path('waste'),
      setup: (ctx) => setup(ctx, 5),
      body: (ctx: ScenarioContext) => at(ctx, { quantity: 5, reason: 'spoiled', note: 'fridge failed' }),
      status: 201,
      expectBody: {
        stock: { onHandQuantity: 0 },
        movement: {
          movementType: 'waste',
          quantityDelta: -5,
          unitCost: 10,
          totalCost: -50,
          reason: 'spoiled',
        },
      },
    },
    {
      name: 'waste at a location never stocked is 409',
      method: 'POST',
      url: path('waste'),
      setup: (ctx) => setup(ctx),
      body: (ctx: ScenarioContext) => at(ctx, { quantity: 1 }),
      status: 409,
      code: 'conflict',
      expectBody: { onHandQuantity: 0 },
    },
    {
      name: 'a count of an uncosted ingredient records a movement with null cost',
      method: 'POST',
      url: path('counts'),
      setup: (ctx) => setup(ctx),
      body: (ctx: ScenarioContext) => at(ctx, { countedQuantity: 7 }),
      status: 201,
      expectBody: {
        stock: { onHandQuantity: 7 },
        movement: { movementType: 'count', quantityDelta: 7, unitCost: null, totalCost: null },
      },
      check: (res) => expect(res.body.stock.lastCountedAt).toBe(res.body.movement.createdAt),
    },
    {
      name: 'read_only may not receive (403), nothing is written',
      method: 'POST',
      url: path('receivings'),
      setup: (ctx) => setup(ctx),
      as: (ctx) => ctx.t.tenant.readOnly,
      body: (ctx: ScenarioContext) => at(ctx, { quantity: 1, unitCost: 1 }),
      status: 403,
      code: 'forbidden',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'inventory_movements')).toBe(0),
    },
    {
      name: 'read_only may not count',
      method: 'POST',
      url: path('counts'),
      setup: (ctx) => setup(ctx),
      as: (ctx) => ctx.t.tenant.readOnly,
      body: (ctx: ScenarioContext) => at(ctx, { countedQuantity: 1 }),
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'read_only may not set levels',
      method: 'PUT',
      url: (ctx) => `/inventory/ingredients/${ctx.vars.ingredient.id}/stocks/${ctx.t.tenant.locationId}`,
      setup: (ctx) => setup(ctx),
      as: (ctx) => ctx.t.tenant.readOnly,
      body: { parQuantity: 1 },
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'the staff role may receive (kitchen receiving)',
      method: 'POST',
      url: path('receivings'),
      setup: (ctx) => setup(ctx),
      as: (ctx) => ctx.t.tenant.staff,
      body: (ctx: ScenarioContext) => at(ctx, { quantity: 1, unitCost: 1 }),
      status: 201,
    },
    {
      name: 'read_only may read movements and low stock',
      method: 'GET',
      url: '/inventory/low-stock',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      expectBody: { items: [], page: { total: 0 } },
    },
    {
      name: 'without x-location-id a tenant-wide role may receive at any location',
      method: 'POST',
      url: path('receivings'),
      setup: async (ctx) => {
        await setup(ctx)
        ctx.vars.second = addLocation(ctx.t.tenant)
      },
      body: (ctx: ScenarioContext) => ({ locationId: ctx.vars.second, quantity: 1, unitCost: 1 }),
      status: 201,
    },
    {
      name: 'levels at an unknown location are 404',
      method: 'PUT',
      url: (ctx) => `/inventory/ingredients/${ctx.vars.ingredient.id}/stocks/nope`,
      setup: (ctx) => setup(ctx),
      body: { parQuantity: 1 },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a negative par is 400',
      method: 'PUT',
      url: (ctx) => `/inventory/ingredients/${ctx.vars.ingredient.id}/stocks/${ctx.t.tenant.locationId}`,
      setup: (ctx) => setup(ctx),
      body: { parQuantity: -1 },
      status: 400,
      code: 'validation_failed',
    },
    ...[
      'limit=0',
      'limit=501',
      'page=0',
      'startAt=yesterday',
      'endAt=2026-01-01',
      'startAt=2026-01-01T10:00:00',
      'startAt=2026-01-01%2010:00Z',
      'startAt=2026-02-30T00:00:00Z',
      'endAt=2026-01-01T25:00:00Z',
    ].map((qs) => ({
      name: `movements with ${qs} is 400`,
      method: 'GET',
      url: (ctx: ScenarioContext) => `/inventory/ingredients/${ctx.vars.ingredient.id}/movements?${qs}`,
      setup: (ctx: ScenarioContext) => setup(ctx),
      status: 400,
      code: 'validation_failed',
    })),
    {
      name: 'movements with limit=500 is accepted',
      method: 'GET',
      url: (ctx) => `/inventory/ingredients/${ctx.vars.ingredient.id}/movements?limit=500`,
      setup: (ctx) => setup(ctx, 3),
      status: 200,
      expectBody: { page: { total: 1 } },
    },
    {
      name: 'movements with endAt before startAt is 400',
      method: 'GET',
      url: (ctx) =>
        `/inventory/ingredients/${ctx.vars.ingredient.id}/movements?startAt=2026-02-01T00:00:00Z&endAt=2026-01-01T00:00:00Z`,
      setup: (ctx) => setup(ctx),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'movements of an unknown ingredient are 404',
      method: 'GET',
      url: '/inventory/ingredients/nope/movements',
      status: 404,
      code: 'not_found',
    },
  ])
})

describe('stock: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  const post = async (id: string, route: string, body: Record<string, unknown>, status = 201) => {
    const res = await t.request('POST', `/inventory/ingredients/${id}/${route}`, {
      body: { locationId: t.tenant.locationId, ...body },
    })
    expect({ route, status: res.status, body: res.body }).toMatchObject({ route, status })
    return res.body
  }

  test('weighted average over several receivings, waste and counts, worked by hand', async () => {
    const oil = await makeIngredient(t, { baseUnit: 'ml' })
    const steps: [
      string,
      Record<string, unknown>,
      { avg: number; onHand: number; unitCost: number; totalCost: number },
    ][] = [
      // 10 @ 100 onto nothing: average 100.
      [
        'receivings',
        { quantity: 10, unitCost: 100 },
        { avg: 100, onHand: 10, unitCost: 100, totalCost: 1000 },
      ],
      // 5 @ 130: (1000 + 650) / 15 = 110.
      ['receivings', { quantity: 5, unitCost: 130 }, { avg: 110, onHand: 15, unitCost: 130, totalCost: 650 }],
      // 7 @ 101: (1650 + 707) / 22 = 107.136 -> 107.
      ['receivings', { quantity: 7, unitCost: 101 }, { avg: 107, onHand: 22, unitCost: 101, totalCost: 707 }],
      // waste 12 at the average 107: -1284; the average is unchanged.
      [
        'waste',
        { quantity: 12, reason: 'expired' },
        { avg: 107, onHand: 10, unitCost: 107, totalCost: -1284 },
      ],
      // 3 @ 99: (1070 + 297) / 13 = 105.15 -> 105.
      ['receivings', { quantity: 3, unitCost: 99 }, { avg: 105, onHand: 13, unitCost: 99, totalCost: 297 }],
      // 1 @ 112: (1365 + 112) / 14 = 105.5 -> 106 (half up).
      ['receivings', { quantity: 1, unitCost: 112 }, { avg: 106, onHand: 14, unitCost: 112, totalCost: 112 }],
      // count finds 11: -3 at 106.
      ['counts', { countedQuantity: 11 }, { avg: 106, onHand: 11, unitCost: 106, totalCost: -318 }],
      // count finds 11 again: a zero movement.
      ['counts', { countedQuantity: 11 }, { avg: 106, onHand: 11, unitCost: 106, totalCost: 0 }],
      // count finds 0; then 4 @ 50 onto nothing: the average restarts at 50.
      ['counts', { countedQuantity: 0 }, { avg: 106, onHand: 0, unitCost: 106, totalCost: -1166 }],
      ['receivings', { quantity: 4, unitCost: 50 }, { avg: 50, onHand: 4, unitCost: 50, totalCost: 200 }],
    ]
    for (const [route, body, expected] of steps) {
      const res = await post(oil.id, route, body)
      expect({
        avg: res.ingredient.weightedAverageUnitCost,
        onHand: res.stock.onHandQuantity,
        unitCost: res.movement.unitCost,
        totalCost: res.movement.totalCost,
      }).toEqual(expected)
      expect(res.movement.resultingOnHandQuantity).toBe(expected.onHand)
    }
    expect((await t.request('GET', `/inventory/ingredients/${oil.id}`)).body.latestUnitCost).toBe(50)
    expect(expectLedgerConsistent(t.tenant.db)).toBe(steps.length)
  })

  test('the average is kept over every location; on-hand per location', async () => {
    const second = addLocation(t.tenant)
    const wine = await makeIngredient(t, { baseUnit: 'bottle' })
    await post(wine.id, 'receivings', { quantity: 10, unitCost: 1000 })
    const res = await post(wine.id, 'receivings', { locationId: second, quantity: 30, unitCost: 1400 })
    // (10 000 + 42 000) / 40 = 1300.
    expect(res.ingredient.weightedAverageUnitCost).toBe(1300)
    expect(res.stock).toMatchObject({ locationId: second, onHandQuantity: 30 })
    const waste = await post(wine.id, 'waste', { quantity: 2, reason: 'damaged' })
    expect(waste.movement.totalCost).toBe(-2600)
    expect(waste.ingredient.stocks.map((s: any) => s.onHandQuantity)).toEqual([8, 30])
  })

  test('counts set lastCountedAt; levels are partial and null clears', async () => {
    const flour = await makeIngredient(t)
    const url = `/inventory/ingredients/${flour.id}/stocks/${t.tenant.locationId}`
    const a = await t.request('PUT', url, { body: { parQuantity: 5000, reorderQuantity: 25000 } })
    expect(a.status).toBe(200)
    expect(a.body).toMatchObject({
      onHandQuantity: 0,
      parQuantity: 5000,
      reorderQuantity: 25000,
      lastCountedAt: null,
    })
    const b = await t.request('PUT', url, { body: { parQuantity: 6000 } })
    expect(b.body).toMatchObject({ id: a.body.id, parQuantity: 6000, reorderQuantity: 25000 })
    const c = await t.request('PUT', url, { body: { reorderQuantity: null } })
    expect(c.body).toMatchObject({ parQuantity: 6000, reorderQuantity: null })
    const counted = await post(flour.id, 'counts', { countedQuantity: 3000 })
    expect(counted.stock.lastCountedAt).not.toBeNull()
    expect(counted.stock.parQuantity).toBe(6000)
  })

  test('low stock: below par only, active only, per location, with suggestions in purchase units', async () => {
    const second = addLocation(t.tenant)
    const flour = await makeIngredient(t, { name: 'Flour', purchaseUnit: 'bag', purchaseUnitQuantity: 25000 })
    const salt = await makeIngredient(t, { name: 'Salt', purchaseUnit: 'box', purchaseUnitQuantity: 1000 })
    const yeast = await makeIngredient(t, { name: 'Yeast' })
    const levels = (id: string, loc: string, body: object) =>
      t.request('PUT', `/inventory/ingredients/${id}/stocks/${loc}`, { body })
    await levels(flour.id, t.tenant.locationId, { parQuantity: 30000, reorderQuantity: 10000 })
    await post(flour.id, 'receivings', { quantity: 12000, unitCost: 1 }) // shortfall 18000 > reorder 10000
    await levels(salt.id, t.tenant.locationId, { parQuantity: 500, reorderQuantity: 2000 })
    await post(salt.id, 'receivings', { quantity: 499, unitCost: 1 }) // shortfall 1, reorder 2000
    await levels(salt.id, second, { parQuantity: 100 }) // nothing on hand there
    await levels(yeast.id, t.tenant.locationId, { parQuantity: 50 })
    await post(yeast.id, 'receivings', { quantity: 50, unitCost: 1 }) // at par: not low

    const all = (await t.request('GET', '/inventory/low-stock')).body
    expect(all.page.total).toBe(3)
    expect(
      all.items.map((i: any) => [
        i.name,
        i.stock.locationId === second ? 'second' : 'main',
        i.shortfallQuantity,
        i.suggestedOrderQuantity,
        i.suggestedPurchaseUnits,
      ]),
    ).toEqual([
      ['Flour', 'main', 18000, 18000, 1],
      ['Salt', 'main', 1, 2000, 2],
      ['Salt', 'second', 100, 100, 1],
    ])
    const main = (await t.request('GET', `/inventory/low-stock?locationId=${t.tenant.locationId}`)).body
    expect(main.items.map((i: any) => i.name)).toEqual(['Flour', 'Salt'])
    expect((await t.request('GET', '/inventory/low-stock?locationId=nope')).status).toBe(400)

    await post(flour.id, 'receivings', { quantity: 18000, unitCost: 1 })
    await t.request('POST', `/inventory/ingredients/${salt.id}/deactivate`)
    expect((await t.request('GET', '/inventory/low-stock')).body.page.total).toBe(0)
  })

  test('an ingredient_stock.low event (and audit entry) fires when on-hand crosses below par, once', async () => {
    const flour = await makeIngredient(t)
    await t.request('PUT', `/inventory/ingredients/${flour.id}/stocks/${t.tenant.locationId}`, {
      body: { parQuantity: 10 },
    })
    await post(flour.id, 'receivings', { quantity: 12, unitCost: 1 })
    const atPar = await post(flour.id, 'waste', { quantity: 2 }) // 10: at par, not low
    expect(atPar.movement.reason).toBe('other') // the default reason
    await post(flour.id, 'waste', { quantity: 1 }) // 9: crosses
    await post(flour.id, 'waste', { quantity: 1 }) // 8: already low
    await post(flour.id, 'counts', { countedQuantity: 20 })
    await post(flour.id, 'counts', { countedQuantity: 5 }) // crosses again
    const low = t.tenant.db.$client
      .query(
        "SELECT payload FROM outbox_events WHERE object = 'ingredient_stock' AND action = 'low' ORDER BY seq",
      )
      .all()
      .map((e: any) => JSON.parse(e.payload).stock.onHandQuantity)
    expect(low).toEqual([9, 5])
    // Each crossing is audited too, against the stock, with where on-hand went.
    const audited = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'ingredient_stock.low' ORDER BY seq")
      .all()
      .map((a: any) => JSON.parse(a.metadata))
    expect(audited).toEqual([
      {
        ingredientId: flour.id,
        locationId: t.tenant.locationId,
        parQuantity: 10,
        onHandQuantity: { from: 10, to: 9 },
      },
      {
        ingredientId: flour.id,
        locationId: t.tenant.locationId,
        parQuantity: 10,
        onHandQuantity: { from: 20, to: 5 },
      },
    ])
  })

  test('movements: newest first, filters by location and time window, limit and page', async () => {
    const second = addLocation(t.tenant)
    const flour = await makeIngredient(t)
    for (let i = 1; i <= 5; i++) await post(flour.id, 'receivings', { quantity: i, unitCost: 1 })
    await post(flour.id, 'receivings', { locationId: second, quantity: 100, unitCost: 1 })
    const url = `/inventory/ingredients/${flour.id}/movements`
    const all = (await t.request('GET', url)).body
    expect(all.page.total).toBe(6)
    expect(all.movements.map((m: any) => m.quantityDelta)).toEqual([100, 5, 4, 3, 2, 1])
    const main = (await t.request('GET', `${url}?locationId=${t.tenant.locationId}`)).body
    expect(main.movements.map((m: any) => m.resultingOnHandQuantity)).toEqual([15, 10, 6, 3, 1])
    const limited = (await t.request('GET', `${url}?limit=2&page=2`)).body
    expect(limited.movements.map((m: any) => m.quantityDelta)).toEqual([4, 3])
    expect(limited.page).toEqual({ total: 6 })
    // The window: from the 2nd movement's occurredAt (inclusive) to the 5th's (exclusive).
    const times = [...all.movements].reverse().map((m: any) => m.occurredAt)
    const windowed = (
      await t.request(
        'GET',
        `${url}?startAt=${encodeURIComponent(times[1])}&endAt=${encodeURIComponent(times[4])}`,
      )
    ).body
    const expected = [...all.movements]
      .reverse()
      .filter((m: any) => m.occurredAt >= times[1] && m.occurredAt < times[4])
    expect(windowed.movements.map((m: any) => m.id).sort()).toEqual(expected.map((m: any) => m.id).sort())
    expect(windowed.page.total).toBe(expected.length)
    // Offsets in the bounds are normalised to UTC before comparing.
    const future = (
      await t.request('GET', `${url}?startAt=${encodeURIComponent('2999-01-01T00:00:00+02:00')}`)
    ).body
    expect(future.page.total).toBe(0)
    const past = (await t.request('GET', `${url}?endAt=${encodeURIComponent('2000-01-01T00:00:00-05:00')}`))
      .body
    expect(past.page.total).toBe(0)
    expect((await t.request('GET', `${url}?locationId=nope`)).status).toBe(400)
  })

  test('the ledger is append-only in the database itself', async () => {
    const flour = await makeIngredient(t)
    await post(flour.id, 'receivings', { quantity: 1, unitCost: 1 })
    expect(() => t.tenant.db.$client.exec('UPDATE inventory_movements SET quantity_delta = 5')).toThrow(
      /append-only/,
    )
    expect(() => t.tenant.db.$client.exec('DELETE FROM inventory_movements')).toThrow(/append-only/)
  })

  test('x-location-id scopes writes: another location in the body is 403, in the path 400', async () => {
    const second = addLocation(t.tenant)
    const flour = await makeIngredient(t)
    const headers = { 'x-location-id': t.tenant.locationId }
    const refused = await t.request('POST', `/inventory/ingredients/${flour.id}/receivings`, {
      headers,
      body: { locationId: second, quantity: 1, unitCost: 1 },
    })
    expect(refused.status).toBe(403)
    const levels = await t.request('PUT', `/inventory/ingredients/${flour.id}/stocks/${second}`, {
      headers,
      body: { parQuantity: 1 },
    })
    // The platform treats a path location contradicting x-location-id as a malformed request.
    expect(levels.status).toBe(400)
    expect(countRows(t.tenant.db, 'ingredient_stocks')).toBe(0)
    const ok = await t.request('POST', `/inventory/ingredients/${flour.id}/receivings`, {
      headers,
      body: { locationId: t.tenant.locationId, quantity: 1, unitCost: 1 },
    })
    expect(ok.status).toBe(201)
  })

  test('a location-scoped staff user may count only at their location', async () => {
    const second = addLocation(t.tenant)
    const flour = await makeIngredient(t)
    const cook = await t.addStaff(t.tenant, { role: 'staff', locationId: second })
    const count = (loc: string, header: string) =>
      t.request('POST', `/inventory/ingredients/${flour.id}/counts`, {
        as: cook,
        headers: { 'x-location-id': header },
        body: { locationId: loc, countedQuantity: 3 },
      })
    expect((await count(second, second)).status).toBe(201)
    expect((await count(t.tenant.locationId, second)).status).toBe(403) // scope mismatch
    expect((await count(t.tenant.locationId, t.tenant.locationId)).status).toBe(403) // no role there
  })

  test('an idempotency key replays a receiving instead of receiving twice', async () => {
    const flour = await makeIngredient(t)
    const send = (body: Record<string, unknown>) =>
      t.request('POST', `/inventory/ingredients/${flour.id}/receivings`, {
        headers: { 'idempotency-key': 'delivery-2026-11-21' },
        body: { locationId: t.tenant.locationId, ...body },
      })
    const first = await send({ quantity: 10, unitCost: 3 })
    const again = await send({ quantity: 10, unitCost: 3 })
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    expect((await send({ quantity: 11, unitCost: 3 })).status).toBe(422)
    expect(countRows(t.tenant.db, 'inventory_movements')).toBe(1)
    expect((await t.request('GET', `/inventory/ingredients/${flour.id}`)).body.stocks[0].onHandQuantity).toBe(
      10,
    )
  })

  test('receivings, waste and counts are audited with outbox events in their transaction', async () => {
    const flour = await makeIngredient(t)
    await post(flour.id, 'receivings', { quantity: 10, unitCost: 3 })
    await post(flour.id, 'waste', { quantity: 1 })
    await post(flour.id, 'counts', { countedQuantity: 8 })
    await t.request('PUT', `/inventory/ingredients/${flour.id}/stocks/${t.tenant.locationId}`, {
      body: { parQuantity: 4 },
    })
    const audit = t.tenant.db.$client
      .query(
        "SELECT action, metadata FROM audit_entries WHERE entity_id = ? AND action != 'ingredient.create' ORDER BY seq",
      )
      .all(flour.id) as { action: string; metadata: string }[]
    expect(audit.map((a) => a.action)).toEqual([
      'ingredient.receive',
      'ingredient.waste',
      'ingredient.count',
      'ingredient.stock_levels',
    ])
    expect(JSON.parse(audit[2]!.metadata).movement).toMatchObject({
      movementType: 'count',
      quantityDelta: -1,
    })
    const events = t.tenant.db.$client
      .query(
        "SELECT object, action, payload FROM outbox_events WHERE object LIKE 'ingredient%' AND action != 'create' ORDER BY seq",
      )
      .all() as { object: string; action: string; payload: string }[]
    expect(events.map((e) => `${e.object}.${e.action}`)).toEqual([
      'ingredient.receive',
      'ingredient.waste',
      'ingredient.count',
      'ingredient_stock.update',
    ])
    expect(JSON.parse(events[0]!.payload)).toMatchObject({
      stock: { onHandQuantity: 10 },
      movement: { totalCost: 30 },
    })

    const before = countRows(t.tenant.db, 'audit_entries')
    await post(flour.id, 'waste', { quantity: 100 }, 409)
    await post(flour.id, 'receivings', { quantity: 0, unitCost: 1 }, 400)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
    expectLedgerConsistent(t.tenant.db)
  })
})
