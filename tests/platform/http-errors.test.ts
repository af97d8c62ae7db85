// What a client is told when it gets a request wrong: the parameter by name and the values it may
// take, 405 with `Allow` for a wrong method, and a page behind every problem `type` URL.
import { afterAll, describe, expect, test } from 'bun:test'
import { problemStatus, problemTypes } from '../../src/platform/foundation/problem'
import { createTestApp } from '../harness'

const t = await createTestApp()
afterAll(() => t.close())

describe('validation problems name the parameter and what it may be', () => {
  const cases: [string, string, string][] = [
    ['/vendor?limit=1000', 'query/limit', 'less or equal to 100'],
    ['/vendor?page=0', 'query/page', 'greater or equal to 1'],
    ['/vendor?limit=abc', 'query/limit', 'must be an integer from 1 to 100'],
    ['/vendor?page=2&limit=0', 'query/limit', 'greater or equal to 1'],
    ['/order?status=bogus', 'query/status', 'must be one of: draft, submitted, paid, closed, voided'],
  ]
  for (const [path, field, message] of cases)
    test(`GET ${path}: ${field}`, async () => {
      const res = await t.request('GET', path)
      expect(res.status).toBe(400)
      expect(res.body.errors).toEqual([{ path: field, message: expect.stringContaining(message) }])
      expect(res.body.detail).toBe(`${field}: ${res.body.errors[0].message}`)
    })

  test('a body enum lists its values', async () => {
    const res = await t.request('POST', '/vendor', { body: { name: 'Acme', status: 'gone' } })
    expect(res.status).toBe(400)
    expect(res.body.errors).toEqual([{ path: 'body/status', message: 'must be one of: active, inactive' }])
  })

  test('a valid request still passes', async () => {
    expect((await t.request('GET', '/vendor?page=1&limit=100')).status).toBe(200)
  })
})

describe('a wrong method on a known path', () => {
  test('is 405 with the methods the path has in Allow', async () => {
    const res = await t.request('PATCH', '/vendor')
    expect(res.status).toBe(405)
    expect(res.body).toMatchObject({ code: 'method_not_allowed', type: '/problems/method-not-allowed' })
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST')
  })

  test('on a path with parameters too', async () => {
    const res = await t.request('POST', '/vendor/some-id')
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT')
  })

  test('without a token it is still 405, and writes nothing', async () => {
    const res = await t.request('PUT', '/vendor', { as: null, body: { name: 'x' } })
    expect(res.status).toBe(405)
    expect((await t.request('GET', '/vendor')).body.vendors).toEqual([])
  })

  test('an unknown path stays 404, without Allow', async () => {
    const res = await t.request('PATCH', '/no/such/path')
    expect(res.status).toBe(404)
    expect(res.headers.get('allow')).toBeNull()
  })
})

describe('problem type pages', () => {
  for (const code of Object.keys(problemStatus) as (keyof typeof problemStatus)[]) {
    const slug = code.replaceAll('_', '-')
    test(`/problems/${slug} explains ${code}, as HTML and as JSON`, async () => {
      const html = await t.request('GET', `/problems/${slug}`, { as: null })
      expect(html.status).toBe(200)
      expect(html.headers.get('content-type')).toStartWith('text/html')
      expect(html.text).toContain(`<h1>${problemTypes[code].title}</h1>`)
      const json = await t.request('GET', `/problems/${slug}`, {
        as: null,
        headers: { accept: 'application/json' },
      })
      expect(json.body).toEqual({
        code,
        type: `/problems/${slug}`,
        title: problemTypes[code].title,
        status: problemStatus[code],
        explanation: problemTypes[code].explanation,
      })
    })
  }

  test('the type of a real problem document is served', async () => {
    const problem = await t.request('GET', '/vendor/missing')
    expect(problem.status).toBe(404)
    const page = await t.request('GET', problem.body.type, {
      as: null,
      headers: { accept: 'application/json' },
    })
    expect(page.body.code).toBe('not_found')
  })

  test('an unknown type is 404, and markup in the path is not echoed', async () => {
    const res = await t.request('GET', '/problems/%3Cscript%3E', { as: null })
    expect(res.status).toBe(404)
    expect(res.text).not.toContain('<script>')
  })
})
