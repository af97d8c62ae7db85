// The in-process scheduler: no overlap, queued re-runs, failures recorded, stop waits.

import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../src/platform/foundation/log'
import { Scheduler } from '../../src/platform/jobs/scheduler'
import { PrimaryLink, type ToPrimary } from '../../src/platform/primary-link'
import { drizzleOn } from '../../src/platform/tenancy/databases'
import { openSqlite } from '../../src/platform/tenancy/sqlite'
import {
  commitsPending,
  groupCommits,
  inWriteTransaction,
  sqliteOf,
} from '../../src/platform/tenancy/transaction'
import { waitFor } from '../modules/webhooks/receiver'

const scheduler = () => new Scheduler(createLogger('silent'))
let current: Scheduler | undefined
afterEach(async () => {
  await current?.stop()
})

function gate() {
  let open!: () => void
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

describe('scheduler', () => {
  test('a job never overlaps itself, however often it is triggered', async () => {
    current = scheduler()
    let running = 0
    let maxRunning = 0
    let runs = 0
    const release = gate()
    current.register({
      name: 'slow',
      intervalMs: 1,
      run: async () => {
        running++
        maxRunning = Math.max(maxRunning, running)
        runs++
        if (runs === 1) await release.promise
        running--
      },
    })
    current.start()
    await waitFor(() => runs === 1, 'first run')
    for (let i = 0; i < 10; i++) current.trigger('slow')
    await Bun.sleep(20)
    expect(runs).toBe(1)
    release.open()
    await waitFor(() => runs >= 3, 'later runs')
    expect(maxRunning).toBe(1)
  })

  test('first runs go one turn of the event loop apart, so that other work is done between them', async () => {
    current = scheduler()
    const order: string[] = []
    for (const name of ['a', 'b', 'c'])
      current.register({ name, intervalMs: 60_000, run: () => void order.push(name) })
    current.start()
    // Stands for a request that arrives as the server starts.
    setTimeout(() => order.push('request'), 0)
    await waitFor(() => order.length === 4, 'the first runs')
    expect(order.indexOf('request')).toBeLessThan(order.indexOf('b'))
    expect(order.filter((name) => name !== 'request')).toEqual(['a', 'b', 'c'])
  })

  test('a trigger during a run queues exactly one more run', async () => {
    current = scheduler()
    let runs = 0
    const release = gate()
    current.register({
      name: 'once-more',
      intervalMs: 60_000,
      run: async () => {
        runs++
        if (runs === 1) await release.promise
      },
    })
    current.start()
    await waitFor(() => runs === 1, 'first run')
    current.trigger('once-more')
    current.trigger('once-more')
    release.open()
    await waitFor(() => runs === 2, 'the queued run')
    await Bun.sleep(20)
    expect(runs).toBe(2)
    expect(current.status()[0]!.runs).toBe(2)
  })

  test('a trigger beside a write runs the job after that write has committed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restaurant-ops-test-jobs-'))
    try {
      const sqlite = openSqlite(join(dir, 't.sqlite'), { synchronous: 'NORMAL', busyTimeoutMs: 1000 })
      groupCommits(sqlite, 1000)
      const db = drizzleOn(sqlite)
      sqlite.run('CREATE TABLE work (id INTEGER PRIMARY KEY)')
      current = scheduler()
      const seen: number[] = []
      current.register({
        name: 'after-commit',
        intervalMs: 60_000,
        runAtStart: false,
        // Another connection sees only what is committed, as the due index's sweep does.
        run: () => {
          const reader = new Database(join(dir, 't.sqlite'), { readonly: true })
          seen.push((reader.query('SELECT count(*) AS n FROM work').get() as { n: number }).n)
          reader.close()
        },
      })
      current.start()
      // A request's write, its group committing after the turn (setImmediate), and the trigger.
      // A handler resumed in the event loop's immediate phase (after an await) is where Bun runs
      // a timer due by then before an immediate queued beside it: the run came before the commit.
      setImmediate(() => {
        inWriteTransaction(db, (tx) => sqliteOf(tx).run('INSERT INTO work DEFAULT VALUES'))
        expect(commitsPending()).toBeDefined()
        current!.trigger('after-commit')
        const turnEnds = performance.now() + 3
        while (performance.now() < turnEnds) {}
      })
      await waitFor(() => seen.length === 1, 'the triggered run')
      expect(seen).toEqual([1])
      sqlite.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a failing run is recorded and the job keeps its schedule', async () => {
    current = scheduler()
    let runs = 0
    current.register({
      name: 'flaky',
      intervalMs: 1,
      run: () => {
        runs++
        if (runs <= 2) throw new Error(`boom ${runs}`)
      },
    })
    current.start()
    await waitFor(() => runs >= 3 && current!.status()[0]!.lastSuccessAt, 'recovery')
    const [status] = current.status()
    expect(status).toMatchObject({ name: 'flaky', failures: 2, consecutiveFailures: 0, lastError: 'boom 2' })
    expect(status!.lastErrorAt).toBeString()
  })

  test('nothing runs before start; runAtStart false waits an interval', async () => {
    current = scheduler()
    let runs = 0
    current.register({ name: 'later', intervalMs: 60_000, runAtStart: false, run: () => void runs++ })
    await Bun.sleep(10)
    current.trigger('later')
    expect(runs).toBe(0)
    current.start()
    await Bun.sleep(20)
    expect(runs).toBe(0)
    await current.runNow('later')
    expect(runs).toBe(1)
  })

  test('stop aborts the signal and waits for the running job to finish', async () => {
    current = scheduler()
    let finished = false
    let sawAbort = false
    let started = false
    current.register({
      name: 'long',
      intervalMs: 1,
      run: async (signal) => {
        started = true
        await new Promise((resolve) => signal.addEventListener('abort', resolve))
        sawAbort = signal.aborted
        await Bun.sleep(10)
        finished = true
      },
    })
    current.start()
    await waitFor(() => started, 'start')
    await current.stop()
    expect(sawAbort).toBe(true)
    expect(finished).toBe(true)
    expect(current.status()[0]!.running).toBe(false)
  })

  test('names are unique and intervals positive', () => {
    current = scheduler()
    current.register({ name: 'a', intervalMs: 1, run: () => {} })
    expect(() => current!.register({ name: 'a', intervalMs: 1, run: () => {} })).toThrow('already registered')
    expect(() => current!.register({ name: 'b', intervalMs: 0, run: () => {} })).toThrow('positive')
  })

  test("an HTTP worker's scheduler runs nothing: it passes triggers to the primary and shows the primary's jobs", async () => {
    const sent: ToPrimary[] = []
    const link = new PrimaryLink(2, (message) => sent.push(message))
    current = new Scheduler(createLogger('silent'), link)
    let runs = 0
    current.register({ name: 'local', intervalMs: 1, run: () => void runs++ })
    current.start()
    current.trigger('local')
    current.trigger('local')
    await new Promise((resolve) => setImmediate(resolve))
    await Bun.sleep(0)
    expect(sent).toEqual([{ type: 'after-commits', written: [], triggers: ['local'], wakes: [], paths: [] }])
    expect(runs).toBe(0)
    expect(current.status()).toEqual([])
    const primaryJob = {
      ...{ name: 'webhooks.deliver', intervalMs: 1000, running: false, runs: 3, failures: 0 },
      ...{ consecutiveFailures: 0, lastStartedAt: null, lastFinishedAt: null, lastSuccessAt: null },
      ...{ lastError: null, lastErrorAt: null, nextRunAt: null },
    }
    link.received({
      type: 'status',
      status: { jobs: [primaryJob], workers: [], startupWork: [], replication: null },
    })
    expect(current.status().map((job) => job.name)).toEqual(['webhooks.deliver'])
  })
})
