// Shared fixtures of the customers, clubs and club-membership tests.
import { expect } from 'bun:test'
import type { TenantFixture, TestApp } from '../../harness'

let sequence = 0

export const address = (overrides: Record<string, unknown> = {}) => ({
  label: 'shipping',
  name: 'Ann Lee',
  line1: '1 Vineyard Way',
  city: 'Napa',
  region: 'CA',
  postalCode: '94558',
  countryCode: 'US',
  ...overrides,
})

export async function makeCustomer(
  t: TestApp,
  body: Record<string, unknown> = {},
  options: { tenant?: TenantFixture; headers?: Record<string, string> } = {},
) {
  const n = ++sequence
  const tenant = options.tenant ?? t.tenant
  const res = await t.request('POST', '/customers', {
    as: tenant.owner,
    tenant,
    headers: options.headers,
    body: { firstName: 'Ann', lastName: `Lee${n}`, email: `ann${n}@example.test`, ...body },
  })
  expect(res.status).toBe(201)
  return res.body
}

export async function makeClub(t: TestApp, body: Record<string, unknown> = {}, tenant?: TenantFixture) {
  const n = ++sequence
  const target = tenant ?? t.tenant
  const res = await t.request('POST', '/clubs', {
    as: target.owner,
    tenant: target,
    body: { title: `Club ${n}`, slug: `club-${n}`, ...body },
  })
  expect(res.status).toBe(201)
  return res.body
}

/** A Manual customer tag (`POST /tag/customer`). */
export async function makeTag(t: TestApp, title: string, tenant?: TenantFixture) {
  const target = tenant ?? t.tenant
  const res = await t.request('POST', '/tag/customer', { as: target.owner, tenant: target, body: { title } })
  expect(res.status).toBe(201)
  return res.body as { id: string; title: string }
}

export async function addAddress(t: TestApp, customerId: string, overrides: Record<string, unknown> = {}) {
  const res = await t.request('POST', `/customers/${customerId}/addresses`, { body: address(overrides) })
  expect(res.status).toBe(201)
  return res.body
}

export async function addCard(t: TestApp, customerId: string, providerToken = 'tok_visa') {
  const res = await t.request('POST', `/customers/${customerId}/payment-methods`, { body: { providerToken } })
  expect(res.status).toBe(201)
  return res.body
}

export const auditActions = (t: TestApp, entityType: string) =>
  (
    t.tenant.db.$client
      .query('SELECT action FROM audit_entries WHERE entity_type = ? ORDER BY seq')
      .all(entityType) as { action: string }[]
  ).map((e) => e.action)

export const events = (t: TestApp, object: string) =>
  t.tenant.db.$client
    .query(
      'SELECT action, aggregate_id AS aggregateId, payload FROM outbox_events WHERE object = ? ORDER BY seq',
    )
    .all(object) as { action: string; aggregateId: string; payload: string }[]
