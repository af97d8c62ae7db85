// The WAL's log length read from the file without a connection (src/platform/tenancy/wal-log.ts):
// right while the WAL keeps its blocks across start-overs, and harmless to the connections of the
// process that reads it.
import type { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { openSqlite } from '../../src/platform/tenancy/sqlite'
import { walLogBytes, walLogReaches } from '../../src/platform/tenancy/wal-log'
import { makeTestDir, removeTestDir } from '../temp-dirs'

const FRAME_BYTES = 4096 + 24
const dirs: string[] = []
const open: Database[] = []
afterEach(() => {
  for (const db of open.splice(0)) db.close()
  for (const dir of dirs.splice(0)) removeTestDir(dir)
})

function database(): { db: Database; path: string } {
  const dir = makeTestDir('wal-log')
  dirs.push(dir)
  const path = join(dir, 'tenant.sqlite')
  const db = openSqlite(path, { synchronous: 'NORMAL', busyTimeoutMs: 5_000, walCheckpoint: 'background' })
  open.push(db)
  db.exec('CREATE TABLE rows (body TEXT)')
  return { db, path }
}

const insert = (db: Database, rows: number) => {
  const statement = db.prepare('INSERT INTO rows VALUES (?)')
  for (let i = 0; i < rows; i++) statement.run('x'.repeat(2_000))
  // An unfinalized statement would hold the connection open past close(), and the WAL with it.
  statement.finalize()
}
/** The frames in the log, as SQLite counts them (a PASSIVE checkpoint answers with it). */
const framesBySqlite = (db: Database) =>
  db.query<{ log: number }, []>('PRAGMA wal_checkpoint(PASSIVE)').get()!.log

describe('walLogBytes', () => {
  test('is the log SQLite counts, not the file, once the WAL has started over inside its kept blocks', () => {
    const { db, path } = database()
    insert(db, 400)
    expect(walLogBytes(path)).toBe(32 + framesBySqlite(db) * FRAME_BYTES)
    expect(walLogReaches(path, 200 * FRAME_BYTES)).toBe(true)
    const grown = statSync(`${path}-wal`).size
    expect(grown).toBeGreaterThan(200 * FRAME_BYTES)

    // Every frame copied; the next write starts the log over at the file's start.
    expect(db.query('PRAGMA wal_checkpoint(RESTART)').get()).toMatchObject({ busy: 0 })
    insert(db, 3)
    const frames = framesBySqlite(db)
    expect(frames).toBeLessThan(10)
    expect(walLogBytes(path)).toBe(32 + frames * FRAME_BYTES)
    // The file kept its blocks: its size alone would still say hundreds of frames.
    expect(statSync(`${path}-wal`).size).toBe(grown)
    expect(walLogReaches(path, 100 * FRAME_BYTES)).toBe(false)
    expect(walLogReaches(path, 32 + frames * FRAME_BYTES)).toBe(true)
  })

  test('is 0 without a WAL, and once the last connection emptied it', () => {
    const { db, path } = database()
    insert(db, 10)
    expect(walLogBytes(path)).toBeGreaterThan(0)
    db.close()
    open.splice(0)
    expect(statSync(`${path}-wal`).size).toBe(0)
    expect(walLogBytes(path)).toBe(0)
    expect(walLogBytes(join(dirs[0]!, 'none.sqlite'))).toBe(0)
  })

  test("keeps this process's locks: another process still sees its reader", () => {
    const { db, path } = database()
    insert(db, 50)
    db.exec('BEGIN')
    db.query('SELECT count(*) FROM rows').get()
    try {
      walLogBytes(path)
      // A reader here holds a read lock on the WAL index (-shm). Opening and closing the -shm
      // would have dropped it, and the other process's TRUNCATE checkpoint would then complete.
      const other = Bun.spawnSync([
        process.execPath,
        '-e',
        `const db = new (require('bun:sqlite').Database)(${JSON.stringify(path)});
         db.exec("INSERT INTO rows VALUES ('y')");
         console.log(db.query('PRAGMA wal_checkpoint(TRUNCATE)').get().busy); db.close()`,
      ])
      expect(other.stdout.toString().trim()).toBe('1')
    } finally {
      db.exec('COMMIT')
    }
  })
})
