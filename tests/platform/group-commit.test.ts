// Group commit (src/platform/tenancy/transaction.ts): on a server's tenant connection, the write
// transactions of one event-loop turn are savepoints of one transaction, committed when the turn
// ends. What must hold: each write stays all-or-nothing, no response goes out before its commit, a
// failed commit fails every request of its group, the audit chain stays whole, and a second
// connection to the same file (a second app, an evicted connection) never waits on an open group.
import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { configFor } from '../../src/config'
import { createVendor } from '../../src/modules/vendors/service'
import { verifyAuditChain } from '../../src/platform/audit/audit'
import { observeWrites } from '../../src/platform/audit/record-write'
import { systemActor } from '../../src/platform/foundation/actor'
import { tenantDatabasePath } from '../../src/platform/tenancy/databases'
import {
  commitsPending,
  inWriteTransaction,
  outsideOpenGroups,
  type Queryable,
} from '../../src/platform/tenancy/transaction'
import { WriteWaits } from '../../src/platform/tenancy/write-waits'
import { createApp } from '../../src/server'
import { postAs, type RunningServer, sharedDataDir, tenantWithOwner } from '../e2e/cli'
import { countRows, createTestApp, type TestApp } from '../harness'
import { makeTestDir, removeTestDir } from '../temp-dirs'

let t: TestApp
afterEach(async () => {
  await t?.close()
})

const vendorBody = (name: string) => ({ name, email: `${name.toLowerCase()}@vendors.test` })
/** A write only the commit refuses: foreign keys deferred to the commit, a row pointing at nothing. */
function orphanAddress(tx: Queryable): void {
  tx.run(sql`PRAGMA defer_foreign_keys = ON`)
  tx.run(
    sql`INSERT INTO customer_addresses (id, customer_id, label, name, line1, city, region, postal_code, country_code, created_at, updated_at) VALUES ('orphan', 'no-such-customer', 'home', 'x', 'x', 'y', 'CA', '1', 'US', '2026-01-01', '2026-01-01')`,
  )
}
const turnEnd = () => new Promise((resolve) => setImmediate(resolve))

