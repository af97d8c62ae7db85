// Direct uploads through the embedded store: the signed single-use URL on this service, the
// checks of `complete`, and the public file route.
import { afterEach, beforeEach, describe, expect, setSystemTime, test } from 'bun:test'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { gif, jpeg, pdf, png, sha256 } from './files'
import { putBytes, readyAsset, startUpload } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp({ config: { mediaMaxBytes: 4096 } })
})
afterEach(() => {
  setSystemTime()
  t.close()
})

const mediaDir = () => join(t.dataDir, 'media', t.tenant.id)
const complete = (id: string, body?: unknown) => t.request('POST', `/media/assets/${id}/complete`, { body })

describe('a direct upload through the embedded store', () => {
  test('draft, PUT, complete, served publicly; audited, with events', async () => {
    const bytes = png(3, 2)
    const started = await startUpload(t, {
      kind: 'product_image',
      filename: 'cabernet.png',
      mimeType: 'image/png',
      metadata: { alt: 'A bottle' },
    })
    const { asset, uploadUrl, expiresAt } = started
    expect(asset).toMatchObject({
      status: 'draft',
      tenantId: t.tenant.id,
      kind: 'product_image',
      provider: 'embedded',
      providerAssetId: `${t.tenant.id}/${asset.id}`,
      filename: 'cabernet.png',
      publicUrl: null,
      uploadUrl,
      uploadExpiresAt: expiresAt,
      createdByStaffUserId: t.tenant.owner.id,
      metadata: { alt: 'A bottle' },
    })
    expect(uploadUrl).toStartWith(`http://localhost/media/uploads/${t.tenant.id}/${asset.id}?expires=`)
    expect(new URL(uploadUrl).searchParams.get('signature')).toBeTruthy()
    const ttl = Date.parse(expiresAt) - Date.now()
    expect(ttl).toBeGreaterThan(14 * 60_000)
    expect(ttl).toBeLessThanOrEqual(15 * 60_000)

    const put = await putBytes(t, uploadUrl, bytes, 'image/png')
    expect(put.status).toBe(200)
    expect(await put.json()).toEqual({
      assetId: asset.id,
      sizeBytes: bytes.byteLength,
      checksum: sha256(bytes),
    })

    const done = await complete(asset.id)
    expect(done.status).toBe(200)
    const publicUrl = `http://localhost/media/files/${t.tenant.id}/${asset.id}`
    expect(done.body).toMatchObject({
      id: asset.id,
      status: 'ready',
      mimeType: 'image/png',
      width: 3,
      height: 2,
      sizeBytes: bytes.byteLength,
      checksum: sha256(bytes),
      publicUrl,
      variants: { original: publicUrl },
      uploadUrl: null,
    })

    const served = await t.app.handle(new Request(publicUrl))
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('image/png')
    expect(served.headers.get('x-content-type-options')).toBe('nosniff')
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true)
    const etag = served.headers.get('etag')!
    const again = await t.app.handle(new Request(publicUrl, { headers: { 'if-none-match': etag } }))
    expect(again.status).toBe(304)

    const audit = t.tenant.db.$client
      .query(`SELECT action, subject FROM audit_entries WHERE entity_id = ? ORDER BY seq`)
      .all(asset.id)
    expect(audit).toEqual([
      { action: 'media_asset.create', subject: t.tenant.owner.subject },
      { action: 'media_asset.upload', subject: `upload-url:${asset.id}` },
      { action: 'media_asset.complete', subject: t.tenant.owner.subject },
    ])
    const events = t.tenant.db.$client
      .query(`SELECT object, action FROM outbox_events WHERE aggregate_id = ? ORDER BY created_at`)
      .all(asset.id)
    expect(events).toEqual([
      { object: 'media_asset', action: 'create' },
      { object: 'media_asset', action: 'complete' },
    ])
  })

  test('JPEG, GIF and PDF: type and size read from the bytes', async () => {
    const photo = await readyAsset(t, jpeg(640, 480), { kind: 'location_image' }, 'image/jpeg')
    expect(photo).toMatchObject({ mimeType: 'image/jpeg', width: 640, height: 480 })
    const logo = await readyAsset(t, gif(16, 9), { kind: 'logo', filename: 'logo.gif' }, 'image/gif')
    expect(logo).toMatchObject({ mimeType: 'image/gif', width: 16, height: 9 })
    const menu = await readyAsset(t, pdf(), { kind: 'document', filename: 'menu.pdf' }, 'application/pdf')
    expect(menu).toMatchObject({ mimeType: 'application/pdf', width: null, height: null })
  })

  test('MEDIA_PUBLIC_BASE_URL makes the upload and public URLs', async () => {
    const other = await createTestApp({ config: { mediaPublicBaseUrl: 'https://media.example.com/api' } })
    try {
      const { asset, uploadUrl } = await startUpload(other, { kind: 'logo' })
      expect(uploadUrl).toStartWith(
        `https://media.example.com/api/media/uploads/${other.tenant.id}/${asset.id}?`,
      )
      // The proxy strips /api: the signature covers the object, not the outer path.
      const local = uploadUrl.replace('https://media.example.com/api', 'http://localhost')
      expect((await putBytes(other, local, png(1, 1), 'image/png')).status).toBe(200)
      const done = await other.request('POST', `/media/assets/${asset.id}/complete`)
      expect(done.body.publicUrl).toBe(
        `https://media.example.com/api/media/files/${other.tenant.id}/${asset.id}`,
      )
    } finally {
      other.close()
    }
  })

  test('completing twice answers the ready asset unchanged', async () => {
    const ready = await readyAsset(t, png(2, 2))
    const audits = countRows(t.tenant.db, 'audit_entries')
    const again = await complete(ready.id)
    expect(again.status).toBe(200)
    expect(again.body).toEqual(ready)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(audits)
  })
})

