// RESPONSE_VALIDATION off (serve's default) skips the per-request response check, and nothing else:
// inputs are still validated, and the OpenAPI document built from the same schemas is unchanged.
import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { configFor, loadConfig } from '../../src/config'
import { skipResponseChecks } from '../../src/platform/http/response-checks'

function toyApp() {
  const Thing = t.Object({ id: t.String(), count: t.Integer() })
  const Name = t.Object({ name: t.String() })
  const app = new Elysia({ normalize: false })
    .get('/thing', () => ({ id: 'a', count: 1.5 }) as never, { response: Thing })
    .post(
      '/thing',
      ({ set }) => {
        set.status = 201
        return { id: 'b', count: 'many' } as never
      },
      { response: { 201: Thing } },
    )
    // Name is both a body and a response: it must keep its check, or the body would go unchecked.
    .post('/name', ({ body }) => body, { body: Name, response: Name })
  return { app, Thing, Name }
}

const send = (
  app: { handle(request: Request): Promise<Response> },
  method: string,
  path: string,
  body?: unknown,
) =>
  app.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  )

describe('response checks', () => {
  test('checked by default: a response off its schema is refused', async () => {
    const { app } = toyApp()
    expect((await send(app, 'GET', '/thing')).status).toBe(422)
    expect((await send(app, 'POST', '/thing')).status).toBe(422)
  })

  test('skipped: responses go out unchecked, a single schema and one per status alike', async () => {
    const { app } = toyApp()
    expect(skipResponseChecks(app)).toBe(1) // Thing, marked once for both routes
    const single = await send(app, 'GET', '/thing')
    expect(single.status).toBe(200)
    expect(await single.json()).toEqual({ id: 'a', count: 1.5 })
    expect((await send(app, 'POST', '/thing')).status).toBe(201)
  })

  test('a schema that is also an input keeps its check, so bodies stay validated', async () => {
    const { app, Name } = toyApp()
    skipResponseChecks(app)
    expect((Name as { noValidate?: boolean }).noValidate).toBeUndefined()
    expect((await send(app, 'POST', '/name', { name: 5 })).status).toBe(422)
    expect((await send(app, 'POST', '/name', { name: 'ok' })).status).toBe(200)
  })

  test('the mark is invisible to JSON and to copies: the OpenAPI document does not change', () => {
    const { app, Thing } = toyApp()
    const before = JSON.stringify(Thing)
    skipResponseChecks(app)
    expect((Thing as { noValidate?: boolean }).noValidate).toBe(true)
    expect(JSON.stringify(Thing)).toBe(before)
    expect('noValidate' in { ...Thing }).toBe(false)
  })

  test('serve skips them unless RESPONSE_VALIDATION=true; in-process apps check them', () => {
    expect(loadConfig({}).responseValidation).toBe(false)
    expect(loadConfig({ RESPONSE_VALIDATION: 'true' }).responseValidation).toBe(true)
    expect(configFor({}).responseValidation).toBe(true)
  })
})