describe('group commit', () => {
  test('concurrent writes share a commit; each is answered after it, the chain is whole', async () => {
    t = await createTestApp()
    const before = countRows(t.tenant.db, 'audit_entries')
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.request('POST', '/vendor', { body: vendorBody(`V${i}`) })),
    )
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201))
    // Answered means committed: another connection to the file sees every vendor at once.
    const other = new Database(tenantDatabasePath(t.dataDir, t.tenant.id), { readonly: true })
    try {
      expect(other.query('SELECT count(*) AS n FROM vendors').get()).toEqual({ n: 12 })
    } finally {
      other.close()
    }
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before + 12)
    expect(verifyAuditChain(t.tenant.db)).toEqual({ ok: true, count: before + 12 })
  })

  test('a failing write rolls back to its own savepoint; the others of its turn commit', async () => {
    t = await createTestApp()
    const actor = systemActor(t.tenant.id, 'test')
    const kept = createVendor(t.tenant.db, actor, vendorBody('Kept'))
    expect(t.tenant.db.$client.inTransaction).toBe(true)
    expect(() =>
      inWriteTransaction(t.tenant.db, () => {
        createVendor(t.tenant.db, actor, vendorBody('Lost'))
        throw new Error('refused after writing')
      }),
    ).toThrow('refused after writing')
    const alsoKept = createVendor(t.tenant.db, actor, vendorBody('AlsoKept'))
    await commitsPending()
    expect(t.tenant.db.$client.inTransaction).toBe(false)
    const names = t.tenant.db.all<{ name: string }>(sql`SELECT name FROM vendors ORDER BY name`)
    expect(names.map((row) => row.name)).toEqual(['AlsoKept', 'Kept'])
    expect([kept.name, alsoKept.name]).toEqual(['Kept', 'AlsoKept'])
    expect(verifyAuditChain(t.tenant.db).ok).toBe(true)
  })

  test("a group's savepoint journal is placed in memory as it begins; its sorts still spill to disk", async () => {
    t = await createTestApp()
    const actor = systemActor(t.tenant.id, 'test')
    const tempStore = () => t.tenant.db.$client.query('PRAGMA temp_store').get()
    // SQLite's default (0): temporary files, so a large sort in a group uses a bounded amount of memory.
    const inGroup = inWriteTransaction(t.tenant.db, () => {
      createVendor(t.tenant.db, actor, vendorBody('Sorted'))
      return tempStore()
    })
    expect(t.tenant.db.$client.inTransaction).toBe(true)
    expect(inGroup).toEqual({ temp_store: 0 })
    await commitsPending()
    expect(tempStore()).toEqual({ temp_store: 0 })
  })

  test('a commit that fails fails every write of its group, and none of them stays', async () => {
    t = await createTestApp()
    const actor = systemActor(t.tenant.id, 'test')
    const before = countRows(t.tenant.db, 'vendors')
    createVendor(t.tenant.db, actor, vendorBody('DoomedA'))
    createVendor(t.tenant.db, actor, vendorBody('DoomedB'))
    inWriteTransaction(t.tenant.db, (tx) => orphanAddress(tx))
    await expect(commitsPending()).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' })
    await turnEnd()
    expect(countRows(t.tenant.db, 'vendors')).toBe(before)
    expect(countRows(t.tenant.db, 'customer_addresses')).toBe(0)
    expect(verifyAuditChain(t.tenant.db).ok).toBe(true)
  })

  test('a request whose commit fails is answered with a problem, not a 201', async () => {
    t = await createTestApp()
    const before = countRows(t.tenant.db, 'vendors')
    const stop = observeWrites((tx, _actor, write) => {
      if (write.action === 'vendor.create') orphanAddress(tx)
    })
    try {
      const res = await t.request('POST', '/vendor', { body: vendorBody('Doomed') })
      expect(res.status).toBe(409)
      expect(res.headers.get('content-type')).toContain('application/problem+json')
    } finally {
      stop()
    }
    expect(countRows(t.tenant.db, 'vendors')).toBe(before)
    // The connection is usable again.
    expect((await t.request('POST', '/vendor', { body: vendorBody('After') })).status).toBe(201)
    expect(verifyAuditChain(t.tenant.db).ok).toBe(true)
  })

  test('a second app on the same data directory writes while the first has a group open', async () => {
    t = await createTestApp()
    const { platform: second } = await createApp({ config: configFor({ dataDir: t.dataDir }) })
    try {
      const actor = systemActor(t.tenant.id, 'test')
      createVendor(t.tenant.db, actor, vendorBody('First'))
      // Would wait on the first app's write lock, synchronously, for the busy timeout (5 s).
      const started = performance.now()
      createVendor(second.pool.get(t.tenant.id).db, actor, vendorBody('Second'))
      expect(performance.now() - started).toBeLessThan(1000)
      await turnEnd()
      await commitsPending()
      expect(countRows(t.tenant.db, 'vendors')).toBe(2)
      expect(verifyAuditChain(t.tenant.db).ok).toBe(true)
    } finally {
      second.close()
    }
  })

  test('outsideOpenGroups settles once the open group has committed', async () => {
    t = await createTestApp()
    createVendor(t.tenant.db, systemActor(t.tenant.id, 'test'), vendorBody('Pending'))
    expect(t.tenant.db.$client.inTransaction).toBe(true)
    await outsideOpenGroups(t.tenant.db)
    expect(t.tenant.db.$client.inTransaction).toBe(false)
    expect(countRows(t.tenant.db, 'vendors')).toBe(1)
    // None open: at once.
    await outsideOpenGroups(t.tenant.db)
  })

  test('an evicted connection commits its group before the tenant is opened again', async () => {
    t = await createTestApp({ config: { tenantPoolSize: 1 } })
    const other = await t.addTenant('other')
    const actor = systemActor(t.tenant.id, 'test')
    createVendor(t.platform.pool.get(t.tenant.id).db, actor, vendorBody('BeforeEviction'))
    t.platform.pool.get(other.id)
    createVendor(t.platform.pool.get(t.tenant.id).db, actor, vendorBody('AfterEviction'))
    await turnEnd()
    await commitsPending()
    expect(countRows(t.platform.pool.get(t.tenant.id).db, 'vendors')).toBe(2)
  })

  test('GROUP_COMMIT=false commits each write before it returns; the command line never groups', async () => {
    t = await createTestApp({ config: { groupCommit: false } })
    createVendor(t.tenant.db, systemActor(t.tenant.id, 'test'), vendorBody('AtOnce'))
    expect(t.tenant.db.$client.inTransaction).toBe(false)
    expect(commitsPending()).toBeUndefined()
  })
})

