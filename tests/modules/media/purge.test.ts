// The hourly job that soft-deletes drafts abandoned a day past their upload URL's expiry and
// removes their bytes.
import { afterEach, beforeEach, expect, setSystemTime, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { purgeAbandonedDrafts } from '../../../src/modules/media/jobs'
import { systemActor } from '../../../src/platform/foundation/actor'
import { createTestApp, type TestApp } from '../../harness'
import { png } from './files'
import { putBytes, readyAsset, startUpload } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => {
  setSystemTime()
  t.close()
})

const purge = (now: Date) =>
  purgeAbandonedDrafts(t.tenant.db, t.platform.storage, systemActor(t.tenant.id, 'media-purge'), now)

test('abandoned drafts are deleted with their bytes; recent drafts and ready assets stay', async () => {
  const abandoned = await startUpload(t, { kind: 'logo' })
  expect((await putBytes(t, abandoned.uploadUrl, png(1, 1), 'image/png')).status).toBe(200)
  const ready = await readyAsset(t, png(2, 2))
  const file = join(t.dataDir, 'media', t.tenant.id, abandoned.asset.id)
  expect(existsSync(file)).toBe(true)

  // 23 hours past expiry: not yet.
  const expiry = Date.parse(abandoned.expiresAt)
  expect(await purge(new Date(expiry + 23 * 3600_000))).toBe(0)

  setSystemTime(new Date(expiry + 24 * 3600_000))
  // A day later the owner's token has expired: a fresh one for the draft started then.
  const token = await t.platform.devIssuer!.mint({ subject: t.tenant.owner.subject })
  const recent = (await t.request('POST', '/media/uploads/direct', { body: { kind: 'logo' }, as: token }))
    .body
  expect(await purge(new Date(expiry + 25 * 3600_000))).toBe(1)
  setSystemTime()

  expect(existsSync(file)).toBe(false)
  const deleted = await t.request('GET', '/media/assets?status=deleted')
  expect(deleted.body.map((a: any) => a.id)).toEqual([abandoned.asset.id])
  const live = await t.request('GET', '/media/assets')
  expect(live.body.map((a: any) => a.id).sort()).toEqual([ready.id, recent.asset.id].sort())
  expect((await t.app.handle(new Request(ready.publicUrl))).status).toBe(200)

  const audit = t.tenant.db.$client
    .query(`SELECT subject FROM audit_entries WHERE action = 'media_asset.purge'`)
    .all()
  expect(audit).toEqual([{ subject: 'system:media-purge' }])
  // A second run finds nothing more.
  expect(await purge(new Date(expiry + 25 * 3600_000))).toBe(0)
})

test('the job is registered with the scheduler', () => {
  expect(t.platform.jobs.status().map((j: { name: string }) => j.name)).toContain(
    'media.purge-abandoned-drafts',
  )
})
