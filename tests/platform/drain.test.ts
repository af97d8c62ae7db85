// The HTTP side of a graceful stop, in process: requests admitted before `begin` finish normally
// with `Connection: close`; requests after it are refused with a retry-safe 503 and never run;
// `quiet` waits for a window without arrivals. Over real sockets: tests/e2e/operations.test.ts.
import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { createLogger } from '../../src/platform/foundation/log'
import { ApiError } from '../../src/platform/foundation/problem'
import { httpConventions } from '../../src/platform/http/conventions'
import { Drain } from '../../src/platform/http/drain'

function drainingApp() {
  const drain = new Drain()
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const ran: string[] = []
  const app = new Elysia()
    .use(httpConventions({ maxBodyBytes: 1024, log: createLogger('silent'), drain }))
    .get('/fast', () => {
      ran.push('fast')
      return { ok: true }
    })
    .get('/slow', async () => {
      await released
      ran.push('slow')
      return { ok: true }
    })
    .get('/slow-failure', async () => {
      await released
      throw new ApiError('conflict', 'failed after the signal')
    })
  const get = (path: string, headers: Record<string, string> = {}) =>
    app.handle(new Request(`http://localhost${path}`, { headers }))
  return { drain, app, get, release, ran }
}

describe('drain', () => {
  test('before begin, responses keep the connection open', async () => {
    const { get } = drainingApp()
    const res = await get('/fast')
    expect(res.status).toBe(200)
    expect(res.headers.get('connection')).toBeNull()
  })

  test('requests in flight at begin finish normally, successes and failures, with Connection: close', async () => {
    const { drain, get, release, ran } = drainingApp()
    const success = get('/slow')
    const failure = get('/slow-failure')
    await Bun.sleep(10)
    drain.begin()
    release()
    const [ok, failed] = await Promise.all([success, failure])
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ ok: true })
    expect(ok.headers.get('connection')).toBe('close')
    expect(failed.status).toBe(409)
    expect(failed.headers.get('connection')).toBe('close')
    expect(ran).toEqual(['slow'])
    expect(drain.refused).toBe(0)
  })

  test('requests read after begin are refused with a 503 problem, told to close and retry, and never run', async () => {
    const { drain, get, ran } = drainingApp()
    drain.begin()
    const res = await get('/fast', { 'x-request-id': 'late-1' })
    expect(res.status).toBe(503)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    expect(res.headers.get('connection')).toBe('close')
    expect(res.headers.get('retry-after')).toBe('1')
    expect(await res.json()).toMatchObject({ status: 503, code: 'unavailable', requestId: 'late-1' })
    expect(ran).toEqual([])
    expect(drain.refused).toBe(1)
  })

  test('an unknown route after begin is refused the same way, not answered 404', async () => {
    const { drain, get } = drainingApp()
    drain.begin()
    expect((await get('/no/such/route')).status).toBe(503)
  })

  test('quiet resolves after a window without arrivals, not while requests keep coming', async () => {
    const { drain, get } = drainingApp()
    const started = performance.now()
    await drain.quiet(50)
    expect(performance.now() - started).toBeLessThan(250)

    let arriving = true
    const arrivals = (async () => {
      while (arriving) {
        await get('/fast')
        await Bun.sleep(10)
      }
    })()
    setTimeout(() => {
      arriving = false
    }, 300)
    const waited = performance.now()
    await drain.quiet(50)
    expect(performance.now() - waited).toBeGreaterThanOrEqual(300)
    await arrivals
  })
})
