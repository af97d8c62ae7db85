// Jobs that track due tenants skip the ones with nothing due, and come back for a tenant as soon
// as its files change (a write from any process), its next work comes due, a visit failed, or the
// backstop interval has passed.
import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, describe, expect, setSystemTime, test } from 'bun:test'
import { utimesSync } from 'node:fs'
import { DELIVERY_JOB } from '../../src/platform/events/worker'
import { DueTenants, fileSignature, type NextWork } from '../../src/platform/jobs/due-tenants'
import { forEachDueTenant } from '../../src/platform/jobs/tenants'
import { checkpointsIdle } from '../../src/platform/tenancy/checkpoints'
import { commitsPending } from '../../src/platform/tenancy/transaction'
import { createTestApp, type TestApp } from '../harness'
import { waitFor } from '../modules/webhooks/receiver'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
  await t.addTenant('second')
})
afterEach(() => {
  setSystemTime()
  t.close()
})

const signal = () => new AbortController().signal
const path = (tenantId: string) => t.platform.pool.databasePath(tenantId)

/**
 * Dates every tenant file about a minute back: as if nothing had written for a while. Waits first for
 * the setup's writes to commit and for their background WAL checkpoints, which would write the
 * files again.
 */
let settles = 0
async function settle() {
  // The setup's writes commit at the end of their turn (group commit), then are checkpointed.
  await new Promise((resolve) => setImmediate(resolve))
  await commitsPending()
  await waitFor(() => checkpointsIdle())
  // A second later than the last settle's date: two settles within one millisecond gave a write
  // that changed neither file's size (a WAL restarted in place) the same signature as before it.
  const past = new Date(Date.now() - 60_000 + ++settles * 1000)
  for (const tenantId of tenantIds())
    for (const suffix of ['', '-wal'])
      try {
        utimesSync(`${path(tenantId)}${suffix}`, past, past)
      } catch {}
}

const tenantIds = () =>
  (t.platform.control.sqlite.query('SELECT id FROM tenants').all() as { id: string }[]).map((r) => r.id)

/** One run; answers the slugs visited. `next` answers each tenant's next work. */
async function run(due: DueTenants, next: (slug: string) => NextWork = () => null) {
  const visited: string[] = []
  await forEachDueTenant(t.platform, signal(), due, (tenant) => {
    visited.push(tenant.slug)
    return next(tenant.slug)
  })
  return visited.sort()
}

describe('fileSignature', () => {
  test('stable while nothing writes; changed by a write; not trusted right after one', async () => {
    await settle()
    const file = path(t.tenant.id)
    const before = fileSignature(file, Date.now())
    expect(before).not.toBeNull()
    expect(fileSignature(file, Date.now())).toBe(before)
    t.tenant.db.$client.run('PRAGMA user_version = 7')
    expect(fileSignature(file, Date.now())).toBeNull()
    await settle()
    expect(fileSignature(file, Date.now())).not.toBe(before)
  })
})

describe('DueTenants', () => {
  test('remembers each of thousands of tenants apart, and forgets only the one told', async () => {
    await settle()
    const file = path(t.tenant.id)
    const now = Date.now()
    const due = new DueTenants()
    const ids = Array.from({ length: 3000 }, (_, i) => `tenant-${i}-${crypto.randomUUID()}`)
    due.beginPass()
    for (const [i, id] of ids.entries()) {
      const seen = due.check(id, file, now)
      expect(seen.skip).toBe(false)
      if (!seen.skip) due.record(id, seen.signature, i % 2 === 0 ? null : now + 1000 * i, now)
    }
    expect(due.size).toBe(3000)
    expect(ids.map((id) => due.check(id, file, now).skip).every(Boolean)).toBe(true)
    // Odd ones come due one second apart.
    expect(ids.filter((id) => !due.check(id, file, now + 5500).skip)).toEqual(
      ids.slice(0, 6).filter((_, i) => i % 2 === 1),
    )
    due.forget(ids[10]!)
    expect(due.check(ids[10]!, file, now).skip).toBe(false)
    expect(due.check(ids[12]!, file, now).skip).toBe(true)
  })
})

