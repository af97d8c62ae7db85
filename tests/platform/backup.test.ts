// Restore drills: write data, back it up (snapshots, or the real Litestream binary replicating to
// a file replica), delete the tenant's files, restore, and every row and audit entry is back.

import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tenantMigrations } from '../../migrations/embedded'
import { backedUpDatabases } from '../../src/platform/backup/databases'
import {
  LitestreamSupervisor,
  litestreamConfig,
  resolveLitestreamBinary,
} from '../../src/platform/backup/litestream'
import { litestreamLogLine } from '../../src/platform/backup/litestream-process'
import { RestoreError, restoreTenant } from '../../src/platform/backup/restore'
import { listSnapshots, pruneSnapshots, takeSnapshot } from '../../src/platform/backup/snapshots'
import { litestreamMetaDir } from '../../src/platform/cluster/replica'
import { createLogger, type Logger } from '../../src/platform/foundation/log'
import { TenantPool, tenantDatabasePath } from '../../src/platform/tenancy/databases'
import { migrate } from '../../src/platform/tenancy/migrator'
import { openSqlite } from '../../src/platform/tenancy/sqlite'
import { inWriteTransaction } from '../../src/platform/tenancy/transaction'
import { createTestApp, type TestApp } from '../harness'
import { makeTestDir, removeTestDir } from '../temp-dirs'

// Last made, first undone, each awaited: Litestream must have stopped before its data directory goes.
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

async function appWithVendors(names: string[]) {
  const t = await createTestApp()
  const backupDir = makeTestDir('backups')
  cleanups.push(() => removeTestDir(backupDir))
  for (const name of names) expect((await t.request('POST', '/vendor', { body: { name } })).status).toBe(201)
  return { t, backupDir }
}

const vendorNames = (path: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return (db.query('SELECT name FROM vendors ORDER BY name').all() as { name: string }[]).map((r) => r.name)
  } finally {
    db.close()
  }
}

/** Closes the app and deletes the tenant's files, as a lost disk would. */
function loseTenant(t: TestApp) {
  t.platform.close()
  const path = tenantDatabasePath(t.dataDir, t.tenant.id)
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
  expect(existsSync(path)).toBe(false)
  return path
}

