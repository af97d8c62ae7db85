// `serve` with two HTTP workers whose pools are full (WORKERS=2, src/platform/http/worker-affinity.ts):
// a request for a tenant the other worker holds is passed to it, and answered as if served where it
// arrived; a worker that does not answer is not waited for.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { tenantOwner } from '../../src/platform/http/worker-affinity'
import { waitFor } from '../modules/webhooks/receiver'
import { type RunningServer, sharedDataDir } from './cli'
import { connectionPerWorker, type RawConnection, requestBytes } from './raw-http'

interface Tenant {
  id: string
  token: string
}

/** `as`: a tenant's owner, or an operator key. */
async function ask(
  connection: RawConnection,
  method: string,
  path: string,
  as: Tenant | string,
  options: { body?: unknown; requestId?: string } = {},
) {
  const headers = {
    ...(typeof as === 'string'
      ? { authorization: `Bearer ${as}` }
      : { authorization: `Bearer ${as.token}`, 'x-tenant-id': as.id }),
    ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
  }
  await connection.send(requestBytes(method, path, headers, options.body))
  return (await connection.response())!
}

describe('two workers, each holding its share of the tenants', () => {
  // Each worker's pool holds two tenants (TENANT_POOL_SIZE less the primary's share, halved, rounded up).
  const shared = sharedDataDir({ WORKERS: '2', TENANT_POOL_SIZE: '4' })
  let server: RunningServer
  let operatorKey: string
  let connections: Map<number, RawConnection>
  const heldBy = new Map<number, Tenant[]>([
    [1, []],
    [2, []],
  ])

  beforeAll(async () => {
    server = await shared.startServer()
    operatorKey = (await shared.cli('operator-key', 'create', '--name', 'ci')).token
    // A development token names no tenant: the owner's subject is the same in each.
    const { token } = await shared.cli('token', '--tenant', 'default', '--subject', 'owner')
    for (let i = 0; heldBy.get(1)!.length < 2 || heldBy.get(2)!.length < 1; i++) {
      const created = await fetch(`${server.url}/admin/v1/tenants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          slug: `t${i}`,
          name: `T${i}`,
          owner: { subject: 'owner', email: `owner@t${i}.test` },
        }),
      })
      const { tenant } = (await created.json()) as { tenant: { id: string } }
      heldBy.get(tenantOwner(tenant.id, 2))!.push({ id: tenant.id, token })
    }
    connections = await connectionPerWorker(server.port, 2)
  })
  afterAll(() => {
    for (const connection of connections.values()) connection.close()
  })

  const passing = async (worker: number) => {
    const health = await ask(connections.get(worker)!, 'GET', '/health', operatorKey)
    return JSON.parse(health.body).tenantsPassed as { passed: number; received: number }
  }

  test("a tenant the other worker holds is passed to it once this worker's pool is full: answered, audited and addressed as if served here", async () => {
    const first = connections.get(1)!
    const [a1, a2] = heldBy.get(1)!
    const [b] = heldBy.get(2)!
    // Worker 1's pool is full of its own tenants; a direct write shows what its audit entry records.
    const direct = await ask(first, 'POST', '/vendor', a1!, {
      body: { name: 'Here' },
      requestId: 'direct-write',
    })
    expect(direct.status).toBe(201)
    expect((await ask(first, 'GET', '/vendor', a2!)).status).toBe(200)
    const before = [await passing(1), await passing(2)]

    const passed = await ask(first, 'POST', '/vendor', b!, {
      body: { name: 'Passed' },
      requestId: 'passed-write',
    })
    expect(passed.status).toBe(201)
    expect(passed.headers['x-request-id']).toBe('passed-write')
    expect(JSON.parse(passed.body).name).toBe('Passed')
    const listed = await ask(first, 'GET', '/vendor', b!)
    expect(JSON.parse(listed.body).vendors.map((vendor: { name: string }) => vendor.name)).toEqual(['Passed'])

    const [afterFirst, afterSecond] = [await passing(1), await passing(2)]
    expect(afterFirst.passed - before[0]!.passed).toBe(2)
    expect(afterSecond.received - before[1]!.received).toBe(2)

    const entryOf = async (tenant: Tenant, requestId: string) => {
      const found = await ask(first, 'GET', `/audit-entries?requestId=${requestId}`, tenant)
      return JSON.parse(found.body).auditEntries as { action: string; ipAddress: string | null }[]
    }
    const [directEntry] = await entryOf(a1!, 'direct-write')
    const passedEntries = await entryOf(b!, 'passed-write')
    expect(passedEntries.map((entry) => entry.action)).toEqual(['vendor.create'])
    expect(directEntry!.ipAddress).not.toBeNull()
    expect(passedEntries[0]!.ipAddress).toBe(directEntry!.ipAddress)
  })

  test("an event stream of a tenant the other worker holds is passed and streams: a write's event arrives while it stays open", async () => {
    const [b] = heldBy.get(2)!
    const before = await passing(1)
    const fresh = await connectionPerWorker(server.port, 2)
    fresh.get(2)!.close()
    const stream = fresh.get(1)!
    try {
      await stream.send(
        requestBytes('GET', '/events/stream', { authorization: `Bearer ${b!.token}`, 'x-tenant-id': b!.id }),
      )
      expect(await stream.received('events follow')).toContain('200 OK')
      expect((await passing(1)).passed - before.passed).toBe(1)
      // Written through the worker that holds the tenant, the event reaches the passed stream.
      expect(
        (await ask(connections.get(2)!, 'POST', '/vendor', b!, { body: { name: 'Streamed' } })).status,
      ).toBe(201)
      const text = await stream.received('"name":"Streamed"')
      expect(text).toContain('event: vendor.create')
      expect(stream.end).toBeNull()
    } finally {
      stream.close()
    }
  })

  test('a client cannot pose as another worker: its client-address header is not believed', async () => {
    const [a1] = heldBy.get(1)!
    const sent = await ask(connections.get(1)!, 'POST', '/vendor', a1!, {
      body: { name: 'Posing' },
      requestId: 'posing-write',
    })
    expect(sent.status).toBe(201)
    await connections.get(1)!.send(
      requestBytes('GET', '/audit-entries?requestId=posing-write', {
        authorization: `Bearer ${a1!.token}`,
        'x-tenant-id': a1!.id,
        'x-worker-client': '203.0.113.9',
      }),
    )
    const [entry] = JSON.parse((await connections.get(1)!.response())!.body).auditEntries
    expect(entry.ipAddress).not.toBe('203.0.113.9')
  })

  test('a worker that does not answer is not waited for: the other serves its tenants itself', async () => {
    const health = await ask(connections.get(1)!, 'GET', '/health', operatorKey)
    const victim = JSON.parse(health.body).workers.find((worker: { id: number }) => worker.id === 2)
    process.kill(victim.pid, 'SIGKILL')
    const [b] = heldBy.get(2)!
    const first = connections.get(1)!
    // At once, before the primary reports the worker dead, and again while it starts again.
    expect((await ask(first, 'GET', '/vendor', b!)).status).toBe(200)
    expect((await ask(first, 'POST', '/vendor', b!, { body: { name: 'Meanwhile' } })).status).toBe(201)
    await waitFor(async () => {
      const workers = JSON.parse((await ask(first, 'GET', '/health', operatorKey)).body).workers
      return workers.every((worker: { state: string }) => worker.state === 'serving') || null
    }, 'the worker started again')
    const names = JSON.parse((await ask(first, 'GET', '/vendor', b!)).body).vendors.map(
      (vendor: { name: string }) => vendor.name,
    )
    expect(names.sort()).toEqual(['Meanwhile', 'Passed', 'Streamed'])
  })
})
