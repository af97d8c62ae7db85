// A new member gets the club's next release, and `nextProcessDate` says so; a release skips
// exactly the members whose `nextProcessDate` is after its `processDate`. Worked by hand, for a
// quarterly club with a spring release (Active) processed on 2027-03-01 and a summer release
// (Planning) on 2027-06-01, members picking up:
//
// - signed up 2027-02-10: next 2027-03-01, the spring release (not the sign-up plus a quarter,
//   2027-05-10); processed by spring, then next 2027-06-01 (2027-03-01 plus a quarter);
// - signed up 2027-03-01, spring's own date: next 2027-03-01; processed the same way;
// - signed up 2027-03-02, the day after: next 2027-06-01, the summer release; spring skips it
//   ("not due until 2027-06-01 (signed up 2027-03-02)"): no order, no charge, the membership as it was;
// - signed up 2027-06-02, after every release: next 2027-09-02 (the sign-up plus a quarter) until
//   a release is planned on or after it: 2027-07-15 when one is created for that date, 2027-08-01
//   when it moves there, 2027-09-02 again once it is archived.
//
// The next release is one the member can get: in another club, with a release for pickups only on
// 2027-03-01 and one for both on 2027-06-01, a member signed up 2027-02-10 shipping gets
// 2027-06-01 and picking up 2027-03-01; on hold until 2027-04-01, 2027-06-01; resumed, 2027-03-01.
//
// Migration 0030 stores the rule's date where the former rule's is stored: a member signed up
// 2027-05-01 with the summer release planned was stored 2027-08-01 (sign-up plus a quarter) and
// becomes 2027-06-01; a member processed, one with no release ahead, and one signed up the same
// day but on hold until 2027-07-01 (after the release: 2027-08-01, the first cadence date) keep theirs.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { tenantMigrations } from '../../../migrations/embedded'
import { createTestApp, type TestApp } from '../../harness'
import { activeRelease, anotherClub, member, ok, processNow, releaseBody, type Winery, winery } from './setup'

let t: TestApp
let w: Winery
let spring: string
beforeAll(async () => {
  t = await createTestApp()
  w = await winery(t)
  spring = await activeRelease(t, w, { title: 'Spring release', processDate: '2027-03-01' })
  await ok(t, 'POST', `/club/${w.clubId}/releases`, releaseBody(w, { processDate: '2027-06-01' }))
})
afterAll(() => t.close())

const membership = (id: string) => ok(t, 'GET', `/club-membership/${id}`)
const signUp = (signupDate: string) => member(t, w.clubId, { method: 'Pickup', signupDate })
const springShipment = async (membershipId: string) =>
  (await ok(t, 'GET', `/club/${w.clubId}/releases/${spring}/shipments`)).clubShipments.find(
    (s: { membershipId: string }) => s.membershipId === membershipId,
  )
const countOf = (sql: string, customerId: string) =>
  (t.tenant.db.$client.query(sql).get(customerId) as { n: number }).n
const ordersOf = (customerId: string) =>
  countOf('SELECT count(*) AS n FROM orders WHERE customer_id = ?', customerId)
const chargesOf = (customerId: string) =>
  countOf(
    'SELECT count(*) AS n FROM payment_intents p JOIN orders o ON o.id = p.order_id WHERE o.customer_id = ?',
    customerId,
  )

