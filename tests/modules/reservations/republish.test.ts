// A republish binds the option tokens issued before it: booking re-checks a token against the
// version published now (start times, party limits, cutoff, capacity over the covers every version
// booked) and refuses what it no longer allows with 409 `option_unavailable`. Reservations already
// made keep their version.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { weekdayOf } from '../../../src/modules/experiences/clock'
import { CreateConflict } from '../../../src/modules/tables-reservations/model'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { ALL_DAYS, book, inDays, newKey, options, publish, publishedExperience, tablesPath } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const date = inDays(4)

/** The first option offered for a party (its token names the version published now). */
async function offer(partySize: number) {
  const res = await options(t, { date, partySize })
  expect(res.status).toBe(200)
  return res.body.data[0]
}

const reservationRow = (id: string) =>
  t.tenant.db.$client
    .query(
      'SELECT experience_version_id AS versionId, party_size AS partySize FROM tables_reservations WHERE id = ?',
    )
    .get(id) as { versionId: string; partySize: number }

describe('booking a token issued before a republish', () => {
  test('worked example: capacity 8, 5 booked, republished with 6: the token for 2 is 409 with 1 left, one for 1 books', async () => {
    const { id, versionId: v1 } = await publishedExperience(t, { slots: [{ times: ['19:00'], capacity: 8 }] })
    const [five, two, one] = [await offer(5), await offer(2), await offer(1)]
    const fiveBooked = await book(t, { date, token: five.optionToken })
    expect(fiveBooked.status).toBe(201)

    const v2 = await publish(t, id, { slots: [{ times: ['19:00'], capacity: 6 }] })
    const now = await offer(1)
    expect(now).toMatchObject({ experienceVersionId: v2, remainingCapacity: 1 })
    expect(await options(t, { date, partySize: 2 }).then((r) => r.body.data)).toEqual([])

    // Tried from outside, with a tables-API credential, as the report did.
    const partner = t.addCredential(t.tenant).token
    const refused = await book(t, { date, token: two.optionToken, as: partner })
    expect(refused.status).toBe(409)
    expect(refused.headers.get('content-type')).toBe('application/problem+json')
    expect(refused.body).toMatchObject({
      code: 'option_unavailable',
      reason: 'capacity',
      remainingCapacity: 1,
      capacity: 6,
      partySize: 2,
      publishedVersionId: v2,
      startsAt: two.startsAt,
    })
    expect(refused.body.detail).toBe('this start time has 1 of its 6 covers left, too few for 2')

    // The earlier token for 1 still books; it keeps the version (and price) it was issued for.
    const oneBooked = await book(t, { date, token: one.optionToken, as: partner })
    expect(oneBooked.status).toBe(201)
    expect(oneBooked.body.data.experienceVersionId).toBe(v1)
    // The 5 already booked keep version 1; the start holds the 6 now published, and no more.
    expect(reservationRow(fiveBooked.body.data.id)).toEqual({ versionId: v1, partySize: 5 })
    expect(await options(t, { date, partySize: 1 }).then((r) => r.body.data)).toEqual([])
    const late = await book(t, { date, token: now.optionToken })
    expect(late.status).toBe(409)
    expect(late.body).toMatchObject({ reason: 'capacity', remainingCapacity: 0 })
    expect(countRows(t.tenant.db, 'tables_reservations')).toBe(2)
  })

  test.each([
    ['its start time moved', false],
    ['its weekday dropped', true],
  ])('a start the new schedule no longer offers is 409 start_not_offered (%s)', async (_, dropWeekday) => {
    const { id } = await publishedExperience(t, { slots: [{ times: ['18:00', '19:30'] }] })
    const [early, late] = (await options(t, { date, partySize: 2 })).body.data
    const v2 = await publish(t, id, {
      slots: [
        dropWeekday ? { daysOfWeek: ALL_DAYS.filter((d) => d !== weekdayOf(date)) } : { times: ['18:00'] },
      ],
    })
    const refused = await book(t, { date, token: late.optionToken })
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({
      code: 'option_unavailable',
      reason: 'start_not_offered',
      remainingCapacity: 0,
      publishedVersionId: v2,
    })
    expect(refused.body.detail).toBe('the published version (2) no longer offers this start time')
    // A start both versions offer still books with the earlier token.
    if (!dropWeekday) expect((await book(t, { date, token: early.optionToken })).status).toBe(201)
    expect(countRows(t.tenant.db, 'tables_reservations')).toBe(dropWeekday ? 0 : 1)
  })

  test.each([
    ['below the new partyMin', 2, { partyMin: 3, partyMax: 8 }],
    ['above the new partyMax', 6, { partyMin: 1, partyMax: 4 }],
  ])('a party %s is 409 party_size, with the new limits and what is left', async (_, partySize, limits) => {
    const { id } = await publishedExperience(t, { slots: [{ times: ['19:00'], capacity: 10 }] })
    const token = (await offer(partySize)).optionToken
    expect((await book(t, { date, partySize: 1 })).status).toBe(201)
    await publish(t, id, { ...limits, slots: [{ times: ['19:00'], capacity: 10 }] })
    const refused = await book(t, { date, token })
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({
      code: 'option_unavailable',
      reason: 'party_size',
      partySize,
      ...limits,
      remainingCapacity: 9,
    })
    expect(refused.body.detail).toBe(
      `the published version (2) takes parties of ${limits.partyMin}..${limits.partyMax}`,
    )
    expect(countRows(t.tenant.db, 'tables_reservations')).toBe(1)
  })

  test('a longer cutoff republished closes the start for earlier tokens (409 closed)', async () => {
    const { id } = await publishedExperience(t, { slots: [{ times: ['19:00'] }], cutoffMinutes: 60 })
    const token = (await offer(2)).optionToken
    await publish(t, id, { slots: [{ times: ['19:00'] }], cutoffMinutes: 60 * 24 * 30 })
    const refused = await book(t, { date, token })
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ code: 'option_unavailable', reason: 'closed', remainingCapacity: 0 })
    expect(refused.body.closedAt < refused.body.startsAt).toBe(true)
  })

  test('republishing with a larger capacity lets more in; a refused key books on retry', async () => {
    const { id, versionId: v1 } = await publishedExperience(t, { slots: [{ times: ['19:00'], capacity: 4 }] })
    const [four, two] = [await offer(4), await offer(2)]
    expect((await book(t, { date, token: four.optionToken })).status).toBe(201)
    const key = newKey()
    const full = await book(t, { date, token: two.optionToken, key })
    expect(full.status).toBe(409)
    expect(full.body).toMatchObject({ reason: 'capacity', remainingCapacity: 0, capacity: 4 })

    await publish(t, id, { slots: [{ times: ['19:00'], capacity: 8 }] })
    expect(await offer(4)).toMatchObject({ remainingCapacity: 4 })
    // A refused request stored nothing under its key, so the same request now books.
    const retried = await book(t, { date, token: two.optionToken, key })
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
    expect(retried.body.data.experienceVersionId).toBe(v1)
    expect(await offer(2)).toMatchObject({ remainingCapacity: 2 })
  })

  test('a refused booking writes nothing: no reservation, audit entry or event', async () => {
    const { id } = await publishedExperience(t, { slots: [{ times: ['19:00'], capacity: 4 }] })
    const token = (await offer(4)).optionToken
    await publish(t, id, { slots: [{ times: ['19:00'], capacity: 3 }] })
    const audits = countRows(t.tenant.db, 'audit_entries')
    const events = countRows(t.tenant.db, 'outbox_events')
    expect((await book(t, { date, token })).status).toBe(409)
    expect(countRows(t.tenant.db, 'tables_reservations')).toBe(0)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(audits)
    expect(countRows(t.tenant.db, 'outbox_events')).toBe(events)
  })

  test('an archived experience is 409 option_unavailable (archived)', async () => {
    const { id } = await publishedExperience(t)
    const token = (await offer(2)).optionToken
    await t.request('POST', `/tables/v1/experiences/${id}/archive`)
    const refused = await book(t, { date, token })
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({
      code: 'option_unavailable',
      reason: 'archived',
      remainingCapacity: 0,
    })
  })
})

