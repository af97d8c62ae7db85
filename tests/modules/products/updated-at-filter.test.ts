// The Commerce7 `updatedAt` filter: gt:, gte:, lt:, lte:, btw:A|B and bare values, validated.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { ApiError } from '../../../src/platform/foundation/problem'
import { parseDateFilter } from '../../../src/platform/http/date-filter'
import { createTestApp, type TestApp } from '../../harness'
import { createProduct, wine } from './fixtures'

describe('parseDateFilter', () => {
  test('worked examples', () => {
    const p = (raw: string) => parseDateFilter(raw, 'query/updatedAt')
    expect(p('gt:2024-01-31')).toEqual({ from: '2024-02-01T00:00:00.000Z' })
    expect(p('gte:2024-01-31')).toEqual({ from: '2024-01-31T00:00:00.000Z' })
    expect(p('lt:2024-01-31')).toEqual({ to: '2024-01-31T00:00:00.000Z' })
    expect(p('lte:2024-01-31')).toEqual({ to: '2024-02-01T00:00:00.000Z' })
    expect(p('2024-02-29')).toEqual({ from: '2024-02-29T00:00:00.000Z', to: '2024-03-01T00:00:00.000Z' })
    expect(p('btw:2024-01-01|2024-01-31')).toEqual({
      from: '2024-01-01T00:00:00.000Z',
      to: '2024-02-01T00:00:00.000Z',
    })
    expect(p('gt:2024-01-31T10:00:00Z')).toEqual({ from: '2024-01-31T10:00:00.001Z' })
    expect(p('GTE:2024-01-31T12:00:00+02:00')).toEqual({ from: '2024-01-31T10:00:00.000Z' })
    expect(p('lte:2024-01-31T10:00:00.250Z')).toEqual({ to: '2024-01-31T10:00:00.251Z' })
    expect(p('2024-01-31T10:00:00.000Z')).toEqual({
      from: '2024-01-31T10:00:00.000Z',
      to: '2024-01-31T10:00:00.001Z',
    })
  })

  test('garbage is a validation error naming the parameter', () => {
    for (const raw of [
      'yesterday',
      'gt:',
      'gt:2024-13-01',
      'gt:2023-02-29',
      'eq:2024-01-01',
      'gt:2024-01-01T10:00:00',
      'btw:2024-01-01',
      'btw:2024-01-01|2024-01-02|2024-01-03',
      'btw:2024-02-01|2024-01-01',
      'gt:1700000000',
    ]) {
      let error: unknown
      try {
        parseDateFilter(raw, 'query/updatedAt')
      } catch (e) {
        error = e
      }
      expect(error, raw).toBeInstanceOf(ApiError)
      expect((error as ApiError).code).toBe('validation_failed')
      expect((error as ApiError).options.errors?.[0]?.path).toBe('query/updatedAt')
    }
  })

  test('property: a timestamp lies in gte:d and lte:d of its own day, and in exactly one of lt:x / gte:x', () => {
    const instant = fc.integer({ min: Date.parse('2000-01-01'), max: Date.parse('2099-12-31') })
    fc.assert(
      fc.property(instant, instant, (a, b) => {
        const stamp = new Date(a).toISOString()
        const day = stamp.slice(0, 10)
        const inRange = (r: { from?: string; to?: string }) =>
          (r.from === undefined || stamp >= r.from) && (r.to === undefined || stamp < r.to)
        expect(inRange(parseDateFilter(`gte:${day}`, 'q'))).toBe(true)
        expect(inRange(parseDateFilter(`lte:${day}`, 'q'))).toBe(true)
        expect(inRange(parseDateFilter(day, 'q'))).toBe(true)
        const x = new Date(b).toISOString()
        expect(inRange(parseDateFilter(`lt:${x}`, 'q'))).not.toBe(inRange(parseDateFilter(`gte:${x}`, 'q')))
        expect(inRange(parseDateFilter(`gt:${x}`, 'q'))).not.toBe(inRange(parseDateFilter(`lte:${x}`, 'q')))
      }),
    )
  })
})

describe('GET /product?updatedAt=', () => {
  let t: TestApp
  const ids: Record<string, string> = {}
  beforeAll(async () => {
    t = await createTestApp()
    for (const [name, at] of [
      ['dec', '2023-12-31T23:59:59.999Z'],
      ['jan1', '2024-01-01T00:00:00.000Z'],
      ['jan15', '2024-01-15T12:00:00.000Z'],
      ['feb', '2024-02-01T00:00:00.000Z'],
    ] as const) {
      const p = await createProduct(t, wine({ title: name }))
      t.tenant.db.$client.query('UPDATE products SET updated_at = ? WHERE id = ?').run(at, p.id)
      ids[name] = p.id
    }
  })
  afterAll(() => t.close())

  const titles = async (filter: string) => {
    const res = await t.request('GET', `/product?updatedAt=${encodeURIComponent(filter)}`)
    expect(res.status).toBe(200)
    return res.body.products.map((p: { title: string }) => p.title).sort()
  }

  test('each prefix selects what a Commerce7 user expects', async () => {
    expect(await titles('gt:2024-01-01')).toEqual(['feb', 'jan15'])
    expect(await titles('gte:2024-01-01')).toEqual(['feb', 'jan1', 'jan15'])
    expect(await titles('lt:2024-01-01')).toEqual(['dec'])
    expect(await titles('lte:2024-01-15')).toEqual(['dec', 'jan1', 'jan15'])
    expect(await titles('btw:2024-01-01|2024-01-31')).toEqual(['jan1', 'jan15'])
    expect(await titles('2024-01-15')).toEqual(['jan15'])
    expect(await titles('2024-01-15T12:00:00Z')).toEqual(['jan15'])
    expect(await titles('gt:2024-01-15T12:00:00Z')).toEqual(['feb'])
    expect(await titles('gte:2024-01-01T00:00:00.000Z')).toEqual(['feb', 'jan1', 'jan15'])
  })

  test('it combines with the other filters and total counts the matches', async () => {
    const res = await t.request('GET', `/product?updatedAt=gte:2024-01-01&q=jan&limit=1`)
    expect(res.body.total).toBe(2)
    expect(res.body.products).toHaveLength(1)
  })

  test('garbage is 400 naming query/updatedAt', async () => {
    for (const filter of ['soon', 'gt:2024-02-30', 'btw:2024-01-01', 'ne:2024-01-01', '']) {
      const res = await t.request('GET', `/product?updatedAt=${encodeURIComponent(filter)}`)
      expect(res.status, filter).toBe(400)
      expect(res.body.code).toBe('validation_failed')
      expect(res.body.errors[0].path).toBe('query/updatedAt')
    }
  })
})