describe('club releases: a new member and the next release', () => {
  test('members signed up before, on and after the process date: taken, taken, skipped', async () => {
    const before = await signUp('2027-02-10')
    const onTheDay = await signUp('2027-03-01')
    const after = await signUp('2027-03-02')
    expect((await membership(before.membershipId)).nextProcessDate).toBe('2027-03-01')
    expect((await membership(onTheDay.membershipId)).nextProcessDate).toBe('2027-03-01')
    const untouched = await membership(after.membershipId)
    expect(untouched).toMatchObject({ lastProcessedDate: null, nextProcessDate: '2027-06-01' })

    await processNow(t, w.clubId, spring)

    for (const m of [before, onTheDay]) {
      expect(chargesOf(m.customerId)).toBe(1)
      expect(await springShipment(m.membershipId)).toMatchObject({
        status: 'Processed',
        orderId: expect.any(String),
      })
      expect(await membership(m.membershipId)).toMatchObject({
        lastProcessedDate: '2027-03-01',
        nextProcessDate: '2027-06-01',
        currentNumberOfShipments: 1,
      })
    }
    expect(await springShipment(after.membershipId)).toMatchObject({
      status: 'Skipped',
      reason: 'not due until 2027-06-01 (signed up 2027-03-02)',
      orderId: null,
      amount: 0,
      attempts: 0,
      paymentIntentId: null,
    })
    expect(ordersOf(after.customerId)).toBe(0)
    expect(chargesOf(after.customerId)).toBe(0)
    expect(await membership(after.membershipId)).toEqual(untouched)
  })

  test('with no release planned on or after the sign-up, the sign-up plus a quarter; a release planned later moves it', async () => {
    const late = await signUp('2027-06-02')
    const next = async () => (await membership(late.membershipId)).nextProcessDate
    expect(await next()).toBe('2027-09-02')
    const july = await ok(
      t,
      'POST',
      `/club/${w.clubId}/releases`,
      releaseBody(w, { processDate: '2027-07-15' }),
    )
    expect(await next()).toBe('2027-07-15')
    await ok(t, 'PUT', `/club/${w.clubId}/releases/${july.id}`, { processDate: '2027-08-01' })
    expect(await next()).toBe('2027-08-01')
    await ok(t, 'POST', `/club/${w.clubId}/releases/${july.id}/archive`)
    expect(await next()).toBe('2027-09-02')
  })

  test('the next release is one the member can get: delivered their way, after their hold', async () => {
    const club = await anotherClub(t, w)
    const plan = (processDate: string, deliveryMethods: string[]) =>
      ok(t, 'POST', `/club/${club.clubId}/releases`, releaseBody(w, { processDate, deliveryMethods }))
    await plan('2027-03-01', ['Pickup'])
    await plan('2027-06-01', ['Ship', 'Pickup'])
    const shipped = await member(t, club.clubId, { method: 'Ship', signupDate: '2027-02-10' })
    const pickup = await member(t, club.clubId, { method: 'Pickup', signupDate: '2027-02-10' })
    expect((await membership(shipped.membershipId)).nextProcessDate).toBe('2027-06-01')
    expect((await membership(pickup.membershipId)).nextProcessDate).toBe('2027-03-01')
    const held = await ok(t, 'POST', `/club-membership/${pickup.membershipId}/hold`, {
      holdUntil: '2027-04-01',
    })
    expect(held.nextProcessDate).toBe('2027-06-01')
    const resumed = await ok(t, 'POST', `/club-membership/${pickup.membershipId}/resume`)
    expect(resumed.nextProcessDate).toBe('2027-03-01')
  })

  test('migration 0030 stores the rule’s date over the former rule’s', async () => {
    const club = await anotherClub(t, w)
    await ok(t, 'POST', `/club/${club.clubId}/releases`, releaseBody(w, { processDate: '2027-06-01' }))
    const fresh = await member(t, club.clubId, { method: 'Pickup', signupDate: '2027-05-01' })
    const processed = await member(t, club.clubId, { method: 'Pickup', signupDate: '2027-01-15' })
    await ok(t, 'PUT', `/club-membership/${processed.membershipId}`, { lastProcessedDate: '2027-02-15' })
    await member(t, club.clubId, { method: 'Pickup', signupDate: '2027-06-02' })
    const held = await member(t, club.clubId, { method: 'Pickup', signupDate: '2027-05-01' })
    await ok(t, 'POST', `/club-membership/${held.membershipId}/hold`, { holdUntil: '2027-07-01' })
    const dates = async () =>
      Object.fromEntries(
        (await ok(t, 'GET', `/club-membership?clubId=${club.clubId}`)).clubMemberships.map(
          (m: { id: string; nextProcessDate: string }) => [m.id, m.nextProcessDate],
        ),
      )
    const byRule = await dates()
    expect(Object.values(byRule).sort()).toEqual(['2027-05-15', '2027-06-01', '2027-08-01', '2027-09-02'])
    const db = t.tenant.db.$client
    db.run("UPDATE club_memberships SET next_process_date = '2027-08-01' WHERE id = ?", [fresh.membershipId])
    const before = await membership(fresh.membershipId)

    db.exec(tenantMigrations.find((m) => m.tag === '0030_club_next_process_dates')!.sql)

    expect(await dates()).toEqual(byRule)
    expect((await membership(fresh.membershipId)).updatedAt > before.updatedAt).toBe(true)
  })
})
