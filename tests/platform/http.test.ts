// HTTP conventions: problem documents for every failure, request ids, body and transport limits, OpenAPI.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MAX_HEADER_SECTION_BYTES, MAX_REQUEST_TARGET_BYTES } from '../../src/platform/http/conventions'
import { systemOperator } from '../../src/platform/operator/audit'
import { createOperatorKey } from '../../src/platform/operator/keys'
import type { PoolStats } from '../../src/platform/tenancy/databases'
import { createTestApp, type TestApp } from '../harness'

describe('http conventions', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({ config: { maxBodyBytes: 2048 } })
  })
  afterAll(() => t.close())

  test('an unknown route is a 404 problem document', async () => {
    const res = await t.request('GET', '/no/such/route')
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    expect(res.body).toMatchObject({ status: 404, code: 'not_found', title: 'Not found' })
    expect(res.body.type).toBe('/problems/not-found')
  })

  test('a sent x-request-id is echoed, on success and in problems; otherwise one is generated', async () => {
    const ok = await t.request('GET', '/vendor', { headers: { 'x-request-id': 'abc-123' } })
    expect(ok.headers.get('x-request-id')).toBe('abc-123')
    const bad = await t.request('GET', '/vendor?limit=0', { headers: { 'x-request-id': 'abc-456' } })
    expect(bad.body.requestId).toBe('abc-456')
    const generated = await t.request('GET', '/vendor')
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const unsafe = await t.request('GET', '/vendor', { headers: { 'x-request-id': 'bad id with spaces' } })
    expect(unsafe.headers.get('x-request-id')).not.toBe('bad id with spaces')
  })

  test('bodies above MAX_BODY_BYTES are 413, by declared length or by actual size', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(4000) })
    const res = await t.request('POST', '/vendor', { body: big })
    expect(res.status).toBe(413)
    expect(res.body.code).toBe('payload_too_large')
  })

  test('a body without a declared length is refused with 413 as soon as it passes the limit, never buffered whole', async () => {
    let pulled = 0
    const large = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        if (pulled >= 1 << 20) return controller.close()
        pulled += 512
        controller.enqueue(new TextEncoder().encode(' '.repeat(512)))
      },
    })
    const res = await t.app.handle(
      new Request('http://localhost/vendor', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.tenant.owner.token}`,
          'x-tenant-id': t.tenant.id,
          'content-type': 'application/json',
        },
        body: large,
      }),
    )
    expect(res.status).toBe(413)
    expect(await res.json()).toMatchObject({ code: 'payload_too_large' })
    expect(pulled).toBeLessThan(64 * 1024)
  })

  test('a validation problem lists every failing field', async () => {
    const res = await t.request('POST', '/vendor', { body: { name: 7, email: 'nope', extra: 1 } })
    expect(res.status).toBe(400)
    const paths = res.body.errors.map((e: { path: string }) => e.path)
    expect(paths).toEqual(expect.arrayContaining(['body/name', 'body/email', 'body/extra']))
  })

  test('invalid UTF-8 in a body is 400, not 500', async () => {
    const res = await t.app.handle(
      new Request('http://localhost/vendor', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.tenant.owner.token}`,
          'x-tenant-id': t.tenant.id,
          'content-type': 'application/json',
        },
        body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      }),
    )
    expect(res.status).toBe(400)
  })

  test('OpenAPI lists every route with schemas, the permission it needs, and the bearer scheme', async () => {
    const res = await t.request('GET', '/openapi.json', { as: null })
    expect(res.status).toBe(200)
    expect(res.body.openapi).toStartWith('3.')
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    const create = res.body.paths['/vendor'].post
    expect(create['x-permission']).toBe('vendors:write')
    expect(create.requestBody.content['application/json'].schema).toBeDefined()
    expect(res.body.paths['/vendor/{id}'].get.responses['200']).toBeDefined()
  })

  test('/docs serves the reference page, with its script from this service (no CDN)', async () => {
    const page = await t.request('GET', '/docs', { as: null })
    expect(page.status).toBe(200)
    expect(page.text).toContain('/docs/scalar.js')
    expect(page.text).not.toMatch(/https?:\/\/(cdn|unpkg)/)
    const script = await t.app.handle(new Request('http://localhost/docs/scalar.js'))
    expect(script.status).toBe(200)
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000)
  })
})

