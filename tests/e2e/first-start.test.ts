// A new user's first steps (issue 35): on an empty data directory `serve` listens at once while a
// child process makes the demo (src/modules/tenants/fill-process.ts), so /health/live answers
// promptly all through the first start and /health/ready says 503 until the demo is in place.
import { expect, test } from 'bun:test'
import { freshDataDir, runtimes, startServer } from './cli'

const demo = { DEFAULT_TENANT_SEED: 'demo' }

/** The bound on each /health/live answer at any moment of a first start. */
const LIVE_WITHIN_MS = 100
const POLL_EVERY_MS = 20
/** Polling goes on this long once ready: the jobs meet the new tenant then (webhooks: every second). */
const AFTER_READY_MS = 1500

for (const [runtime, command] of runtimes) {
  test(`${runtime}: /health/live answers within ${LIVE_WITHIN_MS} ms all through a first start with the demo`, async () => {
    const server = await startServer(command(), { DATA_DIR: freshDataDir(), ...demo })
    try {
      const slow: number[] = []
      let pollsWhileMaking = 0
      let readySince: number | undefined
      while (readySince === undefined || performance.now() - readySince < AFTER_READY_MS) {
        const sent = performance.now()
        const live = await fetch(`${server.url}/health/live`)
        const body = await live.json()
        const ms = performance.now() - sent
        expect({ status: live.status, body }).toEqual({ status: 200, body: { status: 'ok' } })
        if (ms >= LIVE_WITHIN_MS) slow.push(Math.round(ms))
        if (readySince === undefined) {
          const ready = await fetch(`${server.url}/health/ready`)
          const { checks } = (await ready.json()) as { checks: Record<string, string> }
          if (ready.status === 200) readySince = performance.now()
          else {
            expect({ status: ready.status, making: checks.defaultTenant }).toEqual({
              status: 503,
              making: 'pending',
            })
            pollsWhileMaking++
          }
        }
        await Bun.sleep(POLL_EVERY_MS)
      }
      // The demo was made while the server answered: the polls saw it under way.
      expect(pollsWhileMaking).toBeGreaterThanOrEqual(10)
      expect(slow).toEqual([])
    } finally {
      await server.stop()
    }
  })
}