describe('snapshots', () => {
  test('restore drill: every row and audit entry is back, verified', async () => {
    const { t, backupDir } = await appWithVendors(['Alder', 'Birch'])
    cleanups.push(() => t.close())
    const auditBefore = t.tenant.db.$client.query('SELECT count(*) AS n FROM audit_entries').get() as {
      n: number
    }
    takeSnapshot(backupDir, backedUpDatabases(t.dataDir, t.platform.control.db))
    const path = loseTenant(t)
    const report = await restoreTenant({ dataDir: t.dataDir, backupDir, tenant: t.tenant, from: 'snapshot' })
    expect(report).toMatchObject({ tenant: 'acme', from: 'snapshot', restoredTo: path, integrity: 'ok' })
    expect(report.auditEntries).toBe(auditBefore.n)
    expect(report.tables.vendors).toBe(2)
    expect(vendorNames(path)).toEqual(['Alder', 'Birch'])
  })

  test('a restored file shares its WAL index with other processes: no write is lost when another starts the WAL over', async () => {
    // A tenant database as migrations make it, in a snapshot (a test app would do, but its
    // garbage lets the collector hide what a lingering connection does).
    const dataDir = makeTestDir('restore')
    cleanups.push(() => removeTestDir(dataDir))
    const backupDir = join(dataDir, 'backups')
    const tenant = { id: 'tenant-1', slug: 'one' }
    const source = openSqlite(join(dataDir, 'source.sqlite'), { synchronous: 'NORMAL', busyTimeoutMs: 5000 })
    migrate(source, tenantMigrations)
    const { dir } = takeSnapshot(backupDir, [{ name: tenant.id, path: join(dataDir, 'source.sqlite') }])
    source.close()
    // In WAL mode, as Litestream restores a replica.
    const snapshot = new Database(join(dir, `${tenant.id}.sqlite`))
    snapshot.exec('PRAGMA journal_mode = WAL')
    snapshot.close()
    await restoreTenant({ dataDir, backupDir, tenant, from: 'snapshot' })
    const path = tenantDatabasePath(dataDir, tenant.id)
    // As on a new owner: this process writes, Litestream (another process) checkpoints and writes,
    // which starts the WAL over, and this process writes again.
    const inOtherProcess = (script: string) =>
      Bun.spawnSync([
        process.execPath,
        '-e',
        `const db = new (require('bun:sqlite').Database)(${JSON.stringify(path)}); db.exec('PRAGMA busy_timeout = 5000'); ${script}; db.close()`,
      ])
        .stdout.toString()
        .trim()
    const app = new Database(path, { readwrite: true, strict: true })
    cleanups.push(() => app.close())
    app.exec('PRAGMA busy_timeout = 5000')
    app.exec('CREATE TABLE probe (n INTEGER)')
    app.exec('INSERT INTO probe VALUES (1)')
    inOtherProcess(`db.exec('PRAGMA wal_checkpoint(PASSIVE)'); db.exec('INSERT INTO probe VALUES (100)')`)
    for (const n of [2, 3, 4]) app.exec(`INSERT INTO probe VALUES (${n})`)
    const rows = 'SELECT group_concat(n) AS ns FROM (SELECT n FROM probe ORDER BY n)'
    expect(app.query<{ ns: string }, []>(rows).get()!.ns).toBe('1,2,3,4,100')
    // Before the fix this process saw 1,2,3,4 and a new connection 1,100.
    expect(inOtherProcess(`console.log(db.query(${JSON.stringify(rows)}).get().ns)`)).toBe('1,2,3,4,100')
  })

  test('under Litestream, the pool reports the commits that changed rows, not the ones that changed nothing', () => {
    const dataDir = makeTestDir('pool')
    cleanups.push(() => removeTestDir(dataDir))
    const pool = new TenantPool(
      dataDir,
      { memoryBytes: 64 << 20, maxOpen: 4 },
      {
        synchronous: 'NORMAL',
        busyTimeoutMs: 5000,
        walCheckpoint: 'external',
      },
    )
    cleanups.push(() => pool.close())
    const reported: string[] = []
    pool.committed = (path) => void reported.push(path)
    const { db, sqlite } = pool.create('tenant-1')
    const write = (sql: string) => inWriteTransaction(db, () => void sqlite.query(sql).run())
    write('DELETE FROM vendors WHERE id IS NULL')
    expect(reported).toEqual([])
    write('UPDATE auth_version SET version = version + 1')
    expect(reported).toEqual([tenantDatabasePath(dataDir, 'tenant-1')])
    write('DELETE FROM vendors WHERE id IS NULL')
    expect(reported).toHaveLength(1)
  })

  test('point in time: a snapshot before a later write leaves that write out', async () => {
    const { t, backupDir } = await appWithVendors(['Alder'])
    cleanups.push(() => t.close())
    const databases = () => backedUpDatabases(t.dataDir, t.platform.control.db)
    const first = takeSnapshot(backupDir, databases(), new Date(Date.now() - 60_000))
    await t.request('POST', '/vendor', { body: { name: 'Later' } })
    takeSnapshot(backupDir, databases())
    const out = join(backupDir, 'restored.sqlite')
    await restoreTenant({
      dataDir: t.dataDir,
      backupDir,
      tenant: t.tenant,
      from: 'snapshot',
      timestamp: new Date(Date.parse(first.takenAt) + 1000),
      to: out,
    })
    expect(vendorNames(out)).toEqual(['Alder'])
  })

  test('retention keeps the newest snapshots', async () => {
    const { t, backupDir } = await appWithVendors([])
    cleanups.push(() => t.close())
    for (let i = 0; i < 4; i++) {
      takeSnapshot(
        backupDir,
        backedUpDatabases(t.dataDir, t.platform.control.db),
        new Date(Date.UTC(2026, 0, 1, i)),
      )
    }
    expect(pruneSnapshots(backupDir, 2)).toEqual(['2026-01-01T00-00-00-000Z', '2026-01-01T01-00-00-000Z'])
    expect(listSnapshots(backupDir).map((s) => s.takenAt)).toEqual([
      '2026-01-01T02:00:00.000Z',
      '2026-01-01T03:00:00.000Z',
    ])
  })

  test('a tampered audit trail is refused and nothing is put in place', async () => {
    const { t, backupDir } = await appWithVendors(['Alder'])
    cleanups.push(() => t.close())
    const sqlite = t.tenant.db.$client
    sqlite.exec('DROP TRIGGER audit_entries_no_update')
    sqlite.exec(`UPDATE audit_entries SET action = 'forged' WHERE seq = 1`)
    takeSnapshot(backupDir, backedUpDatabases(t.dataDir, t.platform.control.db))
    const out = join(backupDir, 'x.sqlite')
    await expect(
      restoreTenant({ dataDir: t.dataDir, backupDir, tenant: t.tenant, from: 'snapshot', to: out }),
    ).rejects.toThrow(/audit chain broken/)
    expect(existsSync(out)).toBe(false)
  })

  test('in place is refused while a server holds the data directory', async () => {
    const { t, backupDir } = await appWithVendors([])
    cleanups.push(() => t.close())
    takeSnapshot(backupDir, backedUpDatabases(t.dataDir, t.platform.control.db))
    const server = Bun.spawn(['sleep', '30'])
    cleanups.push(() => server.kill())
    writeFileSync(join(t.dataDir, 'serve.pid'), String(server.pid))
    await expect(
      restoreTenant({ dataDir: t.dataDir, backupDir, tenant: t.tenant, from: 'snapshot' }),
    ).rejects.toThrow(RestoreError)
  })
})

