// Walks the whole route table: every route declares a permission primitive from the catalogue,
// unless it is one of the few public routes listed here. Also keeps generated files current.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { renderEmbedded } from '../../scripts/embed-migrations'
import { renderPermissionsDoc } from '../../scripts/permissions-doc'
import { CREDENTIAL_ROUTE_PREFIX, isCredentialScope } from '../../src/platform/auth/credentials'
import { isPermission } from '../../src/platform/auth/permissions'
import { OPERATOR_SECURITY_SCHEME } from '../../src/platform/operator/plugin'
import { createTestApp, type TestApp } from '../harness'
import { publicRoutes } from '../public-routes'

const root = join(import.meta.dir, '..', '..')
const ADMIN_PREFIX = '/admin/'

type Route = TestApp['app']['routes'][number]
const detailOf = (route: Route) => (route.hooks as { detail?: Record<string, unknown> }).detail

/** Routes guarded by the operator credential (`operator: true`): the operator API. */
const isOperatorRoute = (route: Route) =>
  JSON.stringify(detailOf(route)?.security ?? []).includes(OPERATOR_SECURITY_SCHEME)

describe('route table', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  test('every non-public route declares a catalogued permission primitive (operator routes: the operator credential)', () => {
    const missing: string[] = []
    for (const route of t.app.routes) {
      const key = `${route.method} ${route.path}`
      if (publicRoutes.has(key) || isOperatorRoute(route)) continue
      const permission = (route.hooks as { detail?: Record<string, unknown> }).detail?.['x-permission']
      if (typeof permission !== 'string' || !isPermission(permission)) missing.push(key)
    }
    expect(missing).toEqual([])
  })

  test('tables-API routes, and only they, declare a credential scope', () => {
    const wrong: string[] = []
    for (const route of t.app.routes) {
      const scope = (route.hooks as { detail?: Record<string, unknown> }).detail?.['x-credential-scope']
      const tablesApi = route.path.startsWith(CREDENTIAL_ROUTE_PREFIX)
      const valid = typeof scope === 'string' && isCredentialScope(scope)
      if (tablesApi !== valid) wrong.push(`${route.method} ${route.path} (${String(scope)})`)
    }
    expect(wrong).toEqual([])
  })

  test('the operator API, and only it, lives under /admin and takes the operator credential alone', () => {
    const wrong = t.app.routes
      .filter((route) => route.path.startsWith(ADMIN_PREFIX) !== isOperatorRoute(route))
      .map((route) => `${route.method} ${route.path}`)
    expect(wrong).toEqual([])
    const operatorRoutes = t.app.routes.filter(isOperatorRoute)
    expect(operatorRoutes.length).toBeGreaterThan(0)
    for (const route of operatorRoutes) {
      expect(detailOf(route)?.['x-permission']).toBeUndefined()
      expect(detailOf(route)?.security).toEqual([{ [OPERATOR_SECURITY_SCHEME]: [] }])
    }
  })

  test('every public route listed still exists', () => {
    const present = new Set(t.app.routes.map((r) => `${r.method} ${r.path}`))
    expect([...publicRoutes].filter((r) => !present.has(r))).toEqual([])
  })

  test('every route has an OpenAPI summary and tag', async () => {
    const spec = (await t.request('GET', '/openapi.json', { as: null })).body
    const bare: string[] = []
    for (const [path, operations] of Object.entries<Record<string, any>>(spec.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        if (!operation.summary || !operation.tags?.length) bare.push(`${method.toUpperCase()} ${path}`)
      }
    }
    expect(bare).toEqual([])
  })
})

/**
 * Lenient shapes in request bodies: Elysia's `t.Integer` (a union that accepts numeric strings, so
 * "45.00" would pass as money) and required properties with a `default` (what `t.UnionEnum` adds,
 * silently filling a missing field). Bodies use `int()`, `oneOf()` from platform/foundation/types.ts.
 */
function lenientBodyParts(schema: unknown, path = 'body'): string[] {
  if (!schema || typeof schema !== 'object') return []
  const node = schema as Record<string, any>
  const found: string[] = []
  if (
    Array.isArray(node.anyOf) &&
    node.anyOf.some((b: any) => b?.type === 'string' && /^(integer|numeric)$/.test(b?.format))
  ) {
    found.push(`${path}: numeric string accepted`)
  }
  for (const name of node.required ?? []) {
    if (node.properties?.[name] && 'default' in node.properties[name])
      found.push(`${path}/${name}: required with a default`)
  }
  for (const [key, child] of Object.entries(node.properties ?? {}))
    found.push(...lenientBodyParts(child, `${path}/${key}`))
  for (const key of ['items', 'anyOf', 'allOf', 'oneOf'] as const) {
    const value = node[key]
    if (Array.isArray(value)) {
      for (const [i, child] of value.entries()) found.push(...lenientBodyParts(child, `${path}/${key}[${i}]`))
    } else if (value) found.push(...lenientBodyParts(value, `${path}/${key}`))
  }
  return found
}

describe('request body schemas', () => {
  test('no body accepts numeric strings for numbers or fills a missing required field', async () => {
    const t = await createTestApp()
    try {
      const lenient = t.app.routes.flatMap((route) =>
        lenientBodyParts((route.hooks as { body?: unknown }).body).map(
          (p) => `${route.method} ${route.path} ${p}`,
        ),
      )
      expect(lenient).toEqual([])
    } finally {
      t.close()
    }
  })
})

describe('generated files are current', () => {
  test('docs/permissions.md matches the catalogue (bun scripts/permissions-doc.ts)', () => {
    expect(readFileSync(join(root, 'docs', 'permissions.md'), 'utf8')).toBe(renderPermissionsDoc())
  })

  test('migrations/embedded.ts matches the SQL files (npm run db:generate)', () => {
    expect(readFileSync(join(root, 'migrations', 'embedded.ts'), 'utf8')).toBe(renderEmbedded(root))
  })
})