test('OpenAPI declares the 409 of create, and a refusal matches it', async () => {
  const spec = (await t.request('GET', '/openapi.json', { as: null })).body
  const create = spec.paths['/tables-api/v1/locations/{locationId}/reservations'].post
  expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '409']))
  const conflict = create.responses['409'].content['application/problem+json'].schema.$ref.split('/').at(-1)
  const declared = JSON.stringify(spec.components.schemas[conflict])
  for (const member of ['option_unavailable', 'idempotency_key_in_use', 'remainingCapacity', 'reason'])
    expect(declared).toContain(member)
  expect(create.description).toContain('option_unavailable')

  const { id } = await publishedExperience(t, { slots: [{ times: ['19:00'], capacity: 2 }] })
  const token = (await offer(2)).optionToken
  await publish(t, id, { slots: [{ times: ['19:00'], capacity: 1 }] })
  const refused = await t.request('POST', tablesPath(t.tenant.locationId, '/reservations'), {
    headers: { 'idempotency-key': newKey() },
    body: { optionToken: token, guest: { name: 'Ada', email: 'ada@example.test' } },
  })
  expect(refused.status).toBe(409)
  expect([...Value.Errors(CreateConflict, refused.body)].map((e) => `${e.path} ${e.message}`)).toEqual([])
})
