// WAL checkpoints of tenant databases run off the request path (src/platform/tenancy/checkpoints.ts):
// a write leaves its pages in the WAL, and a worker thread copies them into the database file
// shortly after, so the request that crosses a thousand WAL pages no longer pays for the copy.
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { BACKSTOP_PAGES, checkpointsIdle, restartWal } from '../../src/platform/tenancy/checkpoints'
import { tenantDatabasePath } from '../../src/platform/tenancy/databases'
import { commitsPending, sqliteOf } from '../../src/platform/tenancy/transaction'
import { walLogBytes } from '../../src/platform/tenancy/wal-log'
import { postAs, sharedDataDir, tenantWithOwner } from '../e2e/cli'
import { createTestApp, type TestApp } from '../harness'
import { makeTestDir, removeTestDir } from '../temp-dirs'

/** The customers a copy of the database file alone (no WAL) holds: what checkpoints wrote there. */
function customersInFileAlone(path: string, emailLike: string): number {
  const dir = makeTestDir('copy')
  try {
    copyFileSync(path, join(dir, 'copy.sqlite'))
    const copy = new Database(join(dir, 'copy.sqlite'), { readonly: true })
    try {
      return copy
        .query<{ n: number }, [string]>('SELECT count(*) AS n FROM customers WHERE email LIKE ?')
        .get(emailLike)!.n
    } finally {
      copy.close(false)
    }
  } finally {
    removeTestDir(dir)
  }
}

async function eventually(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs
  const met = () => {
    try {
      return check()
    } catch {
      // e.g. the tables themselves not in the file yet
      return false
    }
  }
  while (!met()) {
    if (Date.now() > until) throw new Error('condition not met in time')
    await Bun.sleep(20)
  }
}

describe('WAL checkpoints of tenant databases', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  test('SQLite checkpoints in a request only past the backstop; the worker copies each write soon after', async () => {
    const sqlite = sqliteOf(t.tenant.db)
    expect(sqlite.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get()).toEqual({
      wal_autocheckpoint: BACKSTOP_PAGES,
    })
    const path = tenantDatabasePath(t.dataDir, t.tenant.id)
    for (let i = 0; i < 40; i++) {
      const created = await t.request('POST', '/customers', {
        body: { firstName: 'Wal', lastName: `Writer ${i}`, email: `wal-${i}@checkpoint.test` },
      })
      expect(created.status).toBe(201)
    }
    // Forty creates are far below the backstop: only the background checkpoint puts them in the file.
    await eventually(() => customersInFileAlone(path, 'wal-%@checkpoint.test') === 40)
    // And it is over: the worker thread's connection, still taking its last step once the pages are
    // copied, would make the next test's RESTART find the file busy.
    await eventually(checkpointsIdle)
  })

  test("the request thread's last step never waits: a held lock is 'try again', a free one restarts the WAL", async () => {
    const created = await t.request('POST', '/customers', {
      body: { firstName: 'Last', lastName: 'Step', email: 'last-step@checkpoint.test' },
    })
    expect(created.status).toBe(201)
    // As its callers do, outside any group of writes on the connection.
    await commitsPending()
    const sqlite = sqliteOf(t.tenant.db)
    const busyTimeoutMs = t.platform.config.sqliteBusyTimeoutMs
    const other = new Database(tenantDatabasePath(t.dataDir, t.tenant.id))
    try {
      other.exec('BEGIN IMMEDIATE')
      const started = performance.now()
      expect(restartWal(sqlite, busyTimeoutMs)).toBe(false)
      expect(performance.now() - started).toBeLessThan(1_000)
      other.exec('COMMIT')
      expect(restartWal(sqlite, busyTimeoutMs)).toBe(true)
      // Every frame is in the file, and the connection waits for the lock again as configured.
      expect(sqlite.query('PRAGMA wal_checkpoint(PASSIVE)').get()).toMatchObject({ busy: 0 })
      expect(sqlite.query('PRAGMA busy_timeout').get()).toEqual({ timeout: busyTimeoutMs })
    } finally {
      other.close()
    }
  })

  test('a tenant deleted before its checkpoint is skipped; the others are still checkpointed', async () => {
    const gone = await t.addTenant('checkpoint-gone')
    const write = (tenant: typeof gone, email: string) =>
      t.request('POST', '/customers', {
        tenant,
        as: tenant.owner,
        body: { firstName: 'Round', lastName: 'Trip', email },
      })
    expect((await write(gone, 'gone@checkpoint.test')).status).toBe(201)
    t.platform.pool.destroy(gone.id)
    expect((await write(t.tenant, 'kept@checkpoint.test')).status).toBe(201)
    const path = tenantDatabasePath(t.dataDir, t.tenant.id)
    await eventually(() => customersInFileAlone(path, 'kept@checkpoint.test') === 1)
  })
})

describe('the WAL under steady writes through two HTTP workers', () => {
  const shared = sharedDataDir({ WORKERS: '2' })

  // A group of writes is open at nearly every moment under load, and two processes write: the
  // last step of a checkpoint must still find the lock free, copy the last frames and leave the
  // WAL to start over. When it did not, the WAL grew to the backstop (80 MB) and SQLite copied it
  // inside a commit.
  test('starts over again and again: it stays far below the backstop', async () => {
    const { tenant, token } = await tenantWithOwner(shared.cli, 'steady')
    const server = await shared.startServer()
    const path = tenantDatabasePath(shared.env.DATA_DIR, tenant.id)
    const until = performance.now() + 4_000
    let largest = 0
    const sampler = setInterval(() => {
      largest = Math.max(largest, walLogBytes(path))
    }, 50)
    let written = 0
    try {
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (performance.now() < until) {
            const response = await postAs(server, token, 'steady', '/customers', {
              firstName: 'Steady',
              lastName: 'Writer',
              email: `w${++written}@steady.test`,
            })
            expect(response.status).toBe(201)
          }
        }),
      )
    } finally {
      clearInterval(sampler)
    }
    // Here a WAL that never started over reached the backstop (83 MB) in these four seconds;
    // starting over after each round of checkpoints, it stayed under 4 MB.
    expect(written).toBeGreaterThan(1_000)
    expect(largest).toBeLessThan((BACKSTOP_PAGES * 4096) / 4)
  }, 60_000)
})
