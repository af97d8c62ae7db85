// Walks the whole route table and sends every route, as the owner of a valid tenant, the bad input
// design.md promises to refuse: malformed JSON, a JSON array, a wrong type for each top-level body
// property, an unknown body property, bad path parameters (unknown ids, 5000-character strings,
// unicode, SQL-ish text, UUIDs of nothing), query parameters of the wrong type, another tenant's
// location or tenant, no token and forged tokens. Every such request must be refused with a 4xx
// RFC 9457 problem document (never a 5xx) and must write nothing: the row count of every table of
// the tenant database and of the control database is the same before and after.
//
// The bodies that carry one bad part are otherwise valid (built from the route's own schema), so
// a wrong type is refused because of that type, and a bad path parameter reaches the handler.
import { afterAll, describe, expect, test } from 'bun:test'
import { generateKeyPair, SignJWT } from 'jose'
import { newId } from '../../src/platform/foundation/ids'
import { changedCounts, createTestApp, type TestResponse, tableCounter } from '../harness'
import { checks, type Schema, sampleOf } from '../schema-samples'

const t = await createTestApp()
const other = await t.addTenant('other')
afterAll(() => t.close())

// ---------------------------------------------------------------------------------------------
// Row counts of every table of the tenant and control databases.

const snapshot = tableCounter({ tenant: t.tenant.db, control: t.platform.control.db }, () =>
  t.platform.dueIndex.flush(),
)

// ---------------------------------------------------------------------------------------------
// Valid samples and wrong values from TypeBox schemas.

const sample = (schema: Schema | undefined, key = '') =>
  sampleOf(schema, { locationId: t.tenant.locationId }, key)

/** A JSON value of another type than the schema accepts (the lenient shapes first). */
function wrongValue(schema: Schema): unknown {
  const candidates: unknown[] =
    schema.type === 'boolean'
      ? ['true', 1]
      : schema.type === 'integer' || schema.type === 'number'
        ? ['12', true]
        : [12345, 'wrong ☃', true, { unexpected: 1 }, ['x'], 1.5, null]
  for (const candidate of [...candidates, 12345, true, { unexpected: 1 }, 'wrong ☃', null]) {
    if (checks(schema, candidate) === false) return candidate
  }
  return undefined
}

/** A query-string value the query property refuses, or undefined when every string passes. */
function wrongQueryValue(schema: Schema): string | undefined {
  for (const candidate of ['not-valid-☃', '-1', '1.5', 'x'.repeat(5000)]) {
    if (checks(schema, candidate) === false) return candidate
  }
  return undefined
}

function queryString(query: Record<string, unknown>): string {
  const entries = Object.entries(query).filter(([, v]) => v !== undefined)
  if (entries.length === 0) return ''
  return `?${entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(Array.isArray(v) ? v.join(',') : String(v))}`).join('&')}`
}

// ---------------------------------------------------------------------------------------------
// Tokens that must not authenticate.

const forgedKeys = await generateKeyPair('ES256')
const devIssuer = t.platform.devIssuer!
const forgedToken = await new SignJWT({})
  .setProtectedHeader({ alg: 'ES256', kid: (devIssuer.jwks.keys[0] as { kid: string }).kid, typ: 'JWT' })
  .setSubject(t.tenant.owner.subject)
  .setIssuer(devIssuer.issuer)
  .setAudience(devIssuer.audience)
  .setIssuedAt()
  .setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
  .sign(forgedKeys.privateKey)
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
const unsignedToken = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({
  sub: t.tenant.owner.subject,
  iss: devIssuer.issuer,
  aud: devIssuer.audience,
  exp: Math.floor(Date.now() / 1000) + 3600,
})}.`

// ---------------------------------------------------------------------------------------------
// The probes.

interface Probe {
  name: string
  path: string
  body?: unknown
  headers?: Record<string, string>
  as?: string | null
  /** Some routes may legitimately accept this probe (e.g. an ignored body): only refusals are checked. */
  mayAccept?: boolean
}

