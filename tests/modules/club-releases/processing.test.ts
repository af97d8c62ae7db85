// Which memberships a run takes and what it records for the others; the scheduler; retries;
// archiving; the shipments' status filter.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { PROCESS_RELEASES_JOB } from '../../../src/modules/club-releases/jobs'
import { nextReleaseWork } from '../../../src/modules/club-releases/processing'
import { todayIn, zonedInstant } from '../../../src/platform/foundation/dates'
import { createTestApp, type TestApp } from '../../harness'
import { activeRelease, anotherClub, member, ok, processNow, type Winery, winery } from './setup'

let t: TestApp
let w: Winery
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const shipments = async (clubId: string, releaseId: string, query = '') =>
  (await ok(t, 'GET', `/club/${clubId}/releases/${releaseId}/shipments${query}`)).clubShipments as any[]
const byMembership = (list: any[]) => new Map(list.map((s) => [s.membershipId, s]))
const count = (sql: string) => (t.tenant.db.$client.query(sql).get() as { n: number }).n

describe('club release runs: choosing memberships', () => {
  test('Active and due are taken; held, undelivered, not due, cardless and cancelled ones are not', async () => {
    w = await winery(t)
    const due = await member(t, w.clubId, { method: 'Pickup' })
    const held = await member(t, w.clubId, { method: 'Pickup' })
    await ok(t, 'POST', `/club-membership/${held.membershipId}/hold`, {
      holdUntil: '2027-01-10',
      holdReason: 'travelling',
    })
    const holdEnds = await member(t, w.clubId, { method: 'Pickup' })
    await ok(t, 'POST', `/club-membership/${holdEnds.membershipId}/hold`, { holdUntil: '2026-12-15' })
    const shipper = await member(t, w.clubId, { method: 'Ship', state: 'CA' })
    const cardless = await member(t, w.clubId, { method: 'Pickup', token: null })
    const cancelled = await member(t, w.clubId, { method: 'Pickup' })
    await ok(t, 'POST', `/club-membership/${cancelled.membershipId}/cancel`, {})

    const first = await activeRelease(t, w, { processDate: '2027-01-01', deliveryMethods: ['Pickup'] })
    await processNow(t, w.clubId, first)
    const one = byMembership(await shipments(w.clubId, first))
    expect(one.get(due.membershipId)).toMatchObject({ status: 'Processed', reason: null })
    expect(one.get(holdEnds.membershipId)).toMatchObject({ status: 'Processed' })
    expect(one.get(held.membershipId)).toMatchObject({
      status: 'OnHold',
      reason: 'on hold until 2027-01-10 (travelling)',
      orderId: null,
      amount: 0,
    })
    expect(one.get(shipper.membershipId)).toMatchObject({
      status: 'Skipped',
      reason: 'delivery method Ship is not offered by this release',
      orderId: null,
    })
    expect(one.get(cardless.membershipId)).toMatchObject({
      status: 'Declined',
      reason: 'no_payment_method',
      orderId: expect.any(String),
      amount: 11277,
    })
    expect(one.has(cancelled.membershipId)).toBe(false)
    expect(one.size).toBe(5)
    // Only the orders of members taken exist.
    expect(count('SELECT count(*) AS n FROM orders')).toBe(3)

    // A month later, within the quarterly cadence: the members processed are not due yet.
    const second = await activeRelease(t, w, { processDate: '2027-02-01' })
    await processNow(t, w.clubId, second)
    const two = byMembership(await shipments(w.clubId, second))
    expect(two.get(due.membershipId)).toMatchObject({
      status: 'Skipped',
      reason: 'not due until 2027-04-01 (last processed 2027-01-01)',
    })
    // Its hold ended on 2027-01-10, before this process date.
    expect(two.get(held.membershipId)).toMatchObject({ status: 'Processed' })
    expect(two.get(shipper.membershipId)).toMatchObject({ status: 'Processed', amount: 13127 })
  })

  test('the shipments list filters by status; a bad status is 400', async () => {
    const [release] = (await ok(t, 'GET', `/club/${w.clubId}/releases?limit=1`)).clubReleases
    const all = await shipments(w.clubId, release.id)
    for (const status of ['Processed', 'Skipped', 'OnHold', 'Declined', 'Pending']) {
      const list = await ok(t, 'GET', `/club/${w.clubId}/releases/${release.id}/shipments?status=${status}`)
      expect(list.clubShipments.every((s: any) => s.status === status)).toBe(true)
      expect(list.total).toBe(all.filter((s) => s.status === status).length)
    }
  })
})

