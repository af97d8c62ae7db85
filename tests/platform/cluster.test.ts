// The parts of the cluster (README "Several nodes") that need no etcd: its configuration, where
// tenants go, which requests the resolution step routes, the write gate, and the operator routes
// on a single node. The cluster itself runs in tests/cluster/ (npm run test:cluster).
import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { hostname } from 'node:os'
import { controlMigrations } from '../../migrations/embedded'
import { ConfigError, loadConfig } from '../../src/config'
import { hashToken } from '../../src/platform/auth/tokens'
import type { EtcdClient } from '../../src/platform/cluster/etcd'
import { rebalance } from '../../src/platform/cluster/moves'
import { assignOrphans, leastLoaded, rebalancePlan } from '../../src/platform/cluster/placement'
import { untilReplicaHolds } from '../../src/platform/cluster/replica'
import { ApiError, conflict } from '../../src/platform/foundation/problem'
import { tenantTarget } from '../../src/platform/http/request-tenant'
import { systemOperator } from '../../src/platform/operator/audit'
import { createOperatorKey, resolveOperatorKey, revokeOperatorKey } from '../../src/platform/operator/keys'
import { drizzleOn } from '../../src/platform/tenancy/databases'
import { migrate } from '../../src/platform/tenancy/migrator'
import { gateWrites, inWriteTransaction } from '../../src/platform/tenancy/transaction'
import { createTestApp } from '../harness'

const clusterEnv = {
  CLUSTER_ETCD_URL: 'http://etcd.internal:2379',
  LITESTREAM_REPLICA_URL: 's3://replicas/tenants',
}

