// The due index: when each tenant next has work for each job, stored in the control database after
// the tenant's writes commit and after each visit, so that a start and each sweep open only the
// tenants with work due, and due work is never missed.
import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, describe, expect, setSystemTime, test } from 'bun:test'
import { utimesSync } from 'node:fs'
import { configFor } from '../../src/config'
import { DELIVERY_JOB } from '../../src/platform/events/worker'
import type { DueWorkSource } from '../../src/platform/jobs/due-index'
import { forEachDueTenant } from '../../src/platform/jobs/tenants'
import type { Platform } from '../../src/platform/platform'
import { checkpointsIdle } from '../../src/platform/tenancy/checkpoints'
import { controlDatabasePath, type Db } from '../../src/platform/tenancy/databases'
import { createTenant } from '../../src/platform/tenancy/tenants'
import { commitsPending, inWriteTransaction } from '../../src/platform/tenancy/transaction'
import { createApp } from '../../src/server'
import { createTestApp, type TenantFixture, type TestApp } from '../harness'

/** A job with work due at the tenant's `user_version` (seconds since the epoch), none when 0. */
const versionDue: DueWorkSource = {
  job: 'test.version-due',
  nextWork: (_tenant, db) => {
    const { user_version } = db.$client.query('PRAGMA user_version').get() as { user_version: number }
    return user_version > 0 ? user_version * 1000 : null
  },
}

/** Through the service's write path: the commit is what the index hears of. */
async function dueAt(db: Db, at: number) {
  inWriteTransaction(db, () => db.$client.run(`PRAGMA user_version = ${Math.floor(at / 1000)}`))
  await commitsPending()
}

const signal = () => new AbortController().signal

async function run(platform: Platform, source = versionDue) {
  const visited: string[] = []
  await forEachDueTenant(platform, signal(), source, (tenant) => {
    visited.push(tenant.slug)
  })
  return visited.sort()
}

/**
 * As `serve` stops (platform.shutdown): running jobs finish, the last turn's writes commit, then
 * everything closes; and the process's last WAL checkpoints are done (a worker thread's, rounds of
 * 100 ms), as they are before the process exits. A checkpoint landing after the test has dated a
 * file (below) would date it again, to now.
 */
async function closeCleanly() {
  await t.platform.shutdown()
  while (!checkpointsIdle()) await Bun.sleep(5)
}

/** A new process over the same data directory. */
async function reopen(dataDir: string) {
  const { platform } = await createApp({ config: configFor({ dataDir }) })
  platform.dueIndex.register(versionDue)
  return platform
}

/** Every job's run, as `serve` starts them: the harness's events delivered, every answer known. */
const runEveryJob = async (platform: Platform) => {
  for (const job of platform.jobs.status()) await platform.jobs.runNow(job.name)
}

let t: TestApp
let second: TenantFixture
beforeEach(async () => {
  t = await createTestApp()
  t.platform.dueIndex.register(versionDue)
  second = await t.addTenant('second')
  await runEveryJob(t.platform)
  // Every write above committed and its answers stored: a test starts with nothing pending.
  await commitsPending()
  await run(t.platform)
})
afterEach(async () => {
  setSystemTime()
  await t.close()
})