const badParamValues: [string, string][] = [
  ['unknown id', 'does-not-exist'],
  ['5000-char string', 'a'.repeat(5000)],
  ['unicode', 'ünïcødé-☃-😀-名前'],
  ['SQL-ish', "' OR 1=1 --"],
  ['UUID of nothing', '00000000-0000-7000-8000-000000000000'],
]

/**
 * Routes whose path parameter filters a list rather than naming a record: an unknown value is an
 * empty list. GET /app-syncs/{objectId}: the object may be one of any type, in any system.
 */
const listsByAnyId = new Set(['GET /app-syncs/:objectId'])

/**
 * Records made by the "valid body" probe of a create route (a POST), by the route's path, in this
 * tenant and in the other one: later routes below that path get a real record for the parameter,
 * so a bad parameter beside it, or a bad body, reaches the handler's own code; and the other
 * tenant's record is one more id that must be refused.
 */
const created = new Map<string, { own: string; other?: string }>()

function idOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined
  const record = body as Record<string, unknown>
  if (typeof record.id === 'string') return record.id
  const nested = Object.values(record).filter((v) => v && typeof v === 'object' && !Array.isArray(v))
  return nested.length === 1 ? idOf(nested[0]) : undefined
}

function createdFor(path: string, name: string) {
  return created.get(path.slice(0, path.indexOf(`:${name}`)).replace(/\/$/, ''))
}

/**
 * Body fields that name things kept in other systems, with no table here to check them against:
 * an external id (labor jobs), a product's department and template, an order's dining table,
 * section and service area (the floor plan lives in the POS), and the object an app reports a
 * sync of (POST /app-sync, any object of any system). And the order a gift card ledger route
 * names: this service's own orders pay through the payments module, which calls the gift card
 * functions directly; the HTTP routes serve other tills and web stores, whose order ids they
 * record (tests/modules/gift-cards/reports.test.ts searches by such an 'order-9').
 */
const foreignReferences = new Set([
  'externalId',
  'departmentId',
  'productTemplateId',
  'tableId',
  'sectionId',
  'serviceAreaId',
])

function validParam(path: string, name: string, schema: Schema | undefined): string {
  if (name === 'locationId') return t.tenant.locationId
  if (name === 'tenantId') return t.tenant.id
  const record = createdFor(path, name)
  if (record) return record.own
  const value = sample(schema)
  return typeof value === 'string' && !/^Sample/.test(value) ? value : newId()
}