const litestream = resolveLitestreamBinary(process.env.LITESTREAM_BIN)

/** Litestream replicating the test app's databases to the file replica `replicaUrl`. */
const replicatorOf = (
  t: TestApp,
  replicaUrl: string,
  backoffMs?: { base: number; max: number },
  log: Logger = createLogger('silent'),
) =>
  new LitestreamSupervisor({
    binary: litestream!,
    configPath: join(t.dataDir, 'litestream.yml'),
    replicaUrl,
    log,
    listDatabases: () => backedUpDatabases(t.dataDir, t.platform.control.db),
    backoffMs,
  })

/** Restore options for the tenant of `t` from its Litestream replica. */
const fromReplica = (t: TestApp, backupDir: string, replicaUrl: string) => ({
  dataDir: t.dataDir,
  backupDir,
  tenant: t.tenant,
  from: 'replica' as const,
  replicaUrl,
  litestreamBin: litestream,
})

describe.if(litestream !== null)('litestream replica', () => {
  test('restore drill and point-in-time restore against the real binary', async () => {
    const { t, backupDir } = await appWithVendors(['Alder', 'Birch'])
    cleanups.push(() => t.close())
    const replicaUrl = `file://${join(backupDir, 'replica')}`
    const supervisor = replicatorOf(t, replicaUrl)
    supervisor.start()
    cleanups.push(() => supervisor.stop())
    await Bun.sleep(2500)
    const beforeLater = new Date()
    await Bun.sleep(1200)
    await t.request('POST', '/vendor', { body: { name: 'Later' } })
    await Bun.sleep(2500)
    await supervisor.stop()

    const options = fromReplica(t, backupDir, replicaUrl)
    const pointInTime = join(backupDir, 'pit.sqlite')
    await restoreTenant({ ...options, timestamp: beforeLater, to: pointInTime })
    expect(vendorNames(pointInTime)).toEqual(['Alder', 'Birch'])

    const path = loseTenant(t)
    const report = await restoreTenant(options)
    expect(report).toMatchObject({ from: 'replica', integrity: 'ok', restoredTo: path })
    expect(vendorNames(path)).toEqual(['Alder', 'Birch', 'Later'])
  }, 30_000)

  test('a replica whose newest point does not verify: the newest earlier point that does is restored', async () => {
    const { t, backupDir } = await appWithVendors(['Alder', 'Birch'])
    cleanups.push(() => t.close())
    const replicaUrl = `file://${join(backupDir, 'replica')}`
    const path = tenantDatabasePath(t.dataDir, t.tenant.id)
    const supervisor = replicatorOf(t, replicaUrl)
    supervisor.start()
    cleanups.push(() => supervisor.stop())
    const uploaded = supervisor.follow(path, 20_000)
    await uploaded()
    const sqlite = t.tenant.db.$client
    const entries = (sqlite.query('SELECT count(*) AS n FROM audit_entries').get() as { n: number }).n
    // Restores pick points by whole seconds: the bad write goes two seconds after the good ones.
    await Bun.sleep(2100)
    // An entry that breaks the audit chain (a copy of the last one, its hashes unchanged), as a
    // replica restoring corrupt would: the newest point fails verification.
    const columns = (sqlite.query('PRAGMA table_info(audit_entries)').all() as { name: string }[]).map(
      (c) => c.name,
    )
    const values = columns.map((c) => (c === 'id' ? "'forged'" : c === 'seq' ? 'seq + 1' : `"${c}"`))
    sqlite.run(
      `INSERT INTO audit_entries (${columns.map((c) => `"${c}"`).join(', ')}) SELECT ${values.join(', ')} FROM audit_entries ORDER BY seq DESC LIMIT 1`,
    )
    await uploaded()
    await supervisor.stop()

    loseTenant(t)
    const report = await restoreTenant(fromReplica(t, backupDir, replicaUrl))
    expect(report.auditEntries).toBe(entries)
    expect(vendorNames(path)).toEqual(['Alder', 'Birch'])
  }, 30_000)

  test('two generations last written in the same second: the one holding the newer writes is restored', async () => {
    const { t, backupDir } = await appWithVendors(['Alder'])
    cleanups.push(() => t.close())
    const replicaUrl = `file://${join(backupDir, 'replica')}`
    const replicate = async () => {
      const supervisor = replicatorOf(t, replicaUrl)
      supervisor.start()
      await Bun.sleep(2500)
      await supervisor.stop()
    }
    const path = tenantDatabasePath(t.dataDir, t.tenant.id)
    const generationsDir = join(backupDir, 'replica', t.tenant.id, 'generations')
    await replicate()
    const stale = readdirSync(generationsDir)[0]!
    // Litestream starts a new generation when its state beside the database is gone (as on a node
    // that restored the tenant), and this one holds the newer write.
    await t.request('POST', '/vendor', { body: { name: 'Birch' } })
    rmSync(litestreamMetaDir(path), { recursive: true, force: true })
    await replicate()
    const fresh = readdirSync(generationsDir).find((g) => g !== stale)!
    expect(fresh).toBeDefined()
    // Both last written within one second, the stale one later in it: S3 lists whole seconds, so
    // Litestream alone would see a tie and take the first by name; a file replica shows what it
    // then risks, picking the stale generation by its finer time.
    const second = Math.floor(Date.now() / 1000) * 1000
    const touch = (generation: string, at: number) => {
      for (const entry of readdirSync(join(generationsDir, generation), { recursive: true }))
        utimesSync(join(generationsDir, generation, String(entry)), new Date(at), new Date(at))
    }
    touch(fresh, second + 100)
    touch(stale, second + 900)
    const byLitestream = join(backupDir, 'litestream-choice.sqlite')
    const config = join(backupDir, 'choice.yml')
    writeFileSync(config, litestreamConfig([{ name: t.tenant.id, path }], replicaUrl))
    expect(
      Bun.spawnSync([litestream!, 'restore', '-config', config, '-o', byLitestream, path]).exitCode,
    ).toBe(0)
    expect(vendorNames(byLitestream)).toEqual(['Alder'])

    loseTenant(t)
    await restoreTenant(fromReplica(t, backupDir, replicaUrl))
    expect(vendorNames(path)).toEqual(['Alder', 'Birch'])
  }, 30_000)

  test('a database file replaced under Litestream (a restore) restarts it, and later writes reach the replica', async () => {
    const { t, backupDir } = await appWithVendors(['Alder'])
    cleanups.push(() => t.close())
    const replicaUrl = `file://${join(backupDir, 'replica')}`
    const supervisor = replicatorOf(t, replicaUrl)
    supervisor.start()
    cleanups.push(() => supervisor.stop())
    await Bun.sleep(1500)
    // As a node restoring a tenant does: a new file at the same path, Litestream's state beside it gone.
    const path = tenantDatabasePath(t.dataDir, t.tenant.id)
    const copy = join(backupDir, 'copy.sqlite')
    t.platform.pool.get(t.tenant.id).sqlite.query('VACUUM INTO ?').run(copy)
    t.platform.pool.destroy(t.tenant.id)
    renameSync(copy, path)
    rmSync(litestreamMetaDir(path), { recursive: true, force: true })
    expect(supervisor.syncDatabases()).toBe(true)
    expect(supervisor.syncDatabases()).toBe(false)
    await t.request('POST', '/vendor', { body: { name: 'Birch' } })
    await Bun.sleep(2500)
    await supervisor.stop()

    loseTenant(t)
    await restoreTenant(fromReplica(t, backupDir, replicaUrl))
    expect(vendorNames(path)).toEqual(['Alder', 'Birch'])
  }, 30_000)

  test('a new tenant restarts Litestream with it; a killed Litestream is restarted', async () => {
    const { t, backupDir } = await appWithVendors([])
    cleanups.push(() => t.close())
    const supervisor = replicatorOf(t, `file://${join(backupDir, 'replica')}`, { base: 50, max: 100 })
    supervisor.start()
    cleanups.push(() => supervisor.stop())
    expect(supervisor.syncDatabases()).toBe(false)
    const pid = () => supervisor.status().processes[0]!.pid
    const firstPid = pid()
    await t.addTenant('second')
    expect(supervisor.syncDatabases()).toBe(true)
    await Bun.sleep(300)
    const status = supervisor.status()
    expect(status).toMatchObject({ state: 'running', databases: 3 })
    const secondPid = pid()
    expect(secondPid).not.toBe(firstPid)
    process.kill(secondPid!, 'SIGKILL')
    await Bun.sleep(400)
    expect(supervisor.status()).toMatchObject({ state: 'running', restarts: 1 })
    expect(pid()).not.toBe(secondPid)
  }, 30_000)

  test('a database that keeps failing gets a Litestream process of its own', async () => {
    const { t, backupDir } = await appWithVendors(['Alder'])
    cleanups.push(() => t.close())
    const second = await t.addTenant('second')
    const supervisor = new LitestreamSupervisor({
      binary: litestream!,
      configPath: join(t.dataDir, 'litestream.yml'),
      replicaUrl: `file://${join(backupDir, 'replica')}`,
      log: createLogger('silent'),
      listDatabases: () => backedUpDatabases(t.dataDir, t.platform.control.db),
      intervalMs: 100,
    })
    supervisor.start()
    cleanups.push(() => supervisor.stop())
    const path = tenantDatabasePath(t.dataDir, second.id)
    const stateOf = (name: string) => supervisor.databases().find((d) => d.name === name)?.state
    const deadline = Date.now() + 10_000
    while (supervisor.databases().some((d) => d.lastSyncAt === null) && Date.now() < deadline)
      await Bun.sleep(50)
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
    while (stateOf(second.id) !== 'isolated' && Date.now() < deadline) await Bun.sleep(50)
    expect(stateOf(second.id)).toBe('isolated')
    await Bun.sleep(300)
    // Before, it was only taken out of the process it shared, and no process replicated it.
    expect(supervisor.status().processes.map((p) => p.databases)).toEqual([2, 1])
    expect(stateOf(t.tenant.id)).toBe('replicating')
  }, 30_000)

  test("Litestream's log lines reach ours at their level", async () => {
    const { t, backupDir } = await appWithVendors(['Alder'])
    cleanups.push(() => t.close())
    const lines: { level: string; msg: string }[] = []
    const capture = (level: string) => (msg: string) => void lines.push({ level, msg })
    const log = {
      debug: capture('debug'),
      info: capture('info'),
      warn: capture('warn'),
      error: capture('error'),
    }
    const supervisor = replicatorOf(t, `file://${join(backupDir, 'replica')}`, undefined, log)
    supervisor.start()
    cleanups.push(() => supervisor.stop())
    await Bun.sleep(1500)
    expect(lines).toContainEqual({ level: 'debug', msg: 'litestream: initialized db' })
    expect(lines).toContainEqual({ level: 'debug', msg: 'litestream: sync: new generation' })
  }, 30_000)
})