/** Holds the tenant's write lock on a connection of its own, as another process would. */
async function holdWriteLock(t: TestApp): Promise<Database> {
  await turnEnd()
  await commitsPending()
  const holder = new Database(tenantDatabasePath(t.dataDir, t.tenant.id))
  holder.exec('BEGIN IMMEDIATE')
  return holder
}

describe("waiting for another connection's write lock", () => {
  test('a write waits off the event loop: reads are answered meanwhile, and it lands once the lock is free', async () => {
    t = await createTestApp()
    const holder = await holdWriteLock(t)
    let answered = false
    const write = t.request('POST', '/vendor', { body: vendorBody('Waited') }).then((response) => {
      answered = true
      return response
    })
    expect((await t.request('GET', '/vendor')).status).toBe(200)
    await Bun.sleep(50)
    expect(answered).toBe(false)
    holder.exec('COMMIT')
    holder.close()
    expect((await write).status).toBe(201)
    expect(countRows(t.tenant.db, 'vendors')).toBe(1)
    expect(verifyAuditChain(t.tenant.db).ok).toBe(true)
  })

  test('a write still waiting at the busy timeout is answered 503 with Retry-After and writes nothing', async () => {
    t = await createTestApp({ config: { sqliteBusyTimeoutMs: 100 } })
    const holder = await holdWriteLock(t)
    const before = countRows(t.tenant.db, 'audit_entries')
    try {
      const response = await t.request('POST', '/vendor', { body: vendorBody('TooLate') })
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('1')
      expect(response.body.code).toBe('unavailable')
    } finally {
      holder.exec('ROLLBACK')
      holder.close()
    }
    expect(countRows(t.tenant.db, 'vendors')).toBe(0)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
  })
})

describe('write waits shared between processes', () => {
  test("a process sees another's wait, not its own, and wakes it with a signal", async () => {
    const dir = makeTestDir('write-waits')
    const tenantId = 'tenant-a'
    const waiter = Bun.spawn(
      [
        process.execPath,
        '-e',
        `const { WriteWaits } = await import(${JSON.stringify(require.resolve('../../src/platform/tenancy/write-waits'))})
        let woken = false
        const waits = new WriteWaits(${JSON.stringify(dir)}, () => { woken = true }).of(${JSON.stringify(tenantId)})
        console.log('waiting')
        // Tries again every millisecond, as a waiting request does, until woken.
        while (!woken) { waits.want(); await Bun.sleep(1) }
        waits.stopWanting()
        console.log('woken')`,
      ],
      { stdout: 'pipe' },
    )
    const lines = waiter.stdout.pipeThrough(new TextDecoderStream()).getReader()
    expect((await lines.read()).value).toContain('waiting')
    const waits = new WriteWaits(dir, () => {}).of(tenantId)
    while (!waits.wanted()) await Bun.sleep(1)
    waits.wake()
    let out = ''
    while (!out.includes('woken')) {
      const { value, done } = await lines.read()
      if (done) break
      out += value
    }
    expect(out).toContain('woken')
    expect(await waiter.exited).toBe(0)
    expect(waits.wanted()).toBe(false)
    // Its own wait is not another's: a process never defers to itself.
    waits.want()
    expect(waits.wanted()).toBe(false)
    removeTestDir(dir)
  })
})