describe('cluster configuration', () => {
  test('off by default: one node, no etcd', () => {
    expect(loadConfig({}).cluster).toBeUndefined()
  })

  test('parsed, with defaults', () => {
    expect(loadConfig(clusterEnv).cluster).toEqual({
      etcdUrl: 'http://etcd.internal:2379',
      prefix: '/restaurant-ops/',
      nodeId: hostname(),
      advertiseUrl: undefined,
      routing: 'forward',
      leaseTtlSeconds: 10,
    })
    expect(
      loadConfig({
        ...clusterEnv,
        NODE_ID: 'node-2',
        NODE_ADVERTISE_URL: 'http://10.0.0.2:3000/',
        CLUSTER_ROUTING: 'redirect',
        CLUSTER_LEASE_TTL: '3',
        CLUSTER_PREFIX: '/shop/',
      }).cluster,
    ).toMatchObject({
      nodeId: 'node-2',
      advertiseUrl: 'http://10.0.0.2:3000',
      routing: 'redirect',
      leaseTtlSeconds: 3,
      prefix: '/shop/',
    })
  })

  const bad: [Record<string, string>, string][] = [
    [{ CLUSTER_ETCD_URL: 'http://etcd:2379' }, 'LITESTREAM_REPLICA_URL'],
    [{ NODE_ID: 'node-1' }, 'NODE_ID'],
    [{ CLUSTER_ROUTING: 'redirect' }, 'CLUSTER_ROUTING'],
    [{ ...clusterEnv, NODE_ID: 'node one' }, 'NODE_ID'],
    [{ ...clusterEnv, CLUSTER_ROUTING: 'teleport' }, 'CLUSTER_ROUTING'],
    [{ ...clusterEnv, CLUSTER_LEASE_TTL: '1' }, 'CLUSTER_LEASE_TTL'],
    [{ ...clusterEnv, CLUSTER_PREFIX: 'no-slashes' }, 'CLUSTER_PREFIX'],
    [{ ...clusterEnv, CLUSTER_ETCD_URL: 'etcd:2379' }, 'CLUSTER_ETCD_URL'],
  ]
  for (const [env, variable] of bad)
    test(`a bad ${variable} is refused`, () => {
      expect(() => loadConfig(env)).toThrow(ConfigError)
      expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `))
    })
})

describe('placement', () => {
  test('a new tenant goes to the live node with the fewest; ties to the smallest id', () => {
    expect(
      leastLoaded(
        new Map([
          ['b', 2],
          ['a', 3],
          ['c', 2],
        ]),
      ),
    ).toBe('b')
    expect(leastLoaded(new Map())).toBeNull()
  })

  test("a departed node's tenants are spread evenly over the survivors", () => {
    const plan = assignOrphans(
      ['t1', 't2', 't3', 't4', 't5'],
      new Map([
        ['a', 4],
        ['b', 2],
      ]),
    )
    const counts = { a: 4, b: 2 }
    for (const node of plan.values()) counts[node as 'a' | 'b']++
    // Ties go to the smallest id: 4+2 and 5 orphans end 6 and 5.
    expect(counts).toEqual({ a: 6, b: 5 })
    expect(assignOrphans(['t1'], new Map())).toEqual(new Map())
  })

  test('rebalancing moves from the fullest to the emptiest until counts differ by one at most', () => {
    const moves = rebalancePlan(
      new Map([
        ['a', ['t1', 't2', 't3', 't4', 't5', 't6']],
        ['b', ['t7', 't8', 't9']],
        ['c', []],
      ]),
    )
    expect(moves).toHaveLength(3)
    expect(moves.every((move) => move.to === 'c' || move.to === 'b')).toBe(true)
    expect(
      rebalancePlan(
        new Map([
          ['a', ['t1', 't2']],
          ['b', ['t3']],
        ]),
      ),
    ).toEqual([])
  })

  test('a tenant that cannot move stays counted where it is; another node with one to spare gives one', () => {
    const byNode = new Map([
      ['a', ['t1', 't2', 't3']],
      ['b', ['t4', 't5', 't6']],
      ['c', []],
    ])
    // b gives first (a tie goes to the larger id), then a gives t2: its last but the fixed t3.
    expect(rebalancePlan(byNode, new Set(['t3']))).toEqual([
      { tenant: 't6', from: 'b', to: 'c' },
      { tenant: 't2', from: 'a', to: 'c' },
    ])
    // Nothing movable on the only fuller node: no move, even though the counts stay uneven.
    expect(
      rebalancePlan(
        new Map([
          ['a', ['t1', 't2', 't3']],
          ['b', []],
        ]),
        new Set(['t1', 't2', 't3']),
      ),
    ).toEqual([])
  })

  test('a rebalance goes on past a refused move and says whether the counts came even', async () => {
    const prefix = '/p/'
    const records = [...['t1', 't2', 't3', 't4'].map((id) => ({ id, owner: 'a' })), { id: 't5', owner: 'b' }]
    const etcd = {
      list: async (key: string) => ({
        revision: 1,
        kvs: key.endsWith('nodes/')
          ? ['a', 'b', 'c'].map((id) => ({ key: `${key}${id}`, value: JSON.stringify({ id }) }))
          : records.map(({ id, owner }) => ({
              key: `${key}${id}`,
              value: JSON.stringify({ tenant: { id, slug: `slug-${id}` }, owner, epoch: 1 }),
            })),
      }),
    } as unknown as EtcdClient
    const asked: string[] = []
    const refuse = new Set(['t4'])
    const result = await rebalance(etcd, prefix, async (tenant, to) => {
      asked.push(`${tenant}->${to}`)
      if (refuse.has(tenant)) throw conflict(`moving slug-${tenant} to ${to} failed: the replica is behind`)
      return { tenant: { id: tenant, slug: `slug-${tenant}` }, from: 'a', to, epoch: 2, tookMs: 1 }
    })
    // t4 stays on a, counted there: a (3) still gives one more, to b.
    expect(asked).toEqual(['t4->c', 't3->c', 't2->b'])
    expect(result.moves.map((m) => m.tenant.id)).toEqual(['t3', 't2'])
    expect(result.failed).toEqual([
      {
        tenant: { id: 't4', slug: 'slug-t4' },
        from: 'a',
        to: 'c',
        error: 'moving slug-t4 to c failed: the replica is behind',
      },
    ])
    expect(result.balanced).toBe(true)

    // Every tenant of the fullest node refused: it stays uneven, and says so.
    refuse.add('t1').add('t2').add('t3')
    asked.length = 0
    const stuck = await rebalance(etcd, prefix, async (tenant) => {
      asked.push(tenant)
      throw conflict('refused')
    })
    expect(asked).toEqual(['t4', 't3', 't2', 't1'])
    expect(stuck).toMatchObject({ moves: [], balanced: false })
    expect(stuck.failed).toHaveLength(4)
  })
})

describe('the tenant resolution step', () => {
  const oldToken = `vps_${'A'.repeat(43)}`
  const indexed = new Map([[hashToken(oldToken), 'id-old']])
  const target = (method: string, path: string, headers: Record<string, string> = {}) =>
    tenantTarget(new Request(`http://node${path}`, { method, headers }), path, 'default', (hash) =>
      indexed.get(hash),
    )
  const cases: [string, string, Record<string, string>, unknown][] = [
    ['GET', '/vendor', { 'x-tenant-slug': 'acme' }, { slug: 'acme' }],
    ['GET', '/vendor', { 'x-tenant-id': 'id-1' }, { id: 'id-1' }],
    ['GET', '/vendor', {}, { slug: 'default' }],
    ['POST', '/admin/v1/tenants', {}, { place: true }],
    ['POST', '/admin/v1/tenants/import', {}, { place: true }],
    ['POST', '/admin/v1/tenants/acme/suspend', {}, { id: 'acme', slug: 'acme' }],
    ['GET', '/media/files/id-2/object', {}, { id: 'id-2' }],
    ['GET', '/admin/v1/cluster', { 'x-tenant-slug': 'acme' }, null],
    ['GET', '/admin/v1/tenants', {}, null],
    ['GET', '/health', { 'x-tenant-slug': 'acme' }, null],
    ['GET', '/openapi.json', {}, null],
    ['GET', '/', {}, null],
    // The browser's event stream: its token and tenant in cookies, sent to that path alone.
    ['GET', '/events/stream', { cookie: 'ro_bearer=eyJ.jwt; ro_tenant=id-5' }, { id: 'id-5' }],
    [
      'GET',
      '/events/stream',
      { cookie: 'ro_bearer=vps_id-6.secret; ro_tenant=id-6' },
      { id: 'id-6', token: true },
    ],
    ['GET', '/vendor', { cookie: 'ro_bearer=eyJ.jwt; ro_tenant=id-5' }, { slug: 'default' }],
    // A tenant token goes to the node of the tenant it names, whatever the headers say.
    ['GET', '/vendor', { authorization: 'Bearer vps_id-3.secret' }, { id: 'id-3', token: true }],
    [
      'GET',
      '/vendor',
      { authorization: 'Bearer vps_id-3.secret', 'x-tenant-slug': 'acme' },
      { id: 'id-3', token: true },
    ],
    [
      'GET',
      '/tables-api/v1/reservations',
      { authorization: 'Bearer tpk_live_id-4.secret' },
      { id: 'id-4', token: true },
    ],
    // One issued before tokens named their tenant: by its hash, else the headers, else this node.
    ['GET', '/vendor', { authorization: `Bearer ${oldToken}` }, { id: 'id-old', token: true }],
    ['GET', '/vendor', { authorization: 'Bearer vps_abc', 'x-tenant-slug': 'acme' }, { slug: 'acme' }],
    ['GET', '/vendor', { authorization: 'Bearer vps_abc' }, null],
    ['GET', '/tables-api/v1/reservations', { authorization: 'Bearer tpk_live_abc' }, null],
    // Operator keys and JWTs name no tenant.
    ['GET', '/vendor', { authorization: 'Bearer eyJ.x.y' }, { slug: 'default' }],
  ]
  for (const [method, path, headers, expected] of cases)
    test(`${method} ${path} ${JSON.stringify(headers)}`, () => {
      expect(target(method, path, headers)).toEqual(expected as never)
    })
})

describe('the write gate', () => {
  test('a gate that throws refuses the write transaction, and nothing is written', () => {
    const sqlite = new Database(':memory:')
    const db = drizzleOn(sqlite)
    sqlite.run('CREATE TABLE notes (body TEXT)')
    let open = true
    gateWrites(sqlite, () => {
      if (!open) throw new ApiError('unavailable', 'fenced')
    })
    inWriteTransaction(db, (tx) => tx.run('INSERT INTO notes VALUES (1)' as never))
    open = false
    expect(() => inWriteTransaction(db, (tx) => tx.run('INSERT INTO notes VALUES (2)' as never))).toThrow(
      'fenced',
    )
    expect(sqlite.query('SELECT count(*) AS n FROM notes').get()).toEqual({ n: 1 })
  })
})

describe('the cluster operator routes on a single node', async () => {
  const t = await createTestApp()
  afterAll(() => t.close())
  const key = createOperatorKey(t.platform.control.db, systemOperator('test'), { name: 'tests' }).token
  const admin = (method: string, path: string, as: string | null = key, body?: unknown) =>
    t.request(method, `/admin/v1/cluster${path}`, { as, tenant: null, body })

  test('the status says so', async () => {
    const res = await admin('GET', '')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ enabled: false, node: null, nodes: [], tenants: [], failovers: [] })
  })

  test('moves and rebalances are 409', async () => {
    expect((await admin('POST', `/tenants/${t.tenant.slug}/move`, key, { to: 'n2' })).status).toBe(409)
    expect((await admin('POST', '/rebalance')).status).toBe(409)
  })

  test('a move needs a target node', async () => {
    expect((await admin('POST', `/tenants/${t.tenant.slug}/move`, key, {})).status).toBe(400)
  })

  test('only operators: anonymous is 401, a tenant token 403', async () => {
    expect((await admin('GET', '', null)).status).toBe(401)
    const staff = await t.platform.devIssuer!.mint({ subject: t.tenant.owner.subject })
    expect((await admin('GET', '', staff)).status).toBe(403)
    expect((await admin('POST', '/rebalance', staff)).status).toBe(403)
  })

  test('health says nothing of a cluster', async () => {
    const res = await t.request('GET', '/health', { as: null, tenant: null })
    expect(res.body.cluster).toBeUndefined()
    expect(res.body.checks.cluster).toBeUndefined()
  })
})

