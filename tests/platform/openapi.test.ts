// The served document as client tools take it: Redocly (recommended rules) and Spectral
// (`spectral:oas`) find no errors, the typed client in client/ is generated from it as it is now,
// and the contract check of the harness (tests/contract.ts) refuses what the document does not say.
import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Glob } from 'bun'
import { CLIENT_SCHEMA_PATH, clientTypes } from '../../scripts/generate-client'
import { modelFiles } from '../../src/modules'
import { checkContract, checkEvents } from '../contract'
import { createTestApp } from '../harness'
import { makeTestDir, removeTestDir } from '../temp-dirs'

const t = await createTestApp()
const document = (await t.request('GET', '/openapi.json', { as: null })).body
const dir = makeTestDir('lint')
const documentPath = join(dir, 'openapi.json')
writeFileSync(documentPath, JSON.stringify(document))
afterAll(() => {
  t.close()
  removeTestDir(dir)
})

const root = join(import.meta.dir, '..', '..')
const bin = (name: string) => join(root, 'node_modules', '.bin', name)

/** Runs a linter and parses its JSON report (both exit non-zero when they find errors). */
async function lint(command: string[]): Promise<any> {
  const child = Bun.spawn(command, {
    cwd: dir,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  })
  const output = await new Response(child.stdout).text()
  await child.exited
  return JSON.parse(output)
}