describe('club release runs: the scheduler, retries and archiving', () => {
  test('the job processes an Active release on its date, once; not a Planning or a future one', async () => {
    const club = await anotherClub(t, w)
    const m = await member(t, club.clubId, { method: 'Pickup' })
    const today = await activeRelease(t, club, { processDate: '2026-11-01' })
    const future = await activeRelease(t, club, { processDate: '2099-01-01' })
    const planning = (
      await ok(t, 'POST', `/club/${club.clubId}/releases`, {
        title: 'Not yet',
        processDate: '2026-10-01',
        items: [{ sku: 'PINOT-22', quantity: 1 }],
      })
    ).id
    await t.platform.jobs.runNow(PROCESS_RELEASES_JOB)
    await t.platform.jobs.runNow(PROCESS_RELEASES_JOB)
    expect((await shipments(club.clubId, today)).map((s) => [s.membershipId, s.status])).toEqual([
      [m.membershipId, 'Processed'],
    ])
    expect(await shipments(club.clubId, future)).toEqual([])
    expect(await shipments(club.clubId, planning)).toEqual([])
    const runs = t.tenant.db.$client
      .query('SELECT trigger_kind AS trigger, status FROM club_release_runs WHERE release_id = ?')
      .all(today)
    expect(runs).toEqual([{ trigger: 'schedule', status: 'Completed' }])
  })

  test('a whole-run retry charges the declined shipments again with a new attempt', async () => {
    const club = await anotherClub(t, w)
    const failing = await member(t, club.clubId, { method: 'Pickup', token: 'tok_chargeCustomerFail' })
    const fine = await member(t, club.clubId, { method: 'Pickup' })
    const id = await activeRelease(t, club, { processDate: '2027-03-01' })
    await processNow(t, club.clubId, id)
    const declined = byMembership(await shipments(club.clubId, id)).get(failing.membershipId)
    expect(declined).toMatchObject({ status: 'Declined', reason: 'Your card was declined.', attempts: 1 })
    // Retried as is: declined again, attempt 2; the processed member is left alone.
    await processNow(t, club.clubId, id, 'retry')
    let now = byMembership(await shipments(club.clubId, id))
    expect(now.get(failing.membershipId)).toMatchObject({
      status: 'Declined',
      attempts: 2,
      orderId: declined.orderId,
    })
    expect(now.get(fine.membershipId)).toMatchObject({ status: 'Processed', attempts: 1 })
    const card = await ok(t, 'POST', `/customers/${failing.customerId}/payment-methods`, {
      providerToken: 'tok_visa',
    })
    await ok(t, 'PUT', `/club-membership/${failing.membershipId}`, { customerCreditCardId: card.id })
    await processNow(t, club.clubId, id, 'retry')
    now = byMembership(await shipments(club.clubId, id))
    expect(now.get(failing.membershipId)).toMatchObject({ status: 'Processed', reason: null, attempts: 3 })
    const payments = t.tenant.db.$client
      .query('SELECT status FROM payment_intents WHERE order_id = ? ORDER BY created_at')
      .all(declined.orderId)
    expect(payments).toEqual([{ status: 'failed' }, { status: 'failed' }, { status: 'captured' }])
    // A member cancelled after a decline is never charged by a retry.
    const quitter = await member(t, club.clubId, { method: 'Pickup', token: null })
    const later = await activeRelease(t, club, { processDate: '2027-03-02' })
    await processNow(t, club.clubId, later)
    const unpaid = byMembership(await shipments(club.clubId, later)).get(quitter.membershipId)
    expect(unpaid).toMatchObject({ status: 'Declined', reason: 'no_payment_method' })
    await ok(t, 'POST', `/club-membership/${quitter.membershipId}/cancel`, { cancelReason: 'moving' })
    const skipped = await ok(t, 'POST', `/club/${club.clubId}/releases/${later}/shipments/${unpaid.id}/retry`)
    expect(skipped).toMatchObject({
      status: 'Skipped',
      reason: expect.stringMatching(/^the membership was cancelled on /),
    })
    expect(
      t.tenant.db.$client
        .query('SELECT count(*) AS n FROM payment_intents WHERE order_id = ?')
        .get(unpaid.orderId),
    ).toEqual({ n: 0 })
    // Only a Declined shipment can be retried on its own.
    const res = await t.request('POST', `/club/${club.clubId}/releases/${id}/shipments/${declined.id}/retry`)
    expect(res.status).toBe(409)
    expect(res.body.currentStatus).toBe('Processed')
  })

  test('an archived release is never charged: a queued run stops without touching a member', async () => {
    const club = await anotherClub(t, w)
    await member(t, club.clubId, { method: 'Pickup' })
    const id = await activeRelease(t, club, { processDate: '2027-04-01' })
    expect((await t.request('POST', `/club/${club.clubId}/releases/${id}/process`)).status).toBe(202)
    await ok(t, 'POST', `/club/${club.clubId}/releases/${id}/archive`)
    await t.platform.jobs.runNow(PROCESS_RELEASES_JOB)
    expect(await shipments(club.clubId, id)).toEqual([])
    const runs = t.tenant.db.$client
      .query('SELECT status, error FROM club_release_runs WHERE release_id = ?')
      .all(id)
    expect(runs).toEqual([{ status: 'Failed', error: 'the release is Archived' }])
  })
})

describe('club release runs: when the job next has work', () => {
  test('now for a due release not yet queued; then the next process date; then nothing', async () => {
    const fresh = await createTestApp()
    try {
      const zone = 'America/Los_Angeles'
      const next = () => nextReleaseWork(fresh.tenant.db, todayIn(zone), zone, 1234)
      const winer = await winery(fresh)
      expect(next()).toBeNull()
      const future = await activeRelease(fresh, winer, { processDate: '2099-01-01' })
      expect(next()).toBe(zonedInstant('2099-01-01', '00:00', zone).getTime())
      await activeRelease(fresh, winer, { processDate: '2026-11-01' })
      expect(next()).toBe(1234)
      await fresh.platform.jobs.runNow(PROCESS_RELEASES_JOB)
      expect(next()).toBe(zonedInstant('2099-01-01', '00:00', zone).getTime())
      // A run that lost its heartbeat is due at once (its process died mid-run).
      fresh.tenant.db.$client.run(
        "INSERT INTO club_release_runs (id, release_id, trigger_kind, status, requested_by, created_at) VALUES ('r1', ?, 'manual', 'Running', 'test', '2026-01-01T00:00:00Z')",
        [future],
      )
      expect(next()).toBe(1234)
    } finally {
      fresh.close()
    }
  })
})
