// GET /backups (the tenant's own database) and GET /admin/v1/backups (every database).
import { afterEach, beforeEach, describe, expect, onTestFinished, test } from 'bun:test'
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { backedUpDatabases } from '../../../src/platform/backup/databases'
import { takeSnapshot } from '../../../src/platform/backup/snapshots'
import { systemOperator } from '../../../src/platform/operator/audit'
import { createOperatorKey } from '../../../src/platform/operator/keys'
import { createTestApp, type TestApp } from '../../harness'
import { makeTestDir, removeTestDir } from '../../temp-dirs'

describe('backups', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  const snapshot = (at: string) =>
    takeSnapshot(
      t.platform.config.backupDir,
      backedUpDatabases(t.dataDir, t.platform.control.db),
      new Date(at),
    )

  test('the tenant sees its own database, the snapshots holding it and the restore window', async () => {
    const other = await t.addTenant('other')
    snapshot('2030-01-01T00:00:00.000Z')
    snapshot('2030-01-02T00:00:00.000Z')
    const res = await t.request('GET', '/backups', { as: t.tenant.readOnly })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      mode: 'scheduled-snapshots',
      snapshotIntervalSeconds: 3600,
      replication: null,
      pointInTime: {
        continuous: false,
        earliest: '2030-01-01T00:00:00.000Z',
        latest: '2030-01-02T00:00:00.000Z',
      },
    })
    expect(res.body.databases).toEqual([
      expect.objectContaining({
        name: t.tenant.id,
        tenantSlug: 'acme',
        snapshots: 2,
        lastSnapshotAt: '2030-01-02T00:00:00.000Z',
        replica: null,
      }),
    ])
    expect(res.body.databases[0].sizeBytes).toBeGreaterThan(0)
    expect(res.body.snapshots.map((s: any) => s.databases)).toEqual([[t.tenant.id], [t.tenant.id]])
    expect(res.body.snapshots[0].bytes).toBeGreaterThan(0)
    expect(res.body.restore[0]).toContain('restore --tenant acme --from snapshot')
    expect(res.text).not.toContain(other.id)
  })

  test('no snapshots yet: an empty window', async () => {
    const res = await t.request('GET', '/backups')
    expect(res.body.pointInTime).toEqual({ continuous: false, earliest: null, latest: null })
    expect(res.body.snapshots).toEqual([])
  })

  test('staff users, location-bound callers and anonymous callers are refused', async () => {
    const B = t.addLocation(t.tenant, { name: 'B', timezone: 'UTC' }).id
    const boundManager = await t.addStaff(t.tenant, { role: 'manager', locationId: B })
    expect((await t.request('GET', '/backups', { as: t.tenant.staff })).status).toBe(403)
    expect((await t.request('GET', '/backups', { as: boundManager })).status).toBe(403)
    expect((await t.request('GET', '/backups', { as: null })).status).toBe(401)
  })

  test('the operator sees every database; tenant tokens are 403 there', async () => {
    const other = await t.addTenant('other')
    snapshot('2030-01-01T00:00:00.000Z')
    const key = createOperatorKey(t.platform.control.db, systemOperator('test'), { name: 'tests' }).token
    const res = await t.request('GET', '/admin/v1/backups', { as: key, tenant: null })
    expect(res.status).toBe(200)
    expect(res.body.databases.map((d: any) => [d.name, d.tenantSlug])).toEqual([
      ['control', null],
      [t.tenant.id, 'acme'],
      [other.id, 'other'],
    ])
    expect(res.body.snapshots[0].databases).toEqual(['control', t.tenant.id, other.id])
    expect(res.body.restore[0]).toContain('--tenant <slug>')
    expect((await t.request('GET', '/admin/v1/backups', { as: t.tenant.owner })).status).toBe(403)
    expect((await t.request('GET', '/admin/v1/backups', { as: null, tenant: null })).status).toBe(401)
  })
})

describe('backups under Litestream', () => {
  let t: TestApp
  afterEach(() => t.close())

  test('a file replica gives a continuous window: oldest snapshot to newest WAL segment', async () => {
    const replicaDir = makeTestDir('replica')
    onTestFinished(() => removeTestDir(replicaDir))
    t = await createTestApp({ config: { litestreamReplicaUrl: `file://${replicaDir}` } })
    const generation = join(replicaDir, t.tenant.id, 'generations', 'abc123')
    const file = (relative: string, at: string) => {
      const path = join(generation, relative)
      mkdirSync(join(path, '..'), { recursive: true })
      writeFileSync(path, 'x')
      utimesSync(path, new Date(at), new Date(at))
    }
    file('snapshots/00000001.snapshot.lz4', '2030-01-01T00:00:00.000Z')
    file('snapshots/00000005.snapshot.lz4', '2030-01-03T00:00:00.000Z')
    file('wal/00000005/00000000.wal.lz4', '2030-01-03T12:00:00.000Z')
    const res = await t.request('GET', '/backups')
    expect(res.body.mode).toBe('litestream')
    expect(res.body.pointInTime).toEqual({
      continuous: true,
      earliest: '2030-01-01T00:00:00.000Z',
      latest: '2030-01-03T12:00:00.000Z',
    })
    expect(res.body.databases[0].replica).toEqual({
      url: `file://${replicaDir}/${t.tenant.id}`,
      earliestRestorableAt: '2030-01-01T00:00:00.000Z',
      latestReplicatedAt: '2030-01-03T12:00:00.000Z',
    })
    expect(res.body.restore[0]).toContain('--from replica')
  })
})