describe('the served document', () => {
  test('Redocly lint, recommended rules: no errors', async () => {
    const report = await lint([
      bin('redocly'),
      'lint',
      documentPath,
      '--extends=recommended',
      '--format=json',
      '--max-problems=50',
    ])
    const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error')
    expect(errors.map((p: any) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([])
    expect(report.totals.errors).toBe(0)
  }, 60_000)

  test('Spectral spectral:oas: no errors', async () => {
    writeFileSync(join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n')
    const report = await lint([
      bin('spectral'),
      'lint',
      documentPath,
      '--ruleset',
      join(dir, '.spectral.yaml'),
      '--format=json',
      '--quiet',
    ])
    // Severity 0 is an error; 1 a warning.
    const errors = report.filter((p: { severity: number }) => p.severity === 0)
    expect(errors.map((p: any) => `${p.code} ${p.path.join('.')}: ${p.message}`)).toEqual([])
  }, 60_000)

  test('no schema carries an $id, no 3.0 nullable, and every $ref resolves', () => {
    const text = JSON.stringify(document)
    expect(text).not.toContain('"$id"')
    expect(text).not.toContain('"nullable"')
    const refs = [...text.matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]!)
    const missing = refs.filter(
      (ref) => ref.split('/').reduce((node: any, key) => node?.[key], document) === undefined,
    )
    expect([...new Set(missing)]).toEqual([])
  })

  test('the webhooks section has every event with the Standard Webhooks headers', () => {
    const webhooks = Object.values(document.webhooks) as any[]
    expect(webhooks.length).toBeGreaterThan(10)
    for (const { post } of webhooks)
      expect(post.parameters.map((p: { name: string }) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ])
  })

  test('every tag has a description (its family’s manifest)', () => {
    const undescribed = document.tags.filter((tag: { description?: string }) => !tag.description)
    expect(undescribed).toEqual([])
  })

  test('every model file is known to the document (its family’s manifest)', () => {
    const files = [...new Glob('src/modules/*/model*.ts').scanSync(root)]
    const known = new Set(Object.values(modelFiles))
    const missing = files.filter((file) => !known.has(require(join(root, file))))
    expect(missing).toEqual([])
  })

  test('every operation has a readable id, a success response and a problem response for each error', () => {
    const wrong: string[] = []
    for (const [path, item] of Object.entries(document.paths) as [string, any][])
      for (const [method, operation] of Object.entries(item) as [string, any][]) {
        const statuses = Object.keys(operation.responses)
        if (!/^[a-z][A-Za-z0-9]*$/.test(operation.operationId)) wrong.push(`${method} ${path}: id`)
        if (!statuses.some((s) => s.startsWith('2'))) wrong.push(`${method} ${path}: no 2xx`)
        if (!statuses.includes('500')) wrong.push(`${method} ${path}: no 500`)
      }
    expect(wrong).toEqual([])
  })

  test('client/schema.d.ts is generated from this document (run `bun scripts/generate-client.ts`)', async () => {
    expect(await clientTypes(document)).toBe(readFileSync(CLIENT_SCHEMA_PATH, 'utf8'))
  }, 60_000)
})

describe('the contract check', () => {
  const get = new Request('http://localhost/vendor')
  const json = (
    body: unknown,
    status = 200,
    type = 'application/json',
    headers: Record<string, string> = {},
  ) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': type, 'x-request-id': 'req-1', ...headers },
    })

  test('passes a response the document declares', async () => {
    const real = await t.app.handle(
      new Request('http://localhost/vendor', {
        headers: { authorization: `Bearer ${t.tenant.owner.token}`, 'x-tenant-id': t.tenant.id },
      }),
    )
    expect(real.status).toBe(200)
    await checkContract(t.app, get, real)
  })

  test('refuses a status the operation does not declare', async () => {
    await expect(checkContract(t.app, get, json({}, 418))).rejects.toThrow('status 418 is not declared')
  })

  test('refuses a body that does not match its schema', async () => {
    const wrong = { vendors: [{ id: 7 }], page: { page: '1' } }
    await expect(checkContract(t.app, get, json(wrong))).rejects.toThrow('does not match the 200 schema')
  })

  test('refuses a problem document without its required members', async () => {
    await expect(
      checkContract(t.app, get, json({ status: 404 }, 404, 'application/problem+json')),
    ).rejects.toThrow('does not match the 404 schema')
  })

  test('refuses an undeclared media type', async () => {
    await expect(checkContract(t.app, get, json({ vendors: [] }, 200, 'text/plain'))).rejects.toThrow(
      'content-type text/plain is not declared',
    )
  })

  test('refuses a response without a header it declares required', async () => {
    const bare = new Response(JSON.stringify({ vendors: [] }), {
      headers: { 'content-type': 'application/json' },
    })
    await expect(checkContract(t.app, get, bare)).rejects.toThrow(
      'header x-request-id is required but absent',
    )
    const created = await t.request('POST', '/vendor', { body: { name: 'Located' } })
    expect(created.headers.get('location')).toBe(`/vendor/${created.body.id}`)
    await expect(
      checkContract(
        t.app,
        new Request('http://localhost/vendor', { method: 'POST' }),
        json(created.body, 201),
      ),
    ).rejects.toThrow('header Location is required but absent')
  })

  test('refuses a header value its schema does not allow, in a shared problem response too', async () => {
    await expect(
      checkContract(t.app, get, json({ vendors: [] }, 200, 'application/json', { 'x-request-id': 'a b' })),
    ).rejects.toThrow('header x-request-id: "a b" does not match its schema')
    const busy = {
      type: '/problems/unavailable',
      title: 'Service unavailable',
      status: 503,
      detail: 'busy',
      code: 'unavailable',
      requestId: 'req-1',
    }
    await expect(checkContract(t.app, get, json(busy, 503, 'application/problem+json'))).rejects.toThrow(
      'header Retry-After is required but absent',
    )
    await expect(
      checkContract(t.app, get, json(busy, 503, 'application/problem+json', { 'retry-after': 'soon' })),
    ).rejects.toThrow('header Retry-After: "soon" does not match its schema')
    await checkContract(t.app, get, json(busy, 503, 'application/problem+json', { 'retry-after': '1' }))
  })

  test('passes a response without a header it declares optional, and checks it when sent', async () => {
    // The RateLimit fields go to tables-API credentials only (t.request checks every answer).
    const list = `/tables-api/v1/locations/${t.tenant.locationId}/reservations?dateFrom=2025-06-01&dateTo=2025-06-02`
    const staff = await t.request('GET', list)
    expect(staff.status).toBe(200)
    expect(staff.headers.get('ratelimit-limit')).toBeNull()
    const credential = await t.request('GET', list, { as: t.addCredential(t.tenant).token })
    expect(credential.status).toBe(200)
    expect(credential.headers.get('ratelimit-policy')).toMatch(/^\d+;w=60$/)
    const wrong = new Headers(credential.headers)
    wrong.set('ratelimit-remaining', 'many')
    await expect(
      checkContract(
        t.app,
        new Request(`http://localhost${list}`),
        new Response(credential.text, { headers: wrong }),
      ),
    ).rejects.toThrow('header RateLimit-Remaining: "many" does not match its schema')
  })

  test('passes an event as the catalogue describes it, refuses an unknown event or a wrong payload', async () => {
    const vendor = await t.request('POST', '/vendor', { body: { name: 'Catalogued' } })
    await checkEvents(t.app, [{ object: 'vendor', action: 'create', payload: vendor.body }])
    await expect(checkEvents(t.app, [{ object: 'vendor', action: 'explode', payload: {} }])).rejects.toThrow(
      'vendor.explode is not in the event catalogue',
    )
    await expect(
      checkEvents(t.app, [{ object: 'vendor', action: 'create', payload: { id: 7 } }]),
    ).rejects.toThrow('vendor.create payload does not match its schema')
  })
})
