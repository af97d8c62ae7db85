// The generated client (client/) end to end against the app: typed paths, parameters, bodies,
// integer amounts and problem documents as error bodies. The annotations below are the test of
// the types: `npm run typecheck` fails when the client stops typing them so.
import { afterAll, expect, test } from 'bun:test'
import { createRestaurantOpsClient, type Problem } from '../client'
import { createTestApp } from './harness'

const t = await createTestApp()
afterAll(() => t.close())

const client = createRestaurantOpsClient({
  baseUrl: 'http://localhost',
  token: t.tenant.owner.token,
  tenantId: t.tenant.id,
  locationId: t.tenant.locationId,
  fetch: (request) => t.app.handle(request),
})

test('a vendor created, read and listed through the client', async () => {
  const created = await client.POST('/vendor', { body: { name: 'Hillside Barrels' } })
  expect(created.response.status).toBe(201)
  const id: string = created.data!.id
  const read = await client.GET('/vendor/{id}', { params: { path: { id } } })
  expect(read.data?.name).toBe('Hillside Barrels')
  const list = await client.GET('/vendor', { params: { query: { limit: 10 } } })
  const total: number = list.data!.page.total
  expect(total).toBe(1)
})

test('amounts are typed and sent as integers', async () => {
  const order = await client.POST('/order', { body: { locationId: t.tenant.locationId } })
  expect(order.response.status).toBe(201)
  const balance: number = order.data!.balanceDue
  expect(Number.isInteger(balance)).toBe(true)
})

test('error bodies are typed problem documents', async () => {
  const missing = await client.GET('/vendor/{id}', { params: { path: { id: 'no-such-vendor' } } })
  const problem: Problem | undefined = missing.error
  expect(missing.response.status).toBe(404)
  expect(problem?.code).toBe('not_found')
  const invalid = await client.GET('/vendor', { params: { query: { limit: 1000 } } })
  expect(invalid.error?.errors?.[0]?.path).toBe('query/limit')
})

test('without a token the client gets 401 as a problem document', async () => {
  const anonymous = createRestaurantOpsClient({
    baseUrl: 'http://localhost',
    tenantId: t.tenant.id,
    fetch: (request) => t.app.handle(request),
  })
  const refused = await anonymous.GET('/vendor')
  expect(refused.response.status).toBe(401)
  expect(refused.error?.code).toBe('unauthenticated')
})
