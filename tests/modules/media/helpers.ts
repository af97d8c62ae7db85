// Shared steps of the media tests: start a direct upload, PUT the bytes, complete.
import { expect } from 'bun:test'
import type { TenantFixture, TestApp } from '../../harness'

export async function startUpload(t: TestApp, body: Record<string, unknown>, tenant?: TenantFixture) {
  const response = await t.request('POST', '/media/uploads/direct', { body, tenant, as: tenant?.owner })
  expect(response.status).toBe(201)
  return response.body as { asset: any; uploadUrl: string; expiresAt: string }
}

/** PUTs bytes to an upload URL: through the app for the embedded store, over the network for S3. */
export async function putBytes(
  t: TestApp,
  uploadUrl: string,
  bytes: Uint8Array | string,
  contentType?: string,
): Promise<Response> {
  const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {}
  const init = { method: 'PUT', body: bytes, headers }
  if (uploadUrl.startsWith('http://localhost/')) return t.app.handle(new Request(uploadUrl, init))
  return fetch(uploadUrl, init)
}

/** A ready asset: direct upload, PUT, complete. */
export async function readyAsset(
  t: TestApp,
  bytes: Uint8Array,
  body: Record<string, unknown> = { kind: 'product_image' },
  contentType = 'image/png',
  tenant?: TenantFixture,
) {
  const { asset, uploadUrl } = await startUpload(t, body, tenant)
  const put = await putBytes(t, uploadUrl, bytes, contentType)
  expect(put.status).toBe(200)
  const done = await t.request('POST', `/media/assets/${asset.id}/complete`, { tenant, as: tenant?.owner })
  expect(done.status).toBe(200)
  return done.body
}
