// WAL checkpoints of tenant databases run off the request path (src/platform/tenancy/checkpoints.ts):
// a write leaves its pages in the WAL, and a worker thread copies them into the database file
// shortly after, so the request that crosses a thousand WAL pages no longer pays for the copy.
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { BACKSTOP_PAGES } from '../../src/platform/tenancy/checkpoints'
import { tenantDatabasePath } from '../../src/platform/tenancy/databases'
import { sqliteOf } from '../../src/platform/tenancy/transaction'
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
