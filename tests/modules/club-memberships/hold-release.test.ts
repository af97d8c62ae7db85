// A hold ends by itself on its `holdUntil` (the tenant's date). Reads present the membership as
// released from that day without writing; the `club-memberships.release-holds` job records the
// release (audited by the system, with the `resume` event), once.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { RELEASE_HOLDS_JOB } from '../../../src/modules/club-memberships/jobs'
import { nextHoldEnd, releaseEndedHolds } from '../../../src/modules/club-memberships/transitions'
import { addDays } from '../../../src/modules/experiences/clock'
import { todayIn, zonedInstant } from '../../../src/platform/foundation/dates'
import { createTestApp, type TenantFixture, type TestApp } from '../../harness'
import { events, makeClub, makeCustomer } from '../customers/helpers'

let t: TestApp
let today: string
beforeEach(async () => {
  t = await createTestApp()
  today = todayIn('America/Los_Angeles') // the harness tenants' zone
})
afterEach(() => t.close())

/**
 * A membership (signed up 2025-01-10, quarterly) put on hold, then its hold end moved to
 * `holdUntil`. Any membership write releases ended holds first: make the ended ones last.
 */
async function heldUntil(holdUntil: string, tenant: TenantFixture = t.tenant) {
  const as = { as: tenant.owner, tenant }
  const customer = await makeCustomer(t, {}, { tenant })
  const club = await makeClub(t, {}, tenant)
  const created = await t.request('POST', '/club-membership', {
    ...as,
    body: {
      customerId: customer.id,
      clubId: club.id,
      orderDeliveryMethod: 'Pickup',
      signupDate: '2025-01-10',
    },
  })
  expect(created.status).toBe(201)
  const held = await t.request('POST', `/club-membership/${created.body.id}/hold`, {
    ...as,
    body: { holdUntil: '2099-06-01', holdReason: 'Harvest' },
  })
  expect(held.body.status).toBe('On Hold')
  // Time passes: the hold now ends on `holdUntil`.
  tenant.db.$client.run('UPDATE club_memberships SET hold_until = ? WHERE id = ?', [holdUntil, held.body.id])
  return held.body as { id: string; updatedAt: string }
}

const stored = (id: string, tenant: TenantFixture = t.tenant) =>
  tenant.db.$client
    .query(
      'SELECT status, hold_until AS holdUntil, hold_reason AS holdReason FROM club_memberships WHERE id = ?',
    )
    .get(id)

const releases = (tenant: TenantFixture = t.tenant) =>
  tenant.db.$client
    .query(
      "SELECT entity_id AS id, subject, metadata FROM audit_entries WHERE action = 'club_membership.resume' ORDER BY seq",
    )
    .all() as { id: string; subject: string; metadata: string }[]

const released = { status: 'Active', holdUntil: null, holdReason: null, nextProcessDate: '2025-04-10' }

describe('reads present a hold that has ended as released, writing nothing', () => {
  test('by id, in the list, and through the status filter; the stored row stays On Hold', async () => {
    const ongoing = await heldUntil(addDays(today, 1))
    const m = await heldUntil(addDays(today, -1))
    const outboxBefore = events(t, 'club_membership').length

    const read = await t.request('GET', `/club-membership/${m.id}?expand=club`, { as: t.tenant.readOnly })
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ ...released, club: { id: expect.any(String) } })
    const list = async (query: string) => (await t.request('GET', `/club-membership${query}`)).body
    expect((await list('')).clubMemberships.find((x: { id: string }) => x.id === m.id)).toMatchObject(
      released,
    )
    const onHold = await list('?status=On%20Hold')
    expect(onHold.total).toBe(1)
    expect(onHold.clubMemberships.map((x: { id: string }) => x.id)).toEqual([ongoing.id])
    const active = await list('?status=Active')
    expect(active.total).toBe(1)
    expect(active.clubMemberships[0]).toMatchObject({ id: m.id, ...released })

    expect(stored(m.id)).toEqual({ status: 'On Hold', holdUntil: addDays(today, -1), holdReason: 'Harvest' })
    expect(releases()).toEqual([])
    expect(events(t, 'club_membership')).toHaveLength(outboxBefore)
  })

  test('a hold ends on the morning of holdUntil in the tenant’s zone, not the day before', async () => {
    const endsTomorrow = await heldUntil(addDays(today, 1))
    const endsToday = await heldUntil(today)
    expect((await t.request('GET', `/club-membership/${endsToday.id}`)).body.status).toBe('Active')
    expect((await t.request('GET', `/club-membership/${endsTomorrow.id}`)).body).toMatchObject({
      status: 'On Hold',
      holdUntil: addDays(today, 1),
    })
  })

  test('another tenant cannot read it (404), and its attempt writes nothing', async () => {
    const m = await heldUntil(addDays(today, -1))
    const other = await t.addTenant('other')
    const res = await t.request('GET', `/club-membership/${m.id}`, { as: other.owner, tenant: other })
    expect(res.status).toBe(404)
    expect(stored(m.id)).toMatchObject({ status: 'On Hold' })
  })
})

