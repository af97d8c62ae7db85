// The limits of a JSON body (platform/http/request-body.ts): its depth by its bytes, its keys and
// items by its schema, then its schema with errors that never carry the refused value.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { ApiError } from '../../src/platform/foundation/problem'
import { MAX_FREE_FORM_KEYS } from '../../src/platform/foundation/types'
import {
  assertBodyShape,
  assertJsonDepth,
  MAX_UNBOUNDED_ENTRIES,
  MAX_UNKNOWN_KEYS,
} from '../../src/platform/http/request-body'
import { createTestApp, type TestApp } from '../harness'

const bytes = (text: string) => new TextEncoder().encode(text)
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
const refusedAt = (run: () => void) => {
  try {
    run()
  } catch (error) {
    return (error as ApiError).options.errors?.[0]
  }
  return undefined
}

describe('a body’s depth, by its bytes', () => {
  test('32 levels pass, 33 are refused, objects and arrays alike', () => {
    expect(refusedAt(() => assertJsonDepth(bytes(deepObject(32)), 32))).toBeUndefined()
    expect(refusedAt(() => assertJsonDepth(bytes(deepObject(33)), 32))).toEqual({
      path: 'body',
      message: 'nests objects and arrays deeper than 32 levels (MAX_JSON_DEPTH)',
    })
    expect(refusedAt(() => assertJsonDepth(bytes(`${'['.repeat(33)}${']'.repeat(33)}`), 32))?.path).toBe(
      'body',
    )
    expect(refusedAt(() => assertJsonDepth(bytes(`[${'{"a":['.repeat(17)}]`), 32))?.path).toBe('body')
  })

  test('brackets inside strings, escaped quotes included, do not count', () => {
    const text = JSON.stringify({ note: `${'['.repeat(100)}\\"${'{'.repeat(100)}`, more: '"[[[[' })
    expect(refusedAt(() => assertJsonDepth(bytes(text), 2))).toBeUndefined()
    expect(refusedAt(() => assertJsonDepth(bytes(`{"a":"\\\\",${'"b":['.repeat(1)}[[1]]]}`), 3))?.path).toBe(
      'body',
    )
  })

  test('siblings do not add up: depth is nesting, not count', () => {
    const wide = `[${Array(1000).fill('[[1]]').join(',')}]`
    expect(refusedAt(() => assertJsonDepth(bytes(wide), 3))).toBeUndefined()
  })
})

describe('a body’s keys and items, by its schema', () => {
  const closed = {
    type: 'object',
    properties: { a: { type: 'string' } },
    additionalProperties: false,
  } as never
  const open = { type: 'object', properties: { a: { type: 'string' } } } as never
  const list = { type: 'object', properties: { items: { type: 'array', maxItems: 3, items: open } } } as never

  test('an object holds its declared keys and MAX_UNKNOWN_KEYS more, closed or open', () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))
    for (const schema of [closed, open]) {
      expect(refusedAt(() => assertBodyShape(schema, keys(1 + MAX_UNKNOWN_KEYS)))).toBeUndefined()
      expect(refusedAt(() => assertBodyShape(schema, keys(2 + MAX_UNKNOWN_KEYS)))).toEqual({
        path: 'body',
        message: `holds more than ${1 + MAX_UNKNOWN_KEYS} keys`,
      })
    }
  })

  test('an array holds its maxItems, and each item is held to the item schema, with the path named', () => {
    expect(refusedAt(() => assertBodyShape(list, { items: [{}, {}, {}, {}] }))).toEqual({
      path: 'body/items',
      message: 'holds more than 3 items',
    })
    const crowded = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]))
    expect(refusedAt(() => assertBodyShape(list, { items: [{}, crowded] }))?.path).toBe('body/items/1')
  })

  test('where no schema speaks (an unknown key, a free-form value), the unbounded limits hold', () => {
    const long = Array(MAX_UNBOUNDED_ENTRIES + 1).fill(0)
    expect(refusedAt(() => assertBodyShape(open, { x: long }))).toEqual({
      path: 'body/x',
      message: `holds more than ${MAX_UNBOUNDED_ENTRIES} items`,
    })
    expect(refusedAt(() => assertBodyShape(undefined, { x: { y: long } }))?.path).toBe('body/x/y')
    expect(
      refusedAt(() => assertBodyShape(undefined, { x: Array(MAX_UNBOUNDED_ENTRIES).fill(0) })),
    ).toBeUndefined()
  })

  test('a union is held to the largest bound among the branches that fit', () => {
    const union = {
      anyOf: [{ type: 'array', maxItems: 2 }, { type: 'array', maxItems: 5 }, { type: 'null' }],
    } as never
    expect(refusedAt(() => assertBodyShape(union, [1, 2, 3, 4, 5]))).toBeUndefined()
    expect(refusedAt(() => assertBodyShape(union, [1, 2, 3, 4, 5, 6]))?.message).toBe(
      'holds more than 5 items',
    )
  })
})

