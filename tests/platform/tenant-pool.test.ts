// The tenant pool closes an evicted connection as soon as nothing uses it: at once after the
// current task when nobody holds it, on the last release when a request or a job holds it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { DatabaseHandle } from '../../src/platform/tenancy/databases'
import { createTenant } from '../../src/platform/tenancy/tenants'
import { createTestApp, type TenantFixture, type TestApp } from '../harness'

const isOpen = (handle: DatabaseHandle) => {
  try {
    handle.sqlite.query('SELECT 1').get()
    return true
  } catch {
    return false
  }
}
const nextTask = () => new Promise((resolve) => setImmediate(resolve))

describe('tenant pool of one', () => {
  let t: TestApp
  let other: TenantFixture
  // Two tenants nobody holds (the harness's fixtures hold theirs for the whole test).
  let a: string
  let b: string
  beforeAll(async () => {
    t = await createTestApp({ config: { tenantPoolSize: 1 } })
    other = await t.addTenant('other-shop')
    const bare = (slug: string) =>
      createTenant(t.platform.control.db, t.platform.pool, { slug, name: slug, timezone: 'UTC' }).id
    a = bare('bare-a')
    b = bare('bare-b')
  })
  afterAll(() => t.close())

  test('an evicted connection nobody holds closes once the current task is over', async () => {
    const first = t.platform.pool.get(a)
    t.platform.pool.get(b)
    expect(isOpen(first)).toBe(true) // the synchronous work that had it can finish
    await nextTask()
    expect(isOpen(first)).toBe(false)
  })

  test('a held connection stays open when evicted, and closes on its last release', async () => {
    const held = t.platform.pool.hold(a)
    t.platform.pool.hold(a)
    t.platform.pool.get(b)
    await Bun.sleep(20)
    expect(isOpen(held)).toBe(true)
    t.platform.pool.release(held)
    expect(isOpen(held)).toBe(true)
    t.platform.pool.release(held)
    expect(isOpen(held)).toBe(false)
  })

  test('held again in the task that evicted it: it waits for that release', async () => {
    const first = t.platform.pool.get(a)
    t.platform.pool.get(b)
    // A request that had the handle before the eviction, and holds it within the same task.
    const holds = (t.platform.pool as unknown as { holds: Map<DatabaseHandle, number> }).holds
    holds.set(first, 1)
    await nextTask()
    expect(isOpen(first)).toBe(true)
    t.platform.pool.release(first)
    expect(isOpen(first)).toBe(false)
  })

  test('every request releases what it held: answered, refused by validation, not found, forbidden', async () => {
    const pool = t.platform.pool
    let holds = 0
    let releases = 0
    const hold = pool.hold.bind(pool)
    const release = pool.release.bind(pool)
    pool.hold = (tenantId) => {
      holds++
      return hold(tenantId)
    }
    pool.release = (handle) => {
      releases++
      release(handle)
    }
    try {
      const clerk = await t.addStaff(t.tenant, { role: 'read_only' })
      const statuses = [
        (await t.request('POST', '/vendor', { body: { name: 'Alder' } })).status,
        (await t.request('POST', '/vendor', { body: { name: 5 } })).status,
        (await t.request('GET', '/vendor/01J00000000000000000000000')).status,
        (await t.request('POST', '/vendor', { as: clerk, body: { name: 'Birch' } })).status,
        (await t.request('GET', '/vendor', { tenant: other, as: other.owner })).status,
      ]
      expect(statuses).toEqual([201, 400, 404, 403, 200])
      expect(holds).toBeGreaterThanOrEqual(4)
      await nextTask() // Elysia runs afterResponse once the response is out
      expect(releases).toBe(holds)
    } finally {
      pool.hold = hold
      pool.release = release
    }
  })
})
