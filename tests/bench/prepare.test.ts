// The benchmark's data preparation: tenants seeded from a copied migrated file must be tenants the
// service serves like any other, each reachable only with its own owner's token.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type BenchTenant, prepareManyTenants, prepareSingleTenant } from '../../bench/prepare'
import { configFor } from '../../src/config'
import { verifyAuditChain } from '../../src/platform/audit/audit'
import type { Platform } from '../../src/platform/platform'
import { type App, createApp } from '../../src/server'
import { makeTestDir, removeTestDir } from '../temp-dirs'

const dirs: string[] = []
const freshDir = () => {
  const dir = makeTestDir('bench')
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) removeTestDir(dir)
})

const getCustomer = (app: App, as: BenchTenant, tenant: BenchTenant = as) =>
  app.handle(
    new Request(`http://localhost/customers/${tenant.customerId}`, {
      headers: { authorization: `Bearer ${as.token}`, 'x-tenant-id': tenant.tenantId },
    }),
  )

describe('prepareManyTenants', () => {
  let tenants: BenchTenant[]
  let app: App
  let platform: Platform
  beforeAll(async () => {
    const dataDir = freshDir()
    tenants = await prepareManyTenants(dataDir, 3)
    ;({ app, platform } = await createApp({ config: configFor({ dataDir }) }))
  })
  afterAll(() => platform.close())

  test('every tenant serves its customer with two addresses and two tags to its own owner', async () => {
    expect(new Set(tenants.map((t) => t.tenantId)).size).toBe(3)
    for (const tenant of tenants) {
      const res = await getCustomer(app, tenant)
      expect(res.status).toBe(200)
      const body = (await res.json()) as { id: string; addresses: unknown[]; tags: { title: string }[] }
      expect(body.id).toBe(tenant.customerId)
      expect(body.addresses).toHaveLength(2)
      expect(body.tags.map((t) => t.title)).toEqual(['VIP', 'Wine Club'])
    }
  })

  test("one tenant's owner token is refused in another tenant", async () => {
    const [a, b] = tenants as [BenchTenant, BenchTenant]
    expect((await getCustomer(app, a, b)).status).toBe(403)
  })

  test("another tenant's customer id is not found in the tenant asked for", async () => {
    const [a, b] = tenants as [BenchTenant, BenchTenant]
    const res = await app.handle(
      new Request(`http://localhost/customers/${b.customerId}`, {
        headers: { authorization: `Bearer ${a.token}`, 'x-tenant-id': a.tenantId },
      }),
    )
    expect(res.status).toBe(404)
  })

  test('each copied file holds a valid audit chain of its own seeding', () => {
    for (const tenant of tenants) {
      const verdict = verifyAuditChain(platform.pool.get(tenant.tenantId).db)
      expect(verdict).toMatchObject({ ok: true })
      expect(verdict.count).toBeGreaterThan(0)
    }
  })
})

test('prepareSingleTenant: tenant `bench` with its customer and the orders asked for', async () => {
  const dataDir = freshDir()
  const bench = await prepareSingleTenant(dataDir, 25)
  expect(bench.jwks.keys).toHaveLength(1)
  const { app, platform } = await createApp({ config: configFor({ dataDir }) })
  try {
    expect((await getCustomer(app, bench)).status).toBe(200)
    const res = await app.handle(
      new Request('http://localhost/order?limit=50', {
        headers: { authorization: `Bearer ${bench.token}`, 'x-tenant-id': bench.tenantId },
      }),
    )
    expect(res.status).toBe(200)
    const body = (await res.json()) as { orders: { lineItems: { title: string }[] }[]; total: number }
    expect(body.total).toBe(25)
    expect(body.orders).toHaveLength(25)
    expect(body.orders.every((o) => o.lineItems.map((l) => l.title).join() === 'Oysters,Bread')).toBe(true)
  } finally {
    platform.close()
  }
})