describe('JSON bodies over HTTP', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  const customers = () =>
    t.tenant.db.$client.query('SELECT count(*) AS n FROM customers').get() as { n: number }

  test('a body nested deeper than MAX_JSON_DEPTH is 400 naming the limit, and writes nothing', async () => {
    const before = customers().n
    const res = await t.request('POST', '/customers', {
      body: `{"firstName":"A","lastName":"B","x":${deepObject(40)}}`,
    })
    expect(res.status).toBe(400)
    expect(res.body.errors).toEqual([
      { path: 'body', message: 'nests objects and arrays deeper than 32 levels (MAX_JSON_DEPTH)' },
    ])
    expect(customers().n).toBe(before)
  })

  test('MAX_JSON_DEPTH is the server’s setting', async () => {
    const shallow = await createTestApp({ config: { maxJsonDepth: 8 } })
    try {
      const res = await shallow.request('POST', '/customers', {
        body: `{"firstName":"A","lastName":"B","x":${deepObject(8)}}`,
      })
      expect(res.body.errors[0].message).toContain('deeper than 8 levels')
    } finally {
      await shallow.close()
    }
  })

  test('a free-form object holds MAX_FREE_FORM_KEYS keys, and its schema says so', async () => {
    const metaData = Object.fromEntries(
      Array.from({ length: MAX_FREE_FORM_KEYS + 1 }, (_, i) => [`k${i}`, i]),
    )
    const res = await t.request('POST', '/product', { body: { title: 'Too much', metaData } })
    expect(res.status).toBe(400)
    expect(res.body.errors[0]).toEqual({
      path: 'body/metaData',
      message: `holds more than ${MAX_FREE_FORM_KEYS} keys`,
    })
  })

  test('a refusal lists at most ten fields, each message clipped, never the refused value', async () => {
    const huge = 'x'.repeat(10_000)
    const res = await t.request('POST', '/customers', {
      body: {
        firstName: huge,
        lastName: 7,
        email: huge,
        phone: [huge],
        birthDate: huge,
        addresses: Array.from({ length: 20 }, () => ({ address1: 1, city: huge, countryCode: huge })),
      },
    })
    expect(res.status).toBe(400)
    expect(res.text.length).toBeLessThan(4096)
    expect(res.body.errors.length).toBeGreaterThan(1)
    expect(res.body.errors.length).toBeLessThanOrEqual(10)
    for (const error of res.body.errors) expect(error.message.length).toBeLessThanOrEqual(200)
  })

  test('a caller without the permission learns nothing of the schema: 403 before the body’s check', async () => {
    const res = await t.request('POST', '/customers', { as: t.tenant.readOnly, body: { firstName: 1 } })
    expect(res.status).toBe(403)
  })

  test('a valid body still goes through, checked once by the service', async () => {
    const res = await t.request('POST', '/customers', {
      body: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
    })
    expect(res.status).toBe(201)
  })
})

describe('the route table’s body schemas', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  type Node = Record<string, unknown> & { anyOf?: Node[]; properties?: Record<string, Node>; items?: Node }
  /** Every array and map in a schema that declares no bound of its own, by path. */
  const unbounded = (schema: Node | undefined, path: string): string[] => {
    if (!schema || typeof schema !== 'object') return []
    const found: string[] = []
    if (schema.type === 'array' && schema.maxItems === undefined) found.push(path)
    const isMap = schema.patternProperties !== undefined || typeof schema.additionalProperties === 'object'
    if (schema.type === 'object' && isMap && schema.maxProperties === undefined) found.push(`${path} (map)`)
    for (const branch of schema.anyOf ?? []) found.push(...unbounded(branch, path))
    for (const [key, child] of Object.entries(schema.properties ?? {}))
      found.push(...unbounded(child, `${path}/${key}`))
    found.push(...unbounded(schema.items, `${path}/*`))
    if (typeof schema.additionalProperties === 'object')
      found.push(...unbounded(schema.additionalProperties as Node, `${path}/*`))
    return found
  }

  test('every array and map a body may hold declares its bound, so the document shows it', () => {
    const found = t.app.routes.flatMap((route) =>
      unbounded(route.hooks.body as Node | undefined, `${route.method} ${route.path} body`),
    )
    expect(found).toEqual([])
  })

  test('no body schema is also a response’s: marking a body unchecked by Elysia leaves every response checked', () => {
    const bodies = new Set(t.app.routes.map((route) => route.hooks.body).filter(Boolean))
    const responses = t.app.routes.flatMap((route) => {
      const response = route.hooks.response as Record<string, unknown> | undefined
      if (!response) return []
      return 'type' in response || 'anyOf' in response ? [response] : Object.values(response)
    })
    expect(responses.filter((schema) => bodies.has(schema))).toEqual([])
  })
})