describe(`the ${RELEASE_HOLDS_JOB} job`, () => {
  test('releases ended holds of every tenant, audited by the system with the resume event, once', async () => {
    const ongoing = await heldUntil(addDays(today, 1))
    const m = await heldUntil(addDays(today, -3))
    const other = await t.addTenant('other')
    const theirs = await heldUntil(today, other)
    const presented = (await t.request('GET', `/club-membership/${m.id}`)).body
    expect(stored(m.id)).toMatchObject({ status: 'On Hold' })
    expect(stored(theirs.id, other)).toMatchObject({ status: 'On Hold' })

    await t.platform.jobs.runNow(RELEASE_HOLDS_JOB)

    expect(stored(m.id)).toEqual({ status: 'Active', holdUntil: null, holdReason: null })
    expect(stored(theirs.id, other)).toEqual({ status: 'Active', holdUntil: null, holdReason: null })
    expect(stored(ongoing.id)).toMatchObject({ status: 'On Hold' })
    // What reads showed before the job is what the job wrote.
    const after = (await t.request('GET', `/club-membership/${m.id}`)).body
    expect({ ...after, updatedAt: null }).toEqual({ ...presented, updatedAt: null })
    expect(after.updatedAt > m.updatedAt).toBe(true)

    const [entry, ...more] = releases()
    expect(more).toEqual([])
    expect(entry!.id).toBe(m.id)
    expect(entry!.subject).toBe('system:club-hold-release')
    expect(JSON.parse(entry!.metadata)).toMatchObject({
      reason: `hold ended on ${addDays(today, -3)}`,
      heldUntil: addDays(today, -3),
      holdReason: 'Harvest',
      changes: { status: { from: 'On Hold', to: 'Active' } },
    })
    expect(releases(other).map((e) => e.id)).toEqual([theirs.id])
    const resumed = events(t, 'club_membership').filter((e) => e.action === 'resume')
    expect(resumed.map((e) => e.aggregateId)).toEqual([m.id])
    expect(JSON.parse(resumed[0]!.payload)).toMatchObject({ id: m.id, ...released })

    // Run again: nothing left to release, nothing recorded twice.
    await t.platform.jobs.runNow(RELEASE_HOLDS_JOB)
    expect(releases()).toHaveLength(1)
    expect(releases(other)).toHaveLength(1)
    expect(events(t, 'club_membership').filter((e) => e.action === 'resume')).toHaveLength(1)
    expect(t.platform.jobs.status().find((j) => j.name === RELEASE_HOLDS_JOB)).toMatchObject({
      runs: 2,
      failures: 0,
    })
  })

  test('holds that have not ended and cancelled memberships are left alone', async () => {
    const ongoing = await heldUntil(addDays(today, 1))
    const cancelled = await heldUntil(addDays(today, 5))
    await t.request('POST', `/club-membership/${cancelled.id}/cancel`, { body: {} })
    expect(releaseEndedHolds(t.tenant.db, t.tenant.id, today)).toBe(0)
    await t.platform.jobs.runNow(RELEASE_HOLDS_JOB)
    expect(stored(ongoing.id)).toMatchObject({ status: 'On Hold' })
    expect(stored(cancelled.id)).toMatchObject({ status: 'Cancelled' })
    expect(releases()).toEqual([])
    // The job's next work for the tenant: the start of that day in the tenant's zone.
    expect(nextHoldEnd(t.tenant.db, 'Pacific/Auckland')).toBe(
      zonedInstant(addDays(today, 1), '00:00', 'Pacific/Auckland').getTime(),
    )
    // The same hold is released on the day it ends; then no hold waits.
    expect(releaseEndedHolds(t.tenant.db, t.tenant.id, addDays(today, 1))).toBe(1)
    expect(nextHoldEnd(t.tenant.db, 'UTC')).toBeNull()
  })

  test('a membership write releases an ended hold first, so it starts from the truth', async () => {
    const m = await heldUntil(addDays(today, -1))
    const resume = await t.request('POST', `/club-membership/${m.id}/resume`)
    expect(resume.status).toBe(409)
    expect(resume.body.currentStatus).toBe('Active')
    expect(releases().map((e) => e.subject)).toEqual(['system:club-hold-release'])
    await t.platform.jobs.runNow(RELEASE_HOLDS_JOB)
    expect(releases()).toHaveLength(1)
  })
})