describe('refused uploads', () => {
  test('an expired URL is 403 and stores nothing', async () => {
    const { asset, uploadUrl } = await startUpload(t, { kind: 'product_image' })
    setSystemTime(new Date(Date.now() + 16 * 60_000))
    const put = await putBytes(t, uploadUrl, png(1, 1), 'image/png')
    expect(put.status).toBe(403)
    expect(((await put.json()) as any).detail).toContain('expired')
    setSystemTime()
    expect(existsSync(join(mediaDir(), asset.id))).toBe(false)
    expect((await complete(asset.id)).status).toBe(409)
  })

  test('a tampered URL is 403: signature, expiry, or another asset', async () => {
    const { asset, uploadUrl } = await startUpload(t, { kind: 'product_image' })
    const other = await startUpload(t, { kind: 'product_image' })
    const url = new URL(uploadUrl)
    const tampered = [
      uploadUrl.replace(/signature=[^&]+/, 'signature=AAAA'),
      uploadUrl.replace(/expires=\d+/, `expires=${Number(url.searchParams.get('expires')) + 3600}`),
      uploadUrl.replace(asset.id, other.asset.id),
      `http://localhost${url.pathname}`,
    ]
    for (const bad of tampered) {
      const put = await putBytes(t, bad, png(1, 1), 'image/png')
      expect(put.status).toBe(403)
    }
    expect(existsSync(mediaDir()) ? readdirSync(mediaDir()) : []).toEqual([])
  })

  test('a used URL is refused the second time (409), even for two PUTs at once', async () => {
    const { uploadUrl } = await startUpload(t, { kind: 'product_image' })
    const first = await putBytes(t, uploadUrl, png(1, 1), 'image/png')
    expect(first.status).toBe(200)
    const second = await putBytes(t, uploadUrl, png(2, 2), 'image/png')
    expect(second.status).toBe(409)

    const race = await startUpload(t, { kind: 'product_image' })
    const results = await Promise.all(
      [png(3, 3), png(4, 4), png(5, 5)].map((bytes) => putBytes(t, race.uploadUrl, bytes, 'image/png')),
    )
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409])
    const winner = (await results.find((r) => r.status === 200)!.json()) as any
    const done = await complete(race.asset.id)
    expect(done.body.checksum).toBe(winner.checksum)
    // No stray temporary files from the losers.
    expect(readdirSync(mediaDir()).filter((f) => f.endsWith('.part'))).toEqual([])
  })

  test('a body above MEDIA_MAX_BYTES is 413 and nothing is kept; the URL stays usable', async () => {
    const { asset, uploadUrl } = await startUpload(t, { kind: 'product_image' })
    const big = png(4, 4, 5000)
    expect(big.byteLength).toBeGreaterThan(4096)
    const put = await putBytes(t, uploadUrl, big, 'image/png')
    expect(put.status).toBe(413)
    expect(readdirSync(mediaDir())).toEqual([])
    expect((await complete(asset.id)).status).toBe(409)
    expect((await putBytes(t, uploadUrl, png(4, 4), 'image/png')).status).toBe(200)
  })

  test('a declared sizeBytes above MEDIA_MAX_BYTES is 413 before anything is written', async () => {
    const before = countRows(t.tenant.db, 'media_assets')
    const response = await t.request('POST', '/media/uploads/direct', {
      body: { kind: 'logo', sizeBytes: 4097 },
    })
    expect(response.status).toBe(413)
    expect(countRows(t.tenant.db, 'media_assets')).toBe(before)
  })

  const wrongTypes: [string, Record<string, unknown>, Uint8Array, string][] = [
    ['a PDF as a product image', { kind: 'product_image' }, pdf(), 'application/pdf'],
    ['an image as a document', { kind: 'document' }, png(1, 1), 'image/png'],
    ['JPEG bytes declared as PNG', { kind: 'logo', mimeType: 'image/png' }, jpeg(2, 2), 'image/png'],
    ['JPEG bytes sent as image/png', { kind: 'logo' }, jpeg(2, 2), 'image/png'],
    ['PNG bytes named .jpg', { kind: 'logo', filename: 'logo.jpg' }, png(2, 2), 'application/octet-stream'],
    [
      'text with an image name',
      { kind: 'logo', filename: 'logo.png' },
      new TextEncoder().encode('<svg/>'),
      'image/png',
    ],
    ['a truncated PNG', { kind: 'logo' }, png(2, 2).slice(0, 20), 'image/png'],
  ]
  for (const [name, body, bytes, contentType] of wrongTypes) {
    test(`wrong type: ${name} is 415 at complete, and the bytes are removed`, async () => {
      const { asset, uploadUrl } = await startUpload(t, body)
      expect((await putBytes(t, uploadUrl, bytes, contentType)).status).toBe(200)
      const done = await complete(asset.id)
      expect(done.status).toBe(415)
      expect(done.body.code).toBe('unsupported_media_type')
      expect(existsSync(join(mediaDir(), asset.id))).toBe(false)
      const row = await t.request('GET', '/media/assets?status=draft')
      expect(row.body.find((a: any) => a.id === asset.id)).toMatchObject({ status: 'draft', mimeType: null })
      const served = await t.app.handle(
        new Request(`http://localhost/media/files/${t.tenant.id}/${asset.id}`),
      )
      expect(served.status).toBe(404)
    })
  }

  test('a checksum that does not match is 400; a matching one completes', async () => {
    const bytes = png(2, 3)
    const bad = await startUpload(t, { kind: 'logo' })
    await putBytes(t, bad.uploadUrl, bytes, 'image/png')
    const refused = await complete(bad.asset.id, { checksum: '0'.repeat(64) })
    expect(refused.status).toBe(400)
    expect(refused.body.errors[0].path).toBe('body/checksum')

    const good = await startUpload(t, { kind: 'logo' })
    await putBytes(t, good.uploadUrl, bytes, 'image/png')
    const done = await complete(good.asset.id, {
      checksum: sha256(bytes),
      filename: 'logo.png',
      metadata: { x: 1 },
    })
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({ filename: 'logo.png', metadata: { x: 1 }, status: 'ready' })
  })

  test('completing before any upload is 409 with the asset status', async () => {
    const { asset } = await startUpload(t, { kind: 'logo' })
    const done = await complete(asset.id)
    expect(done.status).toBe(409)
    expect(done.body.asset).toMatchObject({ id: asset.id, status: 'draft' })
  })

  test('an upload to a deleted draft is 409', async () => {
    const { asset, uploadUrl } = await startUpload(t, { kind: 'logo' })
    expect((await t.request('DELETE', `/media/assets/${asset.id}`)).status).toBe(204)
    expect((await putBytes(t, uploadUrl, png(1, 1), 'image/png')).status).toBe(409)
  })
})

describe('over a real socket', () => {
  test('the upload streams through Bun’s server and the file is served back', async () => {
    const server = t.app.listen({ port: 0, hostname: '127.0.0.1', maxRequestBodySize: 1 << 20 })
    try {
      const origin = `http://127.0.0.1:${server.server!.port}`
      const started = await fetch(`${origin}/media/uploads/direct`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.tenant.owner.token}`,
          'x-tenant-id': t.tenant.id,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ kind: 'menu_image', filename: 'menu.png' }),
      })
      expect(started.status).toBe(201)
      const { asset, uploadUrl } = (await started.json()) as any
      expect(uploadUrl).toStartWith(`${origin}/media/uploads/`)
      const bytes = png(7, 3, 3000)
      const put = await fetch(uploadUrl, {
        method: 'PUT',
        body: bytes,
        headers: { 'content-type': 'image/png' },
      })
      expect(put.status).toBe(200)
      const done = await t.request('POST', `/media/assets/${asset.id}/complete`)
      expect(done.body).toMatchObject({ width: 7, height: 3, sizeBytes: bytes.byteLength })
      const served = await fetch(`${origin}/media/files/${t.tenant.id}/${asset.id}`)
      expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true)
    } finally {
      await server.stop(true)
    }
  })
})