describe('operator keys shared through etcd', () => {
  const sqlite = new Database(':memory:')
  migrate(sqlite, controlMigrations)
  const control = drizzleOn(sqlite)
  const made = createOperatorKey(control, systemOperator('test'), { name: 'here' })
  const elsewhere = { ...made.row, id: 'key-elsewhere', tokenHash: hashToken('opk_elsewhere') }
  const refusal = (run: () => unknown) => {
    try {
      run()
    } catch (error) {
      return error instanceof ApiError ? error.detail : String(error)
    }
    return null
  }

  test('a key made on another node opens this one; one etcd has revoked is refused, whoever made it', () => {
    const shared = new Map([[elsewhere.tokenHash, elsewhere]])
    const lookup = (hash: string) => shared.get(hash)
    expect(resolveOperatorKey(control, 'opk_elsewhere', lookup).id).toBe('key-elsewhere')
    expect(resolveOperatorKey(control, made.token, lookup).id).toBe(made.row.id)
    shared.set(made.row.tokenHash, { ...made.row, revokedAt: new Date().toISOString() })
    expect(refusal(() => resolveOperatorKey(control, made.token, lookup))).toContain('revoked')
    // On one node (no etcd) the control database decides alone.
    expect(resolveOperatorKey(control, made.token).id).toBe(made.row.id)
    expect(refusal(() => resolveOperatorKey(control, 'opk_elsewhere'))).toContain('unknown')
  })

  test('a key revoked here stays refused, whatever etcd still says', () => {
    const key = createOperatorKey(control, systemOperator('test'), { name: 'revoked here' })
    revokeOperatorKey(control, systemOperator('test'), key.row.id)
    const lookup = (hash: string) => (hash === key.row.tokenHash ? key.row : undefined)
    expect(refusal(() => resolveOperatorKey(control, key.token, lookup))).toContain('revoked')
  })
})

describe('reading a replica back before a hand-over', () => {
  test('a read that fails (a new generation not snapshotted yet) waits for the next upload, then reads again', async () => {
    const reads = [
      () => Promise.reject(new Error('litestream restore failed: no matching backups found')),
      () => Promise.resolve(4),
      () => Promise.resolve(7),
    ]
    let uploads = 0
    await untilReplicaHolds(
      7,
      async () => {
        uploads++
      },
      () => reads.shift()!(),
    )
    expect(uploads).toBe(2)
    expect(reads).toEqual([])
  })

  test('when Litestream will upload nothing more, the last read says why', async () => {
    const done = (error: string) => () => Promise.reject(new Error(error))
    await expect(
      untilReplicaHolds(7, done('its Litestream is not running'), () =>
        Promise.reject(new Error('no matching backups found')),
      ),
    ).rejects.toThrow('reading the replica back: no matching backups found; its Litestream is not running')
    await expect(
      untilReplicaHolds(7, done('Litestream uploaded nothing of it for 30000 ms'), () => Promise.resolve(5)),
    ).rejects.toThrow('the replica holds writes up to 5 of 7: Litestream uploaded nothing of it for 30000 ms')
  })
})