describe('the due index', () => {
  test('a write stores every job’s answer right after it commits; the work is visited once due', async () => {
    // Created and written by the harness: known, nothing due.
    expect(await run(t.platform)).toEqual([])
    const at = Date.now() + 60_000
    await dueAt(t.tenant.db, at)
    t.platform.dueIndex.flush()
    expect(t.platform.dueIndex.answer(t.tenant.id, versionDue.job)).toBe(Math.floor(at / 1000) * 1000)
    expect(await run(t.platform)).toEqual([])
    setSystemTime(new Date(at))
    expect(await run(t.platform)).toEqual(['acme'])
  })

  test('a request’s write stores the answers within seconds, without a read of the index', async () => {
    expect(t.platform.dueIndex.answer(t.tenant.id, DELIVERY_JOB)).toBeNull()
    const subscription = { object: 'vendor', action: 'create', url: 'https://hooks.example.com/vendors' }
    expect((await t.request('POST', '/web-hook', { body: subscription })).status).toBe(201)
    t.platform.dueIndex.flush()
    expect(t.platform.dueIndex.answer(t.tenant.id, DELIVERY_JOB)).toBeNull()
    expect((await t.request('POST', '/vendor', { body: { name: 'Alder' } })).status).toBe(201)
    // The vendor's event fanned out to a delivery as it committed: due now.
    // Within FLUSH_DELAY_MS (5 s) of the commit.
    const until = Date.now() + 15_000
    while (t.platform.dueIndex.answer(t.tenant.id, DELIVERY_JOB) === null && Date.now() < until)
      await Bun.sleep(5)
    expect(t.platform.dueIndex.answer(t.tenant.id, DELIVERY_JOB)).toBeLessThanOrEqual(Date.now())
  })

  test('a failed visit leaves the work due: it is retried on the next run', async () => {
    await dueAt(t.tenant.db, Date.now() - 1000)
    await dueAt(second.db, Date.now() - 1000)
    let failing = true
    const visit = () =>
      forEachDueTenant(t.platform, signal(), versionDue, (tenant, db) => {
        if (failing && tenant.slug === 'second') throw new Error('broken')
        // The work done: nothing due any more.
        inWriteTransaction(db, () => db.$client.run('PRAGMA user_version = 0'))
      })
    await expect(visit()).rejects.toThrow('1 tenant(s) failed: second: broken')
    failing = false
    expect(await run(t.platform)).toEqual(['second'])
  })

  test('a suspended tenant is not visited; resumed, its due work is', async () => {
    await dueAt(t.tenant.db, Date.now() - 1000)
    t.platform.control.sqlite.run("UPDATE tenants SET status = 'suspended' WHERE slug = 'acme'")
    expect(await run(t.platform)).toEqual([])
    t.platform.control.sqlite.run("UPDATE tenants SET status = 'active' WHERE slug = 'acme'")
    expect(await run(t.platform)).toEqual(['acme'])
  })
})

describe('computing the answers of written tenants', () => {
  /** A job whose answer takes `ms` of the event loop for each tenant, and logs which it answered. */
  const slowSource = (ms: number, log: string[], failFor?: string): DueWorkSource => ({
    job: 'test.slow',
    nextWork: (tenant) => {
      const until = performance.now() + ms
      while (performance.now() < until) {
        // Busy: what a tenant's dozen queries cost the thread.
      }
      log.push(tenant.slug)
      if (tenant.slug === failFor) throw new Error('unreadable')
      return null
    },
  })

  test('a tenant whose answers fail is left to every job’s visit; the tenants written with it keep theirs', async () => {
    const log: string[] = []
    t.platform.dueIndex.register(slowSource(0, log, 'second'))
    await dueAt(t.tenant.db, Date.now() + 60_000)
    await dueAt(second.db, Date.now() + 60_000)
    t.platform.dueIndex.flush()
    expect(log.sort()).toEqual(['acme', 'second'])
    expect(t.platform.dueIndex.answer(t.tenant.id, versionDue.job)).toBeGreaterThan(Date.now())
    expect(t.platform.dueIndex.answer(t.tenant.id, 'test.slow')).toBeNull()
    // Forgotten: every job visits it once, whatever its answers were.
    expect(t.platform.dueIndex.answer(second.id, versionDue.job)).toBeUndefined()
    expect(await run(t.platform)).toEqual(['second'])
  })

  test('a control database that refuses the write ends the flush; the answers are stored at the next try', async () => {
    const at = Date.now() + 60_000
    await dueAt(t.tenant.db, at)
    await dueAt(second.db, Date.now() + 60_000)
    // Another process holds the control database's write lock (in this one, closing its connection
    // would drop the locks of every connection to the file).
    const holder = Bun.spawn(
      [
        process.execPath,
        '-e',
        `const { Database } = require('bun:sqlite')
        const db = new Database(${JSON.stringify(controlDatabasePath(t.dataDir))})
        db.run('BEGIN IMMEDIATE')
        console.log('holding')
        for await (const _ of console) break
        db.run('ROLLBACK')`,
      ],
      { stdin: 'pipe', stdout: 'pipe' },
    )
    const lines = holder.stdout.pipeThrough(new TextDecoderStream()).getReader()
    expect((await lines.read()).value).toContain('holding')
    t.platform.control.sqlite.run('PRAGMA busy_timeout = 0')
    try {
      t.platform.dueIndex.flush()
    } finally {
      t.platform.control.sqlite.run(`PRAGMA busy_timeout = ${t.platform.config.sqliteBusyTimeoutMs}`)
      holder.stdin.write('done\n')
      holder.stdin.end()
      expect(await holder.exited).toBe(0)
    }
    expect(t.platform.dueIndex.answer(t.tenant.id, versionDue.job)).toBeNull()
    // A job's read computes what is still pending first.
    expect(await run(t.platform)).toEqual([])
    expect(t.platform.dueIndex.answer(t.tenant.id, versionDue.job)).toBe(Math.floor(at / 1000) * 1000)
  })

  test('a job’s read of the index computes the pending answers a slice at a time, the event loop served between slices', async () => {
    const log: string[] = []
    // Four tenants at 3 ms each: longer than one slice (5 ms).
    t.platform.dueIndex.register(slowSource(3, log))
    const more = [await t.addTenant('third'), await t.addTenant('fourth')]
    await run(t.platform)
    log.length = 0
    for (const db of [t.tenant.db, second.db, ...more.map((tenant) => tenant.db)]) await dueAt(db, 0)
    // Served at the event loop's next turn: before the last answer if the computation yields.
    let servedAfter = -1
    setImmediate(() => {
      servedAfter = log.length
    })
    expect(await run(t.platform)).toEqual([])
    expect(log.sort()).toEqual(['acme', 'fourth', 'second', 'third'])
    expect(servedAfter).toBeGreaterThan(0)
    expect(servedAfter).toBeLessThan(4)
  })
})