function probesFor(route: { method: string; path: string; hooks: unknown }): Probe[] {
  const hooks = route.hooks as { body?: Schema; params?: Schema; query?: Schema }
  // Public routes (route-table.test.ts lists them) declare no permission: no token is needed.
  const isPublic = !(route.hooks as { detail?: Record<string, unknown> }).detail?.['x-permission']
  const paramNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)
  const paramValues = Object.fromEntries(
    paramNames.map((n) => [n, validParam(route.path, n, hooks.params?.properties?.[n])]),
  )
  const pathWith = (values: Record<string, string>) =>
    route.path.replace(/:(\w+)/g, (_, n: string) => encodeURIComponent(values[n]!))
  const validQuery = (sample(hooks.query) ?? {}) as Record<string, unknown>
  const basePath = pathWith(paramValues) + queryString(validQuery)
  const hasBody = route.method !== 'GET' && route.method !== 'HEAD'
  const body = hooks.body ? (sample(hooks.body) as Record<string, unknown>) : undefined
  const probes: Probe[] = []

  if (hasBody && body !== undefined) {
    // Otherwise valid, so it may be accepted (and a POST's record is kept for the routes below
    // it); a refusal (e.g. of ids of nothing) must still be clean.
    probes.push({ name: 'valid body, ids of nothing', path: basePath, body, mayAccept: true })
  }
  if (hasBody) {
    probes.push({ name: 'malformed JSON', path: basePath, body: '{"name": "x",' })
    if (hooks.body && checks(hooks.body, []) !== true)
      probes.push({ name: 'a JSON array', path: basePath, body: [body ?? {}] })
  }
  if (hooks.body?.type === 'object' && body && typeof body === 'object') {
    for (const [key, schema] of Object.entries<Schema>(hooks.body.properties ?? {})) {
      const wrong = wrongValue(schema)
      if (wrong === undefined) continue
      probes.push({
        name: `body.${key} = ${JSON.stringify(wrong)}`,
        path: basePath,
        body: { ...body, [key]: wrong },
      })
    }
    // Ids in the body that name records of this service: refused (400 or 404) whatever they
    // hold, never a 5xx, never stored dangling. References to other systems may hold anything.
    for (const [key, schema] of Object.entries<Schema>(hooks.body.properties ?? {})) {
      if (!/Id$/.test(key) || key === 'locationId' || checks(schema, 'x') === false) continue
      for (const [label, value] of badParamValues) {
        probes.push({
          name: `body.${key} = ${label}`,
          path: basePath,
          body: { ...body, [key]: value },
          mayAccept:
            foreignReferences.has(key) ||
            (key === 'objectId' && route.path === '/app-sync') ||
            (key === 'orderId' && route.path.startsWith('/gift-card/')),
        })
      }
    }
    if (hooks.body.additionalProperties === false || checks(hooks.body, { ...body, unexpected: 1 }) !== true)
      probes.push({ name: 'unknown body property', path: basePath, body: { ...body, unexpectedField: 'x' } })
  }
  for (const name of paramNames) {
    const otherRecord = createdFor(route.path, name)?.other
    if (otherRecord) {
      probes.push({
        name: `:${name} = another tenant's record`,
        path: pathWith({ ...paramValues, [name]: otherRecord }) + queryString(validQuery),
        body: hasBody ? body : undefined,
      })
    }
    for (const [label, value] of badParamValues) {
      probes.push({
        mayAccept: listsByAnyId.has(`${route.method} ${route.path}`),
        name: `:${name} = ${label}`,
        path: pathWith({ ...paramValues, [name]: value }) + queryString(validQuery),
        body: hasBody ? body : undefined,
      })
    }
  }
  for (const [key, schema] of Object.entries<Schema>(hooks.query?.properties ?? {})) {
    const wrong = wrongQueryValue(schema)
    if (wrong === undefined) continue
    probes.push({
      name: `?${key} = ${wrong.slice(0, 20)}`,
      path: pathWith(paramValues) + queryString({ ...validQuery, [key]: wrong }),
      body: hasBody ? body : undefined,
    })
  }
  if (!isPublic) {
    const withBody = hasBody ? body : undefined
    probes.push(
      { name: 'no token', path: basePath, body: withBody, as: null },
      { name: 'forged token', path: basePath, body: withBody, as: forgedToken },
      { name: 'unsigned token', path: basePath, body: withBody, as: unsignedToken },
      {
        name: "another tenant's location",
        path: basePath,
        body: withBody,
        headers: { 'x-location-id': other.locationId },
      },
      {
        name: 'another tenant selected',
        path: basePath,
        body: withBody,
        headers: { 'x-tenant-id': other.id },
      },
    )
  }
  return probes
}

/**
 * The headers a route requires, with fresh values, and a fresh idempotency key on every write:
 * a bad request must be refused the same way whether or not it carries a key.
 */
function freshHeaders(route: { method: string; hooks: unknown }): Record<string, string> {
  const schema = (route.hooks as { headers?: Schema }).headers
  const headers: Record<string, string> = {}
  for (const name of schema?.required ?? []) headers[name] = newId()
  if (route.method !== 'GET' && route.method !== 'HEAD') headers['idempotency-key'] = newId()
  return headers
}