describe('forEachDueTenant', () => {
  test('visits every tenant once, then only those whose files changed', async () => {
    const due = new DueTenants()
    await settle()
    expect(await run(due)).toEqual(['acme', 'second'])
    expect(await run(due)).toEqual([])
    // A write from another process (its own connection) brings the tenant back.
    const other = new Database(path(t.tenant.id))
    other.run('PRAGMA user_version = 7')
    other.close()
    expect(await run(due)).toEqual(['acme'])
    // Written within the last second: not trusted to show the next write, so visited again.
    expect(await run(due)).toEqual(['acme'])
    setSystemTime(new Date(Date.now() + 2000))
    expect(await run(due)).toEqual(['acme'])
    expect(await run(due)).toEqual([])
  })

  test('a tenant comes back when its next work is due, and a failed visit is retried', async () => {
    const due = new DueTenants()
    await settle()
    const at = Date.now() + 10 * 60_000 // within the 15-minute backstop
    let failing = true
    const next = (slug: string) => {
      if (slug === 'second' && failing) throw new Error('broken')
      return slug === 'acme' ? at : null
    }
    await expect(run(due, next)).rejects.toThrow('1 tenant(s) failed: second: broken')
    failing = false
    expect(await run(due, next)).toEqual(['second'])
    expect(await run(due, next)).toEqual([])
    setSystemTime(new Date(at))
    expect(await run(due, next)).toEqual(['acme'])
  })

  test('even a quiet tenant is visited after the backstop interval', async () => {
    const due = new DueTenants(60_000)
    await settle()
    expect(await run(due)).toEqual(['acme', 'second'])
    expect(await run(due)).toEqual([])
    setSystemTime(new Date(Date.now() + 61_000))
    expect(await run(due)).toEqual(['acme', 'second'])
  })

  test('a suspended or deleted tenant is forgotten; a resumed one is visited again', async () => {
    const due = new DueTenants()
    await settle()
    expect(await run(due)).toEqual(['acme', 'second'])
    expect(due.size).toBe(2)
    t.platform.control.sqlite.run("UPDATE tenants SET status = 'suspended' WHERE slug = 'second'")
    expect(await run(due)).toEqual([])
    expect(due.size).toBe(1)
    t.platform.control.sqlite.run("UPDATE tenants SET status = 'active' WHERE slug = 'second'")
    expect(await run(due)).toEqual(['second'])
  })
})

describe('the webhook worker’s sweeps', () => {
  test('visit only the tenants whose files changed since their last visit (or after the backstop)', async () => {
    const opened: string[] = []
    const pool = t.platform.pool
    const get = pool.get.bind(pool)
    pool.get = (tenantId) => {
      opened.push(tenantId === t.tenant.id ? 'acme' : 'second')
      return get(tenantId)
    }
    const sweep = async (minutes: number) => {
      setSystemTime(new Date(Date.now() + minutes * 60_000))
      opened.length = 0
      await t.platform.jobs.runNow(DELIVERY_JOB)
      return [...new Set(opened)].sort()
    }
    await settle()
    expect(await sweep(0)).toEqual(['acme', 'second'])
    expect(await sweep(6)).toEqual([])
    // The sweep's own writes commit at the end of the turn (group commit): let them, as another
    // process would wait for them.
    await new Promise((resolve) => setImmediate(resolve))
    const other = new Database(path(tenantIds().find((id) => id !== t.tenant.id)!))
    other.run('PRAGMA user_version = 7')
    other.close()
    expect(await sweep(6)).toEqual(['second'])
    // 18 minutes after its last visit, past the 15-minute backstop: visited although unchanged.
    expect(await sweep(6)).toEqual(['acme'])
  })
})