test('a Litestream log line: its level mapped, its message unquoted, the rest kept', () => {
  const line =
    'time=2026-11-23T22:06:55.911Z level=ERROR msg="sync error" db=/d/t.sqlite error="create generation: no such file"'
  expect(litestreamLogLine(line)).toMatchObject({
    level: 'error',
    msg: 'sync error',
    detail: 'msg="sync error" db=/d/t.sqlite error="create generation: no such file"',
    fields: { db: '/d/t.sqlite', error: 'create generation: no such file' },
  })
  expect(litestreamLogLine('time=x level=INFO msg=litestream version=v0.3.13')).toMatchObject({
    level: 'debug',
    msg: 'litestream',
  })
  expect(litestreamLogLine('panic: something')).toMatchObject({ level: 'warn', msg: 'panic: something' })
  // An upload cut short by a stop, on every restart: not an error worth an operator's attention.
  const stopped =
    'time=x level=ERROR msg="monitor error" db=/d/t.sqlite error="client write: context canceled"'
  expect(litestreamLogLine(stopped)).toMatchObject({ level: 'debug', msg: 'monitor error' })
})

test('a Litestream that ignores SIGTERM is killed, so a stop or restart cannot hang', async () => {
  const dir = makeTestDir('stuck-litestream')
  cleanups.push(() => removeTestDir(dir))
  // Stands in for Litestream hung in its last sync: SIGTERM is ignored (inherited through exec).
  const binary = join(dir, 'stuck-litestream')
  writeFileSync(binary, "#!/bin/sh\ntrap '' TERM\nexec sleep 60\n", { mode: 0o755 })
  const warnings: string[] = []
  const log = { ...createLogger('silent'), warn: (msg: string) => void warnings.push(msg) }
  const supervisor = new LitestreamSupervisor({
    binary,
    configPath: join(dir, 'litestream.yml'),
    replicaUrl: `file://${join(dir, 'replica')}`,
    log,
    // A database that does not exist yet: Litestream waits for it.
    listDatabases: () => [{ name: 'waiting', path: join(dir, 'waiting.sqlite') }],
  })
  supervisor.start()
  await Bun.sleep(200)
  const started = Date.now()
  await supervisor.stop()
  expect(Date.now() - started).toBeLessThan(10_000)
  expect(warnings).toEqual(['litestream did not stop after SIGTERM; killing it'])
  expect(supervisor.status().lastExit?.code).not.toBe(0)
}, 15_000)
