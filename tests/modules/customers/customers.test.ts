// Customers at /customers and /customer: CRUD, envelopes, search, location filter, addresses,
// permissions, tenant isolation, audit and events.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'
import { addAddress, address, auditActions, events, makeClub, makeCustomer } from './helpers'

const valid = { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.test' }
const setupCustomer = async (ctx: ScenarioContext, body: Record<string, unknown> = {}) => {
  ctx.vars.customer = await makeCustomer(ctx.t, body)
}

describe('customers: scenarios', () => {
  runScenarios([
    {
      name: 'create answers 201 with every field and its default',
      method: 'POST',
      url: '/customers',
      body: valid,
      status: 201,
      expectBody: {
        ...valid,
        status: 'active',
        tags: [],
        marketingOptIn: false,
        additionalPhones: [],
        socialProfiles: { facebook: null, x: null, instagram: null, linkedin: null },
        addresses: [],
        phone: null,
        birthDate: null,
      },
    },
    {
      name: 'create on /customer answers the same customer shape',
      method: 'POST',
      url: '/customer',
      body: { ...valid, birthDate: '1980-02-29', socialProfiles: { instagram: '@ann' } },
      status: 201,
      expectBody: {
        tags: [],
        birthDate: '1980-02-29',
        socialProfiles: { instagram: '@ann', facebook: null },
      },
    },
    ...(['firstName', 'lastName', 'email'] as const).map((field) => ({
      name: `create without ${field} is 400`,
      method: 'POST',
      url: '/customers',
      body: Object.fromEntries(Object.entries(valid).filter(([k]) => k !== field)),
      status: 400,
      code: 'validation_failed',
      check: (res: { body: any }) =>
        expect(res.body.errors).toContainEqual(expect.objectContaining({ path: `body/${field}` })),
    })),
    {
      name: 'a bad email is 400',
      method: 'POST',
      url: '/customers',
      body: { ...valid, email: 'ann' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an impossible birth date is 400',
      method: 'POST',
      url: '/customers',
      body: { ...valid, birthDate: '2023-02-29' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown field is 400 and writes nothing',
      method: 'POST',
      url: '/customers',
      body: { ...valid, favouriteWine: 'Zin' },
      status: 400,
      code: 'validation_failed',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'customers')).toBe(0),
    },
    {
      name: 'an unknown social profile is 400',
      method: 'POST',
      url: '/customers',
      body: { ...valid, socialProfiles: { myspace: 'ann' } },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a duplicate email is 409, case-insensitively, naming the holder',
      method: 'POST',
      url: '/customers',
      setup: (ctx) => setupCustomer(ctx, { email: 'Ann@Example.test' }),
      body: { ...valid, email: 'ann@EXAMPLE.test' },
      status: 409,
      code: 'conflict',
      check: (res, ctx) => expect(res.body.customerId).toBe(ctx.vars.customer.id),
    },
    {
      name: 'an address with an unknown country is 400 and writes nothing',
      method: 'POST',
      url: '/customers',
      body: { ...valid, addresses: [address({ countryCode: 'XX' })] },
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'body/addresses/0/countryCode' })])
        expect(countRows(ctx.t.tenant.db, 'customers')).toBe(0)
      },
    },
    {
      name: 'update is partial and an empty body changes nothing',
      method: 'PUT',
      url: (ctx) => `/customers/${ctx.vars.customer.id}`,
      setup: (ctx) => setupCustomer(ctx, { phone: '555-0100', company: 'Acme' }),
      body: {},
      status: 200,
      expectBody: { phone: '555-0100', company: 'Acme' },
    },
    {
      name: 'update with null clears a field and social profiles change one by one',
      method: 'PUT',
      url: (ctx) => `/customers/${ctx.vars.customer.id}`,
      setup: (ctx) =>
        setupCustomer(ctx, { phone: '555-0100', socialProfiles: { x: '@ann', facebook: 'ann.lee' } }),
      body: { phone: null, socialProfiles: { x: null, linkedin: 'in/ann' } },
      status: 200,
      expectBody: {
        phone: null,
        socialProfiles: { x: null, facebook: 'ann.lee', linkedin: 'in/ann', instagram: null },
      },
    },
    {
      name: 'update to another customer’s email is 409',
      method: 'PUT',
      url: (ctx) => `/customers/${ctx.vars.customer.id}`,
      setup: async (ctx) => {
        await makeCustomer(ctx.t, { email: 'taken@example.test' })
        await setupCustomer(ctx)
      },
      body: { email: 'TAKEN@example.test' },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'update to one’s own email in another case is allowed',
      method: 'PUT',
      url: (ctx) => `/customers/${ctx.vars.customer.id}`,
      setup: (ctx) => setupCustomer(ctx, { email: 'me@example.test' }),
      body: { email: 'ME@example.test' },
      status: 200,
      expectBody: { email: 'ME@example.test' },
    },
    { name: 'an unknown id is 404', method: 'GET', url: '/customers/nope', status: 404, code: 'not_found' },
    {
      name: 'an unknown id is 404 on /customer too',
      method: 'GET',
      url: '/customer/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'limit 101 is 400',
      method: 'GET',
      url: '/customers?limit=101',
      status: 400,
      code: 'validation_failed',
    },
    { name: 'page 0 is 400', method: 'GET', url: '/customer?page=0', status: 400, code: 'validation_failed' },
    {
      name: 'no token is 401',
      method: 'GET',
      url: '/customers',
      as: () => null,
      status: 401,
      code: 'unauthenticated',
    },
    {
      name: 'read_only may list',
      method: 'GET',
      url: '/customer',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      expectBody: { customers: [], total: 0 },
    },
    {
      name: 'read_only may not create (403 without customers:write)',
      method: 'POST',
      url: '/customers',
      as: (ctx) => ctx.t.tenant.readOnly,
      body: valid,
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('customers:write')
        expect(countRows(ctx.t.tenant.db, 'customers')).toBe(0)
      },
    },
    {
      name: 'read_only may not add an address',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/addresses`,
      setup: (ctx) => setupCustomer(ctx),
      as: (ctx) => ctx.t.tenant.readOnly,
      body: address(),
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'a staff user with no role may not read',
      method: 'GET',
      url: '/customers',
      setup: async (ctx) => {
        ctx.vars.nobody = await ctx.t.addStaff(ctx.t.tenant)
      },
      as: (ctx) => ctx.vars.nobody,
      status: 403,
      code: 'forbidden',
    },
  ])
})

describe('customers: addresses', () => {
  runScenarios([
    {
      name: 'add answers 201 with the address, country upper-cased',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/addresses`,
      setup: (ctx) => setupCustomer(ctx),
      body: address({ countryCode: 'fr', label: 'billing', line2: 'Apt 2' }),
      status: 201,
      expectBody: { countryCode: 'FR', label: 'billing', line2: 'Apt 2', phone: null },
    },
    ...(['label', 'name', 'line1', 'city', 'region', 'postalCode', 'countryCode'] as const).map((field) => ({
      name: `an address without ${field} is 400`,
      method: 'POST',
      url: (ctx: ScenarioContext) => `/customers/${ctx.vars.customer.id}/addresses`,
      setup: (ctx: ScenarioContext) => setupCustomer(ctx),
      body: Object.fromEntries(Object.entries(address()).filter(([k]) => k !== field)),
      status: 400,
      code: 'validation_failed',
    })),
    ...['USA', 'U', '12', 'ZZ', 'UK'].map((countryCode) => ({
      name: `country code "${countryCode}" is 400`,
      method: 'POST',
      url: (ctx: ScenarioContext) => `/customers/${ctx.vars.customer.id}/addresses`,
      setup: (ctx: ScenarioContext) => setupCustomer(ctx),
      body: address({ countryCode }),
      status: 400,
      code: 'validation_failed',
      check: (_res: unknown, ctx: ScenarioContext) =>
        expect(countRows(ctx.t.tenant.db, 'customer_addresses')).toBe(0),
    })),
    {
      name: 'an address of an unknown customer is 404',
      method: 'POST',
      url: '/customers/nope/addresses',
      body: address(),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'update of another customer’s address through this customer is 404',
      method: 'PUT',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/addresses/${ctx.vars.theirs.id}`,
      setup: async (ctx) => {
        await setupCustomer(ctx)
        const other = await makeCustomer(ctx.t)
        ctx.vars.theirs = await addAddress(ctx.t, other.id)
      },
      body: { city: 'Sonoma' },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'update with a bad country is 400',
      method: 'PUT',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/addresses/${ctx.vars.address.id}`,
      setup: async (ctx) => {
        await setupCustomer(ctx)
        ctx.vars.address = await addAddress(ctx.t, ctx.vars.customer.id)
      },
      body: { countryCode: 'QQ' },
      status: 400,
      code: 'validation_failed',
    },
  ])
})

