// One order and one charge per membership, whatever happens: two runs of a release at once in
// this process, and a run killed (kill -9) in another process between a charge and its record,
// then run again.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { executeRun, processDue } from '../../../src/modules/club-releases/processing'
import type { PaymentProvider } from '../../../src/platform/payments/provider'
import { tenantDatabasePath } from '../../../src/platform/tenancy/databases'
import { createTestApp, type TestApp } from '../../harness'
import { activeRelease, member, ok, type Winery, winery } from './setup'

let t: TestApp
let w: Winery
let members: { membershipId: string }[]
let releaseId: string
beforeEach(async () => {
  t = await createTestApp()
  w = await winery(t)
  members = []
  for (const method of ['Pickup', 'Ship', 'Pickup'] as const)
    members.push(await member(t, w.clubId, { method, state: 'CA' }))
  releaseId = await activeRelease(t, w, { processDate: '2027-05-01' })
})
afterEach(() => t.close())

/** The platform's sandbox, slowed down so runs interleave, recording every key it charges with. */
function recordingProvider(keys: string[]): PaymentProvider {
  const sandbox = t.platform.payments
  return {
    ...sandbox,
    async authorizePayment(input) {
      keys.push(input.idempotencyKey)
      await Bun.sleep(20)
      return sandbox.authorizePayment(input)
    },
  }
}

const queueRun = async () =>
  (await ok(t, 'POST', `/club/${w.clubId}/releases/${releaseId}/process`)).runId as string

function assertOncePerMembership() {
  const db = t.tenant.db.$client
  const shipments = db
    .query('SELECT membership_id AS m, status, order_id AS orderId FROM club_shipments WHERE release_id = ?')
    .all(releaseId) as { m: string; status: string; orderId: string }[]
  expect(shipments.map((s) => s.status)).toEqual(['Processed', 'Processed', 'Processed'])
  expect(new Set(shipments.map((s) => s.m))).toEqual(new Set(members.map((m) => m.membershipId)))
  const orders = db.query('SELECT id, status FROM orders ORDER BY order_number').all() as { id: string }[]
  expect(orders.map((o) => o.id).sort()).toEqual(shipments.map((s) => s.orderId).sort())
  const captured = db
    .query("SELECT order_id AS orderId FROM payment_intents WHERE status = 'captured'")
    .all() as { orderId: string }[]
  expect(captured.map((p) => p.orderId).sort()).toEqual(shipments.map((s) => s.orderId).sort())
  for (const m of members) {
    const row = db
      .query('SELECT current_number_of_shipments AS n FROM club_memberships WHERE id = ?')
      .get(m.membershipId) as { n: number }
    expect(row.n).toBe(1)
  }
}

describe('club release runs: once per membership', () => {
  test('two runs of one release at once make one order and one charge per membership', async () => {
    const keys: string[] = []
    const deps = { provider: recordingProvider(keys) }
    const [a, b] = [await queueRun(), await queueRun()]
    await Promise.all([
      executeRun(t.tenant.db, t.tenant.id, deps, a),
      executeRun(t.tenant.db, t.tenant.id, deps, b),
    ])
    assertOncePerMembership()
    // The provider was asked once per membership: the second run left claimed shipments alone.
    expect(keys).toHaveLength(3)
    expect(new Set(keys).size).toBe(3)
  })

  test('the scheduler leaves a Running run with a fresh heartbeat alone: its process is alive', async () => {
    const live = await queueRun()
    const db = t.tenant.db.$client
    db.run("UPDATE club_release_runs SET status = 'Running', heartbeat_at = ? WHERE id = ?", [
      new Date().toISOString(),
      live,
    ])
    const keys: string[] = []
    const deps = { provider: recordingProvider(keys) }
    await processDue(t.tenant.db, t.tenant.id, '2000-01-01', deps)
    expect(keys).toEqual([])
    expect(db.query('SELECT status FROM club_release_runs WHERE id = ?').get(live)).toEqual({
      status: 'Running',
    })
    // Once the heartbeat is older than the lease, the next tick takes it over and finishes it.
    await processDue(t.tenant.db, t.tenant.id, '2000-01-01', deps, undefined, { claimLeaseMs: 0 })
    expect(db.query('SELECT status FROM club_release_runs WHERE id = ?').get(live)).toEqual({
      status: 'Completed',
    })
    assertOncePerMembership()
  })

  test('a run killed between a charge and its record, then run again, charges nobody twice', async () => {
    const keyLog = join(t.dataDir, 'charge-keys.log')
    const crashed = await queueRun()
    const worker = Bun.spawn(
      [
        process.execPath,
        join(import.meta.dir, 'crash-worker.ts'),
        tenantDatabasePath(t.dataDir, t.tenant.id),
        t.tenant.id,
        crashed,
        keyLog,
      ],
      { stdout: 'pipe', stderr: 'pipe' },
    )
    // The second charge is in flight when the log has two keys: kill -9 there.
    const logged = () => (existsSync(keyLog) ? readFileSync(keyLog, 'utf8').trim().split('\n') : [])
    for (let i = 0; logged().length < 2; i++) {
      if (i > 600)
        throw new Error(
          `the worker never reached its second charge: ${await new Response(worker.stderr).text()}`,
        )
      await Bun.sleep(50)
    }
    worker.kill(9)
    expect(await worker.exited).not.toBe(0)
    const [first, inFlight] = logged() as [string, string]
    const db = t.tenant.db.$client
    expect(
      db
        .query('SELECT status, order_id IS NOT NULL AS hasOrder FROM club_shipments ORDER BY created_at')
        .all(),
    ).toEqual([
      { status: 'Processed', hasOrder: 1 },
      { status: 'Pending', hasOrder: 1 },
    ])

    // The scheduler's next tick resumes the dead run itself once its heartbeat is older than a
    // claim's lease (0 here, 10 minutes by default): no one has to ask for the release again.
    const keys: string[] = []
    await processDue(
      t.tenant.db,
      t.tenant.id,
      '2000-01-01',
      { provider: recordingProvider(keys) },
      undefined,
      { claimLeaseMs: 0 },
    )
    expect(db.query('SELECT status FROM club_release_runs WHERE id = ?').get(crashed)).toEqual({
      status: 'Completed',
    })
    assertOncePerMembership()
    // The interrupted charge is asked for again with the same key (the provider answers it with
    // the first charge); the processed member is not charged again; the third gets its own key.
    expect(keys).toHaveLength(2)
    expect(keys[0]).toBe(inFlight)
    expect(new Set([first, inFlight, keys[1]]).size).toBe(3)
  })
})
