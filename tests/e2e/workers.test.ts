// `serve` with two HTTP workers behind one port (WORKERS=2, src/cli/workers.ts): what one process
// kept in memory holds across them, and the faults of a worker and of the primary.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { startReceiver, waitFor } from '../modules/webhooks/receiver'
import { type RunningServer, sharedDataDir, sourceCommand, startServer, tenantWithOwner } from './cli'
import { connectionPerWorker, RawConnection, requestBytes } from './raw-http'

async function ask(connection: RawConnection, method: string, path: string, token: string, body?: unknown) {
  await connection.send(requestBytes(method, path, { authorization: `Bearer ${token}` }, body))
  return (await connection.response())!
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A fresh connection served by `worker`, on which a stream was asked for. */
async function askForStream(
  server: RunningServer,
  worker: number,
  path: string,
  headers: Record<string, string>,
) {
  const connections = await connectionPerWorker(server.port, 2)
  for (const [id, other] of connections) if (id !== worker) other.close()
  const connection = connections.get(worker)!
  await connection.send(requestBytes('GET', path, headers))
  return connection
}

interface HealthWorker {
  id: number
  pid: number
  state: string
  restarts: number
}

async function workersOf(server: RunningServer, operatorKey: string): Promise<HealthWorker[]> {
  const health = await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${operatorKey}` } })
  return ((await health.json()) as { workers: HealthWorker[] }).workers
}

describe('serve with two workers on one port', () => {
  const shared = sharedDataDir({ WORKERS: '2', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
  let server: RunningServer
  let locationId: string
  let ownerToken: string
  let operatorKey: string
  let connections: Map<number, RawConnection>

  beforeAll(async () => {
    server = await shared.startServer()
    locationId = (await shared.cli('location', 'create', '--tenant', 'default', '--name', 'Patio')).id
    ownerToken = (await shared.cli('token', '--tenant', 'default', '--subject', 'owner')).token
    operatorKey = (await shared.cli('operator-key', 'create', '--name', 'ci')).token
    connections = await connectionPerWorker(server.port, 2)
  })
  afterAll(() => {
    for (const connection of connections.values()) connection.close()
  })

  test('/health names the worker that answers and shows both, with their pids to operators only', async () => {
    const [first, second] = [...connections.values()]
    const seen = [first!, second!].map(async (connection) => {
      await connection.send(requestBytes('GET', '/health', {}))
      return JSON.parse((await connection.response())!.body)
    })
    const bodies = await Promise.all(seen)
    expect(bodies.map((body) => body.worker).sort()).toEqual([1, 2])
    for (const body of bodies) {
      expect(body.workers.map((worker: HealthWorker) => [worker.id, worker.pid])).toEqual([
        [1, null],
        [2, null],
      ])
      // The primary's jobs, not a worker's idle scheduler.
      expect(body.jobs.find((job: { name: string }) => job.name === 'webhooks.deliver').runs).toBeGreaterThan(
        0,
      )
    }
    const detailed = await workersOf(server, operatorKey)
    expect(detailed.map((worker) => worker.state)).toEqual(['serving', 'serving'])
    expect(detailed.every((worker) => worker.pid !== server.pid && alive(worker.pid))).toBe(true)
  })

  test("the primary, which answers from its start, has handed the port over: every new connection is a worker's", async () => {
    const answeredBy = new Set<unknown>()
    for (let i = 0; i < 20; i++) {
      const connection = await RawConnection.open(server.port)
      await connection.send(requestBytes('GET', '/health', {}))
      answeredBy.add(JSON.parse((await connection.response())!.body).worker)
      connection.close()
    }
    expect([...answeredBy].every((worker) => worker === 1 || worker === 2)).toBe(true)
  })

  test("a credential's rate limit holds across the workers: 10 a minute is 10, not 20", async () => {
    const { token } = await shared.cli(
      ...[
        'credential',
        'create',
        '--tenant',
        'default',
        '--name',
        'Partner',
        '--scopes',
        'reservations:read',
      ],
      ...['--locations', locationId, '--rate-limit', '10'],
    )
    const path = `/tables-api/v1/locations/${locationId}/reservations?dateFrom=2026-01-01&dateTo=2026-01-31`
    const [first, second] = [...connections.values()]
    const statuses: number[] = []
    for (let i = 0; i < 20; i++)
      statuses.push((await ask(i % 2 ? first! : second!, 'GET', path, token)).status)
    // Both workers answered 200 five times before either refused.
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200))
    expect(statuses.slice(10)).toEqual(Array(10).fill(429))
  })

  test('gift card lookup misses hold across the workers: twenty spread over both lock the lookups on both', async () => {
    const [first, second] = [...connections.values()]
    const misses: number[] = []
    for (let i = 0; i < 20; i++)
      misses.push(
        (await ask(i % 2 ? first! : second!, 'GET', `/gift-card/lookup?code=GUESS${i}`, ownerToken)).status,
      )
    expect(misses).toEqual(Array(20).fill(404))
    for (const connection of [first!, second!])
      expect((await ask(connection, 'GET', '/gift-card/lookup?code=GUESS-MORE', ownerToken)).status).toBe(429)
  })

  test('a credential revoked through one worker is refused by both on the very next request', async () => {
    const created = await shared.cli(
      ...['credential', 'create', '--tenant', 'default', '--name', 'Kiosk', '--scopes', 'reservations:read'],
      ...['--locations', locationId],
    )
    const path = `/tables-api/v1/locations/${locationId}/reservations?dateFrom=2026-01-01&dateTo=2026-01-31`
    const [first, second] = [...connections.values()]
    // Both hold the principal in their caches.
    expect((await ask(first!, 'GET', path, created.token)).status).toBe(200)
    expect((await ask(second!, 'GET', path, created.token)).status).toBe(200)
    const revoked = await ask(first!, 'POST', `/credentials/${created.id}/revoke`, ownerToken)
    expect(revoked.status).toBe(200)
    expect((await ask(second!, 'GET', path, created.token)).status).toBe(401)
    expect((await ask(first!, 'GET', path, created.token)).status).toBe(401)
  })

  test('passcode lockouts hold across the workers: five wrong guesses spread over both lock the staff user on both', async () => {
    const staff = await shared.cli(
      ...['staff', 'create', '--tenant', 'default', '--email', 'pos@default.test', '--first-name', 'Pat'],
      ...['--last-name', 'Lee', '--role', 'staff', '--location', locationId, '--passcode', '4821'],
    )
    const [first, second] = [...connections.values()]
    const signIn = async (connection: RawConnection, passcode: string) => {
      const body = { locationId, staffUserId: staff.id, passcode }
      await connection.send(
        requestBytes('POST', '/auth/passcode-sessions', { 'x-tenant-slug': 'default' }, body),
      )
      return (await connection.response())!.status
    }
    const guesses: number[] = []
    for (let i = 0; i < 5; i++) guesses.push(await signIn(i % 2 ? first! : second!, '0000'))
    expect(guesses).toEqual([401, 401, 401, 401, 401])
    expect(await signIn(first!, '4821')).toBe(429)
    expect(await signIn(second!, '4821')).toBe(429)
  })

  test("a worker's write is delivered to webhooks by the primary at once, once", async () => {
    const receiver = startReceiver()
    try {
      const [first, second] = [...connections.values()]
      const subscription = { object: 'vendor', action: 'create', url: receiver.url }
      expect((await ask(first!, 'POST', '/web-hook', ownerToken, subscription)).status).toBe(201)
      const created = await ask(second!, 'POST', '/vendor', ownerToken, { name: 'Delivered' })
      expect(created.status).toBe(201)
      // The primary's sweep of the due index runs every five minutes: only the worker's hint
      // brings the delivery within the wait.
      await waitFor(() => receiver.received.length > 0, 'the delivery')
      expect(receiver.received.map((delivery) => delivery.json.payload.id)).toEqual([
        JSON.parse(created.body).id,
      ])
    } finally {
      receiver.stop()
    }
  })

  test("a family's job asked for by a worker's write runs in the primary at once: an import is worked", async () => {
    const form = new FormData()
    form.set('kind', 'customers')
    form.set(
      'file',
      new Blob(['email,firstName,lastName\nworked@import.test,Wor,Ked\n'], { type: 'text/csv' }),
      'c.csv',
    )
    const queued = await fetch(`${server.url}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerToken}` },
      body: form,
    })
    expect(queued.status).toBe(202)
    const { id } = (await queued.json()) as { id: string }
    // The imports job runs every 30 s on its own: only the worker's trigger, and the due work it
    // stored before sending it, bring the run within the wait.
    const worked = await waitFor(async () => {
      const response = await fetch(`${server.url}/imports/${id}`, {
        headers: { authorization: `Bearer ${ownerToken}` },
      })
      const state = (await response.json()) as { state: string; rowsRead: number }
      return state.state === 'queued' || state.state === 'running' ? null : state
    }, 'the import')
    expect(worked).toMatchObject({ state: 'succeeded', rowsRead: 1 })
  })

  test('kill -9 of a worker under a write load loses no acknowledged write; the port keeps answering', async () => {
    const before = await workersOf(server, operatorKey)
    const victim = before.find((worker) => worker.id === 1)!
    const acknowledged: string[] = []
    let refusedOrCut = 0
    let answeredAfterKill = 0
    let killed = false
    let stop = false
    const writer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const response = await fetch(`${server.url}/vendor`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `Vendor ${n}-${i}` }),
          })
          if (response.status === 201) {
            acknowledged.push(((await response.json()) as { id: string }).id)
            if (killed) answeredAfterKill++
          } else refusedOrCut++
        } catch {
          // A connection the dead worker held: the write was not acknowledged.
          refusedOrCut++
        }
      }
    }
    const writers = Array.from({ length: 8 }, (_, n) => writer(n))
    while (acknowledged.length < 50) await Bun.sleep(5)
    process.kill(victim.pid, 'SIGKILL')
    killed = true
    // The primary starts it again; meanwhile and after, the other worker answers.
    let restarted: HealthWorker | undefined
    while (!restarted || answeredAfterKill < 50) {
      // A kept-alive connection the dead worker had accepted is reset, as the writers' are: the
      // next request goes on a new connection, which a live worker takes.
      const workers = await workersOf(server, operatorKey).catch((error: { code?: string }) => {
        if (error.code === 'ECONNRESET') return []
        throw error
      })
      restarted = workers.find(
        (worker) => worker.id === 1 && worker.restarts === 1 && worker.state === 'serving',
      )
      await Bun.sleep(20)
    }
    stop = true
    await Promise.all(writers)
    expect(restarted.pid).not.toBe(victim.pid)
    expect(alive(victim.pid)).toBe(false)
    // Every acknowledged write is there, read through whichever worker answers.
    const missing: string[] = []
    for (const id of acknowledged) {
      const response = await fetch(`${server.url}/vendor/${id}`, {
        headers: { authorization: `Bearer ${ownerToken}` },
      })
      if (response.status !== 200) missing.push(id)
    }
    expect(missing).toEqual([])
    console.info(`${acknowledged.length} writes acknowledged, ${refusedOrCut} cut by the kill`)
  })
})

describe('event streams on two workers', () => {
  // A worker reads another worker's commits only at its poll: here, never within the test.
  const shared = sharedDataDir({
    WORKERS: '2',
    EVENT_STREAM_POLL_INTERVAL_MS: '60000',
    EVENT_STREAM_MAX_PER_CREDENTIAL: '2',
  })
  let server: RunningServer
  let locationId: string
  let ownerToken: string

  beforeAll(async () => {
    server = await shared.startServer()
    locationId = (await shared.cli('location', 'create', '--tenant', 'default', '--name', 'Patio')).id
    ownerToken = (await shared.cli('token', '--tenant', 'default', '--subject', 'owner')).token
  })

  async function streamAtWorker2() {
    const connection = await askForStream(server, 2, '/events/stream?types=order.create', {
      authorization: `Bearer ${ownerToken}`,
    })
    expect(await connection.received('events follow')).toContain('200 OK')
    return connection
  }

  test("a stream from now, opened after another worker's write, is sent what follows and not that write", async () => {
    const connections = await connectionPerWorker(server.port, 2)
    // An earlier stream keeps worker 2's feed of the tenant, and its cursor, alive.
    const earlier = await streamAtWorker2()
    const before = await ask(connections.get(1)!, 'POST', '/order', ownerToken, { locationId })
    expect(before.status).toBe(201)
    const stream = await streamAtWorker2()
    const after = await ask(connections.get(2)!, 'POST', '/order', ownerToken, { locationId })
    expect(after.status).toBe(201)
    try {
      const text = (await stream.received(JSON.parse(after.body).id))!
      expect(text).not.toContain(JSON.parse(before.body).id)
      expect(text.match(/event: order\.create/g)).toHaveLength(1)
    } finally {
      for (const connection of [earlier, stream, ...connections.values()]) connection.close()
    }
  })
})

describe('event streams on two workers: the limit per credential', () => {
  const shared = sharedDataDir({ WORKERS: '2', EVENT_STREAM_MAX_PER_CREDENTIAL: '2' })

  test("a credential's limit holds across the workers: 2 is 2, not 4; a stream that ends frees its place", async () => {
    const server = await shared.startServer()
    const { token } = await tenantWithOwner(shared.cli, 'streams')
    const ask = (worker: number) =>
      askForStream(server, worker, '/events/stream', {
        authorization: `Bearer ${token}`,
        'x-tenant-slug': 'streams',
      })
    const first = await ask(1)
    const second = await ask(2)
    for (const open of [first, second]) expect(await open.received('events follow')).toContain('200 OK')
    const refused: number[] = []
    for (const worker of [1, 2]) {
      const beyond = await ask(worker)
      const answer = (await beyond.response())!
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'rate_limited', status: 429 })
      refused.push(answer.status)
      beyond.close()
    }
    expect(refused).toEqual([429, 429])
    // The end of worker 2's stream is seen there once its connection closes.
    second.close()
    const again = await waitFor(async () => {
      const attempt = await ask(1)
      if ((await attempt.received('\r\n\r\n'))?.startsWith('HTTP/1.1 200')) return attempt
      attempt.close()
      await Bun.sleep(50)
      return undefined
    })
    for (const open of [first, again!]) open.close()
  })
})

describe('the primary and its workers', () => {
  const shared = sharedDataDir({ WORKERS: '2' })

  test('kill -9 of the primary takes its workers down; a new serve owns the port alone and drains on SIGTERM', async () => {
    const operatorKey = (await shared.cli('operator-key', 'create', '--name', 'ci')).token
    const first = await startServer(sourceCommand, shared.env)
    const orphans = await workersOf(first, operatorKey)
    expect(orphans).toHaveLength(2)
    process.kill(first.pid, 'SIGKILL')
    await first.stop()
    // Each worker sees its channel to the primary close and exits.
    while (orphans.some((worker) => alive(worker.pid))) await Bun.sleep(20)
    const second = await startServer(sourceCommand, {
      ...shared.env,
      PORT: String(first.port),
      LOG_LEVEL: 'info',
    })
    expect(second.port).toBe(first.port)
    const workers = await workersOf(second, operatorKey)
    expect(workers.map((worker) => [worker.id, worker.restarts, worker.state])).toEqual([
      [1, 0, 'serving'],
      [2, 0, 'serving'],
    ])
    expect(workers.some((worker) => orphans.some((old) => old.pid === worker.pid))).toBe(false)
    // SIGTERM: both workers drain and exit before the primary does, which exits cleanly.
    expect(await second.stop()).toBe(0)
    expect(workers.filter((worker) => alive(worker.pid))).toEqual([])
    expect(second.stderr()).toContain('"msg":"requests finished","worker":1')
    expect(second.stderr()).toContain('"msg":"requests finished","worker":2')
    // Linux resets what is queued on the primary's listener as it hands the port over, unless
    // the kernel may move it to a worker's: said at the start when it may not.
    const migrate = '/proc/sys/net/ipv4/tcp_migrate_req'
    const mayMove = existsSync(migrate) ? readFileSync(migrate, 'utf8').trim() !== '0' : true
    expect(second.stderr().includes('net.ipv4.tcp_migrate_req is 0')).toBe(!mayMove)
  })
})