describe('after an HTTP worker died', () => {
  test('a tenant it wrote without telling the primary is visited again once the files are checked again', async () => {
    // The worker's write: its file changed, and the primary's index never heard of it.
    const other = new Database(t.platform.pool.databasePath(second.id))
    // As any program writing the file would: it waits its turn behind this process's checkpoints.
    other.run('PRAGMA busy_timeout = 5000')
    other.run(`PRAGMA user_version = ${Math.floor((Date.now() - 1000) / 1000)}`)
    other.close()
    const later = new Date(Date.now() + 60_000)
    utimesSync(t.platform.pool.databasePath(second.id), later, later)
    expect(await run(t.platform)).toEqual([])
    t.platform.dueIndex.checkFilesAgain()
    // With any tenant written within a moment of its answers (acme, by the harness): file times
    // are too coarse to tell which came first.
    expect(await run(t.platform)).toContain('second')
    // Visited once by each job: its answers are known again.
    await dueAt(second.db, 0)
    expect(await run(t.platform)).toEqual([])
  })
})

describe('after a restart', () => {
  test('due work is found, and no tenant with nothing due is opened by any job', async () => {
    await dueAt(t.tenant.db, Date.now() - 1000)
    await closeCleanly()
    const platform = await reopen(t.dataDir)
    try {
      await runEveryJob(platform)
      expect(platform.pool.stats()).toMatchObject({ open: 0, misses: 0 })
      expect(await run(platform)).toEqual(['acme'])
      expect(platform.pool.stats()).toMatchObject({ misses: 1 })
    } finally {
      platform.close()
    }
  })

  test('a tenant created bare is answered at once: no job opens it', async () => {
    const bare = createTenant(t.platform.control.db, t.platform.pool, {
      slug: 'bare',
      name: 'Bare',
      timezone: 'UTC',
    })
    t.platform.dueIndex.flush()
    expect(t.platform.dueIndex.answer(bare.id, DELIVERY_JOB)).toBeNull()
    await closeCleanly()
    const platform = await reopen(t.dataDir)
    try {
      await runEveryJob(platform)
      expect(platform.pool.stats()).toMatchObject({ open: 0, misses: 0 })
    } finally {
      platform.close()
    }
  })

  test('a tenant written without the index (its file modified after its answers) is visited again', async () => {
    const tenantIds = (
      t.platform.control.sqlite.query('SELECT id FROM tenants').all() as { id: string }[]
    ).map((row) => row.id)
    await closeCleanly()
    // Another program writes the second tenant's file: nothing stores its answers.
    const second = tenantIds.find((id) => id !== t.tenant.id)!
    const other = new Database(t.platform.pool.databasePath(second))
    other.run(`PRAGMA user_version = ${Math.floor((Date.now() - 1000) / 1000)}`)
    other.close()
    // Written a minute after this process closed.
    const later = new Date(Date.now() + 60_000)
    utimesSync(t.platform.pool.databasePath(second), later, later)
    const platform = await reopen(t.dataDir)
    try {
      // Its answers were dropped: each job visits it once, and this one finds its work due.
      expect(await run(platform)).toEqual(['second'])
      expect(await run(platform)).toEqual(['second'])
      await dueAt(platform.pool.get(second).db, 0)
      expect(await run(platform)).toEqual([])
    } finally {
      platform.close()
    }
  })
})
