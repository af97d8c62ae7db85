// The tenant pool closes an evicted connection as soon as nothing uses it: at once after the
// current task when nobody holds it, on the last release when a request or a job holds it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type DatabaseHandle, TenantPool } from '../../src/platform/tenancy/databases'
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

  test('an evicted connection still open is taken back, not opened a second time', async () => {
    const held = t.platform.pool.hold(a)
    t.platform.pool.get(b)
    // Evicted while held (a request awaiting something): the next use of the tenant gets it back.
    expect(t.platform.pool.get(a)).toBe(held)
    t.platform.pool.release(held)
    expect(isOpen(held)).toBe(true)
    // Evicted and not held: until it closes after this task, it is taken back too.
    const evicted = t.platform.pool.get(b)
    expect(t.platform.pool.get(a)).toBe(held)
    expect(t.platform.pool.get(b)).toBe(evicted)
    await nextTask()
    expect(isOpen(evicted)).toBe(true)
    expect(isOpen(held)).toBe(false)
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

describe('tenant pool sized by memory', () => {
  const options = { synchronous: 'NORMAL', busyTimeoutMs: 1000 } as const
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  test('it holds as many connections as its memory fits, by the size it measured after its first open', async () => {
    const memoryBytes = 2 ** 21
    const pool = new TenantPool(t.platform.config.dataDir, { memoryBytes }, options)
    try {
      const ids = ['m-a', 'm-b', 'm-c', 'm-d', 'm-e', 'm-f', 'm-g', 'm-h'].map(
        (slug) =>
          createTenant(t.platform.control.db, t.platform.pool, { slug, name: slug, timezone: 'UTC' }).id,
      )
      pool.get(ids[0]!)
      // Not measured yet: nothing but the count bounds the pool.
      expect(pool.stats()).toMatchObject({ connectionBytes: 0, capacity: Math.floor(memoryBytes / 65_536) })
      await nextTask()
      for (const id of ids) pool.get(id)
      pool.get(ids[7]!)
      const stats = pool.stats()
      // At least 200 KiB: sixteen opens served from freed memory measure next to nothing.
      expect(stats.connectionBytes).toBeGreaterThanOrEqual(200 * 1024)
      expect(stats.capacity).toBe(Math.max(1, Math.floor(memoryBytes / stats.connectionBytes)))
      expect(stats.open).toBe(Math.min(ids.length, stats.capacity))
      expect(stats).toMatchObject({ misses: 8, hits: 2, evictions: ids.length - stats.open })
    } finally {
      pool.close()
    }
  })

  test('a count set with TENANT_POOL_SIZE bounds it too', () => {
    const pool = new TenantPool(
      t.platform.config.dataDir,
      { memoryBytes: 2 ** 30, maxOpen: 2 },
      { synchronous: 'NORMAL', busyTimeoutMs: 1000 },
    )
    try {
      for (const slug of ['n-a', 'n-b', 'n-c'])
        pool.get(
          createTenant(t.platform.control.db, t.platform.pool, { slug, name: slug, timezone: 'UTC' }).id,
        )
      expect(pool.stats()).toMatchObject({ open: 2, capacity: 2, evictions: 1 })
    } finally {
      pool.close()
    }
  })
})