describe('across processes on one data directory', () => {
  const shared = sharedDataDir()
  const { cli } = shared

  test('two servers writing two tenants in every order: each write is answered 201, none waits out the lock', async () => {
    const slugs = ['north', 'south']
    const tokens: Record<string, string> = {}
    for (const slug of slugs) {
      tokens[slug] = (await tenantWithOwner(cli, slug)).token
    }
    const servers = [await shared.startServer(), await shared.startServer()]
    let n = 0
    const write = (server: RunningServer, slug: string) =>
      postAs(server, tokens[slug]!, slug, '/vendor', { name: `V${++n}` }).then((res) => res.status)
    const started = performance.now()
    // Each server's turns write both tenants, in either order: a server waiting for one tenant's
    // lock while holding the other's would stall both for the busy timeout.
    const statuses = await Promise.all(
      Array.from({ length: 400 }, (_, i) => write(servers[i % 2]!, slugs[(i >> 1) % 2]!)),
    )
    expect(statuses.filter((status) => status !== 201)).toEqual([])
    expect(performance.now() - started).toBeLessThan(4000)
    for (const slug of slugs) {
      const verdict = await cli('audit', 'verify', '--tenant', slug)
      expect(verdict.ok).toBe(true)
    }
  }, 30_000)

  test('two servers writing one tenant take turns at its lock: every write is answered 201 and lands once', async () => {
    const { token } = await tenantWithOwner(cli, 'shared')
    const servers = [await shared.startServer(), await shared.startServer()]
    const names = Array.from({ length: 300 }, (_, i) => `Shared${i}`)
    const statuses = await Promise.all(
      names.map((name, i) =>
        postAs(servers[i % 2]!, token, 'shared', '/vendor', { name }).then((res) => res.status),
      ),
    )
    expect(statuses.filter((status) => status !== 201)).toEqual([])
    const listed = await fetch(`${servers[0]!.url}/vendor?limit=1`, {
      headers: { authorization: `Bearer ${token}`, 'x-tenant-slug': 'shared' },
    }).then((res) => res.json() as Promise<{ page: { total: number } }>)
    expect(listed.page.total).toBe(names.length)
    expect((await cli('audit', 'verify', '--tenant', 'shared')).ok).toBe(true)
  }, 30_000)
})

describe('a writer that commits at once, beside two workers writing one tenant', () => {
  const shared = sharedDataDir({ WORKERS: '2' })
  const { cli } = shared

  // The primary of HTTP workers writes tenants from its jobs (webhook delivery) and commits each
  // write at once. Waiting on SQLite's own busy handler, which sleeps up to 100 ms between tries,
  // it starved for seconds while the two workers handed the lock to each other, and its writes
  // failed with "database is locked". It now waits as the workers do, saying so. (Without
  // `groupCommits` here, the writer below failed 2 to 9 of its 60 writes in each of three runs.)
  test('takes its turn at the lock within a busy timeout of 250 ms, every time', async () => {
    const { tenant, token } = await tenantWithOwner(cli, 'busy')
    const server = await shared.startServer()
    const writer = Bun.spawn(
      [
        process.execPath,
        '-e',
        `const { Database } = await import('bun:sqlite')
        const { sql } = await import('drizzle-orm')
        const { drizzleOn } = await import(${JSON.stringify(require.resolve('../../src/platform/tenancy/databases'))})
        const { groupCommits, inWriteTransaction, pollWaitingLocks } = await import(${JSON.stringify(require.resolve('../../src/platform/tenancy/transaction'))})
        const { WriteWaits } = await import(${JSON.stringify(require.resolve('../../src/platform/tenancy/write-waits'))})
        const sqlite = new Database(${JSON.stringify(tenantDatabasePath(shared.env.DATA_DIR, tenant.id))})
        sqlite.exec('PRAGMA busy_timeout = 250')
        const db = drizzleOn(sqlite)
        const waits = new WriteWaits(${JSON.stringify(shared.env.DATA_DIR)}, pollWaitingLocks)
        groupCommits(sqlite, 250, waits.of(${JSON.stringify(tenant.id)}), true)
        console.log('writing')
        let failed = 0
        for (let i = 0; i < 60; i++) {
          try { inWriteTransaction(db, (tx) => tx.run(sql\`UPDATE vendors SET name = name WHERE 0\`)) }
          catch (error) { failed++; console.error(String(error)) }
          await Bun.sleep(10)
        }
        console.log(JSON.stringify({ failed }))`,
      ],
      { stdout: 'pipe', stderr: 'inherit' },
    )
    let writing = true
    const exited = writer.exited.finally(() => {
      writing = false
    })
    const statuses: number[] = []
    let n = 0
    // Sixteen clients write the tenant through both workers until the writer is done.
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (writing) {
          const response = await postAs(server, token, 'busy', '/vendor', { name: `Busy${++n}` })
          statuses.push(response.status)
        }
      }),
    )
    expect(await exited).toBe(0)
    const out = await new Response(writer.stdout).text()
    expect(out).toContain('writing')
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ failed: 0 })
    expect(statuses.length).toBeGreaterThan(100)
    expect(statuses.filter((status) => status !== 201)).toEqual([])
  }, 60_000)
})