function problemFailures(response: TestResponse): string[] {
  const failures: string[] = []
  if (response.status >= 500) failures.push(`status ${response.status}`)
  else if (response.status < 400) failures.push(`accepted with ${response.status}`)
  if (!response.headers.get('content-type')?.includes('application/problem+json'))
    failures.push(`content-type ${response.headers.get('content-type')}`)
  const body = response.body
  if (!body || typeof body !== 'object') failures.push('no problem document')
  else {
    if (body.status !== response.status) failures.push(`problem status ${body.status}`)
    if (typeof body.code !== 'string') failures.push('no problem code')
    if (typeof body.requestId !== 'string' || !body.requestId) failures.push('no requestId')
  }
  return failures
}

// ---------------------------------------------------------------------------------------------

/**
 * The one refused request allowed to write: saving a card first makes the customer's account at
 * the payment provider, and records it (with its audit entry) before the provider refuses the
 * card. That account exists at the provider whatever the answer, and the next attempt reuses it
 * (tests/modules/customers/payment-methods.test.ts, "provider refusals"): not recording it would
 * leave a new orphan account at the provider per declined card.
 */
function withoutExternalRecord(route: { method: string; path: string }, written: string[]): string[] {
  if (route.method !== 'POST' || !/^\/customers?\/:id\/payment-methods$/.test(route.path)) return written
  const record = written.find((w) => /^tenant\.payment_provider_customers (\d+)→(\d+)$/.test(w))
  if (!record) return written
  const oneMore = (w: string) => {
    const [, from, to] = /(\d+)→(\d+)$/.exec(w)!
    return Number(to) === Number(from) + 1
  }
  return written.filter((w) => !((w === record || w.startsWith('tenant.audit_entries ')) && oneMore(w)))
}

const paramCount = (path: string) => path.split(':').length

async function keepCreated(route: { method: string; path: string }, probe: Probe, response: TestResponse) {
  const own = idOf(response.body)
  if (!own || created.has(route.path)) return
  // The same create in the other tenant, at its location.
  const body = JSON.parse(JSON.stringify(probe.body ?? {}).replaceAll(t.tenant.locationId, other.locationId))
  const path = probe.path.replaceAll(t.tenant.locationId, other.locationId)
  const replay = await t.request(route.method, path, {
    as: other.owner,
    tenant: other,
    headers: { 'idempotency-key': newId() },
    body,
  })
  created.set(route.path, { own, other: replay.status < 300 ? idOf(replay.body) : undefined })
}

const groups = new Map<string, typeof t.app.routes>()
for (const route of t.app.routes) {
  const group = route.path.split('/').filter(Boolean)[0] ?? '/'
  groups.set(group, [...(groups.get(group) ?? []), route])
}

describe('every route refuses bad input with a 4xx problem and writes nothing', () => {
  for (const [group, routes] of groups) {
    test(`/${group} (${routes.length} routes)`, async () => {
      const failures: string[] = []
      // Routes with fewer parameters first, so creates run before the routes below them.
      const ordered = [...routes].sort((a, b) => paramCount(a.path) - paramCount(b.path))
      for (const route of ordered) {
        for (const probe of probesFor(route)) {
          const before = snapshot()
          const response = await t.request(route.method, probe.path, {
            as: probe.as === undefined ? t.tenant.owner : probe.as,
            headers: { ...freshHeaders(route), ...probe.headers },
            body: probe.body,
          })
          const label = `${route.method} ${route.path} [${probe.name}]`
          if (response.status < 400 && probe.mayAccept) {
            if (route.method === 'POST' && !route.path.endsWith(':id'))
              await keepCreated(route, probe, response)
            continue
          }
          const wrong = problemFailures(response)
          const written = withoutExternalRecord(route, changedCounts(before, snapshot()))
          if (written.length > 0) wrong.push(`wrote ${written.join(', ')}`)
          if (wrong.length > 0)
            failures.push(
              `${label}: ${wrong.join('; ')} ${response.text.slice(0, 200).replaceAll('\n', ' ')}`,
            )
        }
      }
      expect(failures).toEqual([])
    })
  }
})