describe('customers: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('both paths serve the same records with their own list envelopes', async () => {
    const created = await makeCustomer(t, { firstName: 'Bea', lastName: 'Zed' })
    const plural = await t.request('GET', '/customers')
    expect(plural.status).toBe(200)
    expect(plural.body).toEqual({ customers: [created], page: { total: 1 } })
    const singular = await t.request('GET', '/customer')
    expect(singular.body).toEqual({ customers: [created], total: 1 })
    expect((await t.request('GET', `/customer/${created.id}`)).body).toEqual(created)
    const updated = await t.request('PUT', `/customer/${created.id}`, { body: { company: 'Zed Wines' } })
    expect((await t.request('GET', `/customers/${created.id}`)).body).toEqual(updated.body)
  })

  test('pages: total counts every match; page and limit slice them by last name, first name', async () => {
    for (const [firstName, lastName] of [
      ['Cy', 'Alder'],
      ['al', 'birch'],
      ['Bo', 'Birch'],
      ['Di', 'Cedar'],
    ])
      await makeCustomer(t, { firstName, lastName })
    const names = (body: any) => body.customers.map((c: any) => `${c.firstName} ${c.lastName}`)
    const first = await t.request('GET', '/customers?limit=2')
    expect(first.body.page).toEqual({ total: 4 })
    expect(names(first.body)).toEqual(['Cy Alder', 'al birch'])
    const second = await t.request('GET', '/customer?limit=2&page=2')
    expect(second.body.total).toBe(4)
    expect(names(second.body)).toEqual(['Bo Birch', 'Di Cedar'])
    const beyond = await t.request('GET', '/customer?limit=2&page=3')
    expect(beyond.body).toEqual({ customers: [], total: 4 })
  })

  test('q searches first, last and full name, email and phone', async () => {
    await makeCustomer(t, {
      firstName: 'Maria',
      lastName: 'Lopez',
      email: 'ml@vino.test',
      phone: '707-555-0199',
    })
    await makeCustomer(t, { firstName: 'Sam', lastName: 'Park', email: 'sam@corks.test' })
    await makeCustomer(t, { firstName: '100%', lastName: 'Oak' })
    const found = async (q: string) =>
      (await t.request('GET', `/customers?q=${encodeURIComponent(q)}`)).body.customers.map(
        (c: any) => c.firstName,
      )
    expect(await found('maria')).toEqual(['Maria'])
    expect(await found('LOPEZ')).toEqual(['Maria'])
    expect(await found('maria lo')).toEqual(['Maria'])
    expect(await found('corks.test')).toEqual(['Sam'])
    expect(await found('555-0199')).toEqual(['Maria'])
    expect(await found('%')).toEqual(['100%'])
    expect(await found('nobody')).toEqual([])
    expect((await t.request('GET', '/customer?q=park')).body.total).toBe(1)
  })

  test('locationId keeps customers created at the location or with a club membership there', async () => {
    const second = t.addLocation(t.tenant, {
      name: 'Annex',
      timezone: 'UTC',
    })
    const atMain = await makeCustomer(
      t,
      { firstName: 'Main' },
      { headers: { 'x-location-id': t.tenant.locationId } },
    )
    expect(atMain.originLocationId).toBe(t.tenant.locationId)
    const atAnnex = await makeCustomer(t, { firstName: 'Annex' }, { headers: { 'x-location-id': second.id } })
    const nowhere = await makeCustomer(t, { firstName: 'Nowhere' })
    const club = await makeClub(t)
    // Annex's customer joins the club at Main, so Main lists them too.
    const signup = await t.request('POST', '/club-membership', {
      headers: { 'x-location-id': t.tenant.locationId },
      body: { customerId: atAnnex.id, clubId: club.id, orderDeliveryMethod: 'Pickup' },
    })
    expect(signup.status).toBe(201)
    const at = async (locationId: string) =>
      (await t.request('GET', `/customers?locationId=${locationId}`)).body.customers
        .map((c: any) => c.firstName)
        .sort()
    expect(await at(t.tenant.locationId)).toEqual(['Annex', 'Main'])
    expect(await at(second.id)).toEqual(['Annex'])
    expect(await at('unknown-location')).toEqual([])
    expect((await t.request('GET', '/customers')).body.page.total).toBe(3)
    expect(nowhere.originLocationId).toBeNull()
  })

  test('addresses: add, list, update, delete; the customer shows them and is announced', async () => {
    const customer = await makeCustomer(t)
    const billing = await addAddress(t, customer.id, { label: 'billing' })
    const shipping = await addAddress(t, customer.id, { label: 'shipping', phone: '555' })
    const listed = await t.request('GET', `/customers/${customer.id}/addresses`)
    expect(listed.body).toEqual({ addresses: [billing, shipping], total: 2 })
    const updated = await t.request('PUT', `/customer/${customer.id}/addresses/${shipping.id}`, {
      body: { city: 'Sonoma', phone: null },
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      id: shipping.id,
      city: 'Sonoma',
      phone: null,
      line1: shipping.line1,
    })
    const deleted = await t.request('DELETE', `/customers/${customer.id}/addresses/${billing.id}`)
    expect(deleted.body).toEqual(billing)
    const after = (await t.request('GET', `/customers/${customer.id}`)).body
    expect(after.addresses).toEqual([updated.body])
    expect(after.updatedAt >= customer.updatedAt).toBe(true)
    expect(auditActions(t, 'customer')).toEqual([
      'customer.create',
      'customer.address.create',
      'customer.address.create',
      'customer.address.update',
      'customer.address.delete',
    ])
    expect(events(t, 'customer').map((e) => e.action)).toEqual([
      'create',
      'update',
      'update',
      'update',
      'update',
    ])
    expect((await t.request('DELETE', `/customers/${customer.id}/addresses/${billing.id}`)).status).toBe(404)
  })

  test('delete removes the customer with its addresses; refused while a membership refers to it', async () => {
    const customer = await makeCustomer(t, { addresses: [address()] })
    const deleted = await t.request('DELETE', `/customers/${customer.id}`)
    expect(deleted.status).toBe(200)
    expect(deleted.body).toEqual(customer)
    expect((await t.request('GET', `/customers/${customer.id}`)).status).toBe(404)
    expect(countRows(t.tenant.db, 'customer_addresses')).toBe(0)

    const member = await makeCustomer(t)
    const club = await makeClub(t)
    await t.request('POST', '/club-membership', {
      body: { customerId: member.id, clubId: club.id, orderDeliveryMethod: 'Pickup' },
    })
    const refused = await t.request('DELETE', `/customers/${member.id}`)
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('conflict')
    expect((await t.request('GET', `/customers/${member.id}`)).status).toBe(200)
    expect(auditActions(t, 'customer').filter((a) => a === 'customer.delete')).toHaveLength(1)
  })

  test('every write appends its audit entry and event; refused writes append nothing', async () => {
    const created = await t.request('POST', '/customers', {
      body: valid,
      headers: { 'x-request-id': 'req-c-1', 'x-location-id': t.tenant.locationId },
    })
    await t.request('PUT', `/customers/${created.body.id}`, { body: { lastName: 'Li' } })
    await t.request('PUT', `/customers/${created.body.id}`, { body: { lastName: 'Li' } }) // no change
    await t.request('DELETE', `/customers/${created.body.id}`)
    const entries = t.tenant.db.$client
      .query("SELECT * FROM audit_entries WHERE entity_type = 'customer' ORDER BY seq")
      .all() as Record<string, any>[]
    expect(entries.map((e) => e.action)).toEqual(['customer.create', 'customer.update', 'customer.delete'])
    expect(entries[0]).toMatchObject({
      staff_user_id: t.tenant.owner.id,
      location_id: t.tenant.locationId,
      request_id: 'req-c-1',
      route: '/customers',
      entity_id: created.body.id,
    })
    expect(JSON.parse(entries[1]!.metadata)).toEqual({ changes: { lastName: { from: 'Lee', to: 'Li' } } })
    const sent = events(t, 'customer')
    expect(sent.map((e) => e.action)).toEqual(['create', 'update', 'delete'])
    expect(JSON.parse(sent[1]!.payload)).toMatchObject({ id: created.body.id, lastName: 'Li' })

    const before = countRows(t.tenant.db, 'audit_entries')
    await t.request('POST', '/customers', { body: { ...valid, bogus: 1 } })
    await t.request('POST', '/customers', { as: t.tenant.readOnly, body: valid })
    await t.request('PUT', '/customers/missing', { body: { firstName: 'x' } })
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
    expect(countRows(t.tenant.db, 'outbox_events')).toBe(3)
  })

  test("another tenant's customer and address are 404 on every route, and stay unchanged", async () => {
    const other = await t.addTenant('other')
    const theirs = await makeCustomer(t, { firstName: 'Theirs', addresses: [address()] }, { tenant: other })
    const addressId = theirs.addresses[0].id
    const attempts: [string, string, unknown?][] = [
      ['GET', `/customers/${theirs.id}`],
      ['GET', `/customer/${theirs.id}`],
      ['PUT', `/customers/${theirs.id}`, { firstName: 'Mine' }],
      ['DELETE', `/customers/${theirs.id}`],
      ['GET', `/customers/${theirs.id}/addresses`],
      ['POST', `/customers/${theirs.id}/addresses`, address()],
      ['PUT', `/customers/${theirs.id}/addresses/${addressId}`, { city: 'x' }],
      ['DELETE', `/customers/${theirs.id}/addresses/${addressId}`],
      ['GET', `/customers/${theirs.id}/payment-methods`],
      ['POST', `/customers/${theirs.id}/payment-methods`, { providerToken: 'tok_visa' }],
    ]
    for (const [method, path, body] of attempts) {
      const res = await t.request(method, path, { body })
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 })
    }
    expect((await t.request('GET', '/customers')).body.page.total).toBe(0)
    const still = await t.request('GET', `/customers/${theirs.id}`, { as: other.owner, tenant: other })
    expect(still.body).toEqual(theirs)
    // The same email is free in another tenant.
    expect((await t.request('POST', '/customers', { body: { ...valid, email: theirs.email } })).status).toBe(
      201,
    )
  })
})