describe('transport limits, checked before routing and authentication', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  const send = (method: string, path: string, headers: Record<string, string> = {}) =>
    t.app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${t.tenant.owner.token}`, 'x-tenant-id': t.tenant.id, ...headers },
      }),
    )
  // `/health/live?pad=` plus padding: a request target of exactly `length` bytes.
  const target = (length: number) => `/health/live?pad=${'a'.repeat(length - '/health/live?pad='.length)}`

  const refused: [string, () => Promise<Response>, number, string][] = [
    ['a method the API does not implement', () => send('PROPFIND', '/vendor'), 501, 'not_implemented'],
    ['TRACE', () => send('TRACE', '/vendor'), 501, 'not_implemented'],
    [
      'a request target above 8 KiB',
      () => send('GET', target(MAX_REQUEST_TARGET_BYTES + 1)),
      414,
      'uri_too_long',
    ],
    [
      'a header section above 16 KiB',
      () => send('GET', '/vendor', { 'x-padding': 'a'.repeat(MAX_HEADER_SECTION_BYTES) }),
      431,
      'headers_too_large',
    ],
    [
      'many headers adding up to more than 16 KiB',
      () =>
        send(
          'GET',
          '/vendor',
          Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-h${i}`, 'a'.repeat(170)])),
        ),
      431,
      'headers_too_large',
    ],
  ]
  for (const [name, request, status, code] of refused) {
    test(`${name}: ${status} ${code} problem, and the connection is closed`, async () => {
      const res = await request()
      expect(res.status).toBe(status)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
      expect(res.headers.get('connection')).toBe('close')
      const body = (await res.json()) as Record<string, unknown>
      expect(body).toMatchObject({ status, code, requestId: res.headers.get('x-request-id') })
      expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type'])
    })
  }

  test('requests at the limits are routed as usual', async () => {
    expect((await send('GET', target(MAX_REQUEST_TARGET_BYTES))).status).toBe(200)
    expect((await send('OPTIONS', '/vendor')).status).toBe(405)
    const padding = 'a'.repeat(MAX_HEADER_SECTION_BYTES - 1024)
    expect((await send('GET', '/vendor', { 'x-padding': padding })).status).toBe(200)
  })

  test('a refused write changes nothing, even with valid credentials', async () => {
    const res = await t.app.handle(
      new Request('http://localhost/vendor', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.tenant.owner.token}`,
          'x-tenant-id': t.tenant.id,
          'content-type': 'application/json',
          'x-padding': 'a'.repeat(MAX_HEADER_SECTION_BYTES),
        },
        body: JSON.stringify({ name: 'Never stored' }),
      }),
    )
    expect(res.status).toBe(431)
    expect((await t.request('GET', '/vendor')).body.page.total).toBe(0)
  })
})

describe('service description and health', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  test('GET / describes the service', async () => {
    const res = await t.request('GET', '/', { as: null })
    expect(res.body).toEqual({
      name: 'restaurant-ops',
      version: expect.any(String),
      paymentGateway: 'sandbox',
      docsUrl: '/docs',
      database: { configured: true, foundationEnabled: true },
    })
  })

  test('live, health, ready and database answer ok after touching the databases', async () => {
    expect((await t.request('GET', '/health/live', { as: null })).body).toEqual({ status: 'ok' })
    for (const path of ['/health', '/health/ready', '/health/database']) {
      const res = await t.request('GET', path, { as: null })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({
        status: 'ok',
        foundationEnabled: true,
        checks: { control: 'ok', tenant: 'ok' },
      })
      const deliver = res.body.jobs.find((j: { name: string }) => j.name === 'webhooks.deliver')
      expect(deliver).toMatchObject({ running: false, failures: 0, lastError: null })
    }
  })

  test('a job’s last error and a failover’s tenant are shown to operators only', async () => {
    t.platform.jobs.register({
      name: 'health.test-failing',
      intervalMs: 3_600_000,
      runAtStart: false,
      run: () => {
        throw new Error('cannot open /srv/tenants/acme.sqlite')
      },
    })
    await t.platform.jobs.runNow('health.test-failing')
    const failing = (body: { jobs: { name: string }[] }) =>
      body.jobs.find((job) => job.name === 'health.test-failing')
    const operatorKey = createOperatorKey(t.platform.control.db, systemOperator('test'), {
      name: 'health',
    }).token
    const anonymous = await t.request('GET', '/health', { as: null })
    expect(failing(anonymous.body)).toMatchObject({
      failures: 1,
      lastError: null,
      lastErrorAt: expect.any(String),
    })
    const forged = await t.request('GET', '/health', { as: 'opk_forged', tenant: null })
    expect(forged.status).toBe(200)
    expect(failing(forged.body)).toMatchObject({ lastError: null })
    const operator = await t.request('GET', '/health', { as: operatorKey, tenant: null })
    expect(failing(operator.body)).toMatchObject({
      failures: 1,
      lastError: 'cannot open /srv/tenants/acme.sqlite',
    })
    // A tenant's staff is not an operator.
    expect(failing((await t.request('GET', '/health')).body)).toMatchObject({ lastError: null })
  })

  test('the tenant pool’s size, hit rate and evictions are shown to operators only', async () => {
    const operatorKey = createOperatorKey(t.platform.control.db, systemOperator('test'), {
      name: 'pool',
    }).token
    expect((await t.request('GET', '/health', { as: null })).body.tenantPool).toBeUndefined()
    const { tenantPool } = (await t.request('GET', '/health', { as: operatorKey, tenant: null })).body
    const { open, capacity, hits, misses, hitRate, memoryBytes, evictions } = tenantPool as PoolStats & {
      hitRate: number
    }
    expect(memoryBytes).toBe(t.platform.config.tenantPoolMemory)
    expect(evictions).toBe(0)
    expect(open).toBeGreaterThan(0)
    expect(capacity).toBeGreaterThanOrEqual(open)
    expect(hitRate).toBe(hits + misses === 0 ? 1 : hits / (hits + misses))
  })

  test('the development JWKS is published', async () => {
    const res = await t.request('GET', '/.well-known/jwks.json', { as: null })
    expect(res.body.keys[0]).toMatchObject({ kty: 'EC', alg: 'ES256' })
    expect(res.body.keys[0].d).toBeUndefined()
  })
})

test('health answers 503 with a non-ok status and Retry-After when the databases cannot be read', async () => {
  const t = await createTestApp()
  try {
    t.platform.control.sqlite.close()
    for (const path of ['/health', '/health/ready', '/health/database']) {
      const res = await t.request('GET', path, { as: null })
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toBe('5')
      expect(res.body.status).toBe('unavailable')
      // The error text is for operators: an anonymous probe learns only that it failed.
      expect(res.body.checks.control).toBe('failed')
    }
    expect((await t.request('GET', '/health/live', { as: null })).status).toBe(200)
  } finally {
    t.close()
  }
})
