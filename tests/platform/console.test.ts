// The operator console's page and assets (src/platform/docs/console.ts): served from the embedded
// bundle, with its content types, caching and CSP; not an API operation; and the bundle is current.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { consoleAssetsPath, renderConsoleAssets } from '../../scripts/build-console'
import { consoleVersion } from '../../src/platform/docs/console-assets'
import { createTestApp, type TestApp } from '../harness'

describe('operator console', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  test('console-assets.ts is what console/src compiles to (bun scripts/build-console.ts)', async () => {
    expect(readFileSync(consoleAssetsPath, 'utf8')).toBe(await renderConsoleAssets())
  })

  test('the page names the current assets, is revalidated, and allows nothing from elsewhere', async () => {
    const res = await t.request('GET', '/console', { as: null })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    const csp = res.headers.get('content-security-policy')!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(res.text).toContain(`/console/app.js?v=${consoleVersion}`)
    expect(res.text).toContain(`/console/app.css?v=${consoleVersion}`)
    expect(res.text).not.toMatch(/https?:\/\//)
  })

  test.each([
    ['/console/app.js', 'text/javascript; charset=utf-8'],
    ['/console/app.css', 'text/css; charset=utf-8'],
  ])('%s is served from the bundle, cached for good', async (path, type) => {
    const res = await t.request('GET', `${path}?v=${consoleVersion}`, { as: null })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe(type)
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.text.length).toBeGreaterThan(1000)
  })

  test('the script loads nothing from another origin', async () => {
    const script = (await t.request('GET', '/console/app.js', { as: null })).text
    expect(script).not.toMatch(/(import|from)\s*["']https?:/)
    expect(script).not.toContain('cdn.')
  })

  test('the console is not an operation of the OpenAPI document', async () => {
    const spec = (await t.request('GET', '/openapi.json', { as: null })).body
    expect(Object.keys(spec.paths).filter((path) => path.startsWith('/console'))).toEqual([])
  })
})
