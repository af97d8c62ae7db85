// Reservations under the location rule. The tenant has locations A and B; the owner makes records
// at both. A caller bound to A (a manager whose only role is there, or a `vps_` passcode session
// there) gets 404 for B's experiences and reservations, lists without them (totals too), and 403
// for a write naming B; every refusal writes nothing.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { boundCallers } from '../../bound-callers'
import { changedCounts, createTestApp, type TestApp, type TestResponse, tableCounter } from '../../harness'
import { inDays, newKey, publish, tablesPath } from './helpers'

let t: TestApp
let A: string
let B: string
beforeEach(async () => {
  t = await createTestApp()
  A = t.tenant.locationId
  B = t.addLocation(t.tenant, { name: 'B', timezone: 'UTC' }).id
})
afterEach(() => t.close())

const callersAtA = boundCallers.map(([name, bind]) => [name, () => bind(t, t.tenant, A)] as const)

/** The owner's request; fails the test when refused. */
async function owner(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const res = await t.request(method, path, { body, headers })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
  return res.body
}

/** Sends a request that must be refused with `status` and write nothing. */
async function refused(status: number, send: () => Promise<TestResponse>) {
  const counts = tableCounter({ tenant: t.tenant.db })
  const before = counts()
  const res = await send()
  expect({ status: res.status, written: changedCounts(before, counts()) }).toEqual({ status, written: [] })
  return res
}

async function experienceAt(locationId: string, name = 'Dinner') {
  const made = await owner('POST', '/tables/v1/experiences', { name, locationId })
  await publish(t, made.data.id)
  return made.data.id as string
}

async function typeAt(reservationLocationIds: string[], extra: Record<string, unknown> = {}) {
  const type = await owner('POST', '/reservation-type', {
    title: 'Tasting',
    reservationLocationIds,
    options: [{ title: 'Flight', price: 2500 }],
    ...extra,
  })
  return type.id as string
}

const booking = (reservationTypeId: string, locationId: string) => ({
  reservationTypeId,
  isReservationDateOverride: true,
  reservationDate: `${inDays(5)}T18:00:00.000Z`,
  guestCount: 2,
  reservationLocationId: locationId,
  inventoryLocationId: locationId,
})

async function legacyAt(locationId: string) {
  const made = await owner('POST', '/reservation', booking(await typeAt([locationId]), locationId))
  return made.id as string
}

async function tablesReservationAt(locationId: string) {
  const experienceId = await experienceAt(locationId)
  const offered = await owner(
    'GET',
    tablesPath(locationId, `/availability?date=${inDays(5)}&partySize=2&experienceId=${experienceId}`),
  )
  const booked = await owner(
    'POST',
    tablesPath(locationId, '/reservations'),
    { optionToken: offered.data[0].optionToken, guest: { name: 'Ada', email: 'ada@example.test' } },
    { 'idempotency-key': newKey() },
  )
  return booked.data.id as string
}

describe.each(callersAtA)('%s', (_name, callerAtA) => {
  test('the issue’s probes: B’s reservation and experience are 404, the list leaves B out', async () => {
    const [reservationAtA, reservationAtB] = [await legacyAt(A), await legacyAt(B)]
    const experienceAtB = await experienceAt(B)
    const as = await callerAtA()
    await refused(404, () => t.request('GET', `/reservation/${reservationAtB}`, { as }))
    await refused(404, () => t.request('PUT', `/reservation/${reservationAtB}`, { as, body: { notes: 'x' } }))
    const list = await t.request('GET', '/reservation', { as })
    expect(list.body.reservations.map((r: { id: string }) => r.id)).toEqual([reservationAtA])
    expect(list.body.page.total).toBe(1)
    expect((await t.request('GET', '/reservation')).body.page.total).toBe(2)
    await refused(404, () => t.request('GET', `/tables/v1/experiences/${experienceAtB}`, { as }))
    await refused(404, () => t.request('POST', `/tables/v1/experiences/${experienceAtB}/archive`, { as }))
  })

  test('experiences: A’s are theirs; B’s are 404 on every route, absent from lists and schedules', async () => {
    const atA = await experienceAt(A, 'At A')
    const atB = await experienceAt(B, 'At B')
    const as = await callerAtA()
    expect((await t.request('GET', `/tables/v1/experiences/${atA}`, { as })).status).toBe(200)
    expect((await t.request('POST', `/tables/v1/experiences/${atA}/archive`, { as })).status).toBe(200)
    const republish = { publicName: 'Dinner', partyMin: 1, partyMax: 8, cutoffMinutes: 60 }
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['GET', '/published', undefined],
      ['POST', '/archive', undefined],
      ['POST', '/restore', undefined],
      ['POST', '/publish', republish],
      ['GET', '/private-link', undefined],
      ['POST', '/private-link/rotate', undefined],
    ] as const)
      await refused(404, () => t.request(method, `/tables/v1/experiences/${atB}${suffix}`, { as, body }))
    const list = await t.request('GET', '/tables/v1/experiences', { as })
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([atA])
    expect(list.body.page.total).toBe(1)
    await t.request('POST', `/tables/v1/experiences/${atA}/restore`, { as })
    const schedules = await t.request('GET', '/tables/v1/schedules', { as })
    expect(schedules.body.data.map((s: { experienceId: string }) => s.experienceId)).toEqual([atA])
    expect((await t.request('GET', '/tables/v1/schedules')).body.data).toHaveLength(2)
  })

  test('experiences: naming B is 403 and writes nothing; the default location is A', async () => {
    const as = await callerAtA()
    await refused(403, () =>
      t.request('POST', '/tables/v1/experiences', { as, body: { name: 'There', locationId: B } }),
    )
    await refused(403, () => t.request('GET', `/tables/v1/experiences?locationId=${B}`, { as }))
    await refused(403, () => t.request('GET', `/tables/v1/schedules?locationId=${B}`, { as }))
    const here = await t.request('POST', '/tables/v1/experiences', { as, body: { name: 'Here' } })
    expect(here.status).toBe(201)
    expect(here.body.data.locationId).toBe(A)
  })

  test('legacy reservations: writes naming B are 403 and write nothing; A’s are theirs', async () => {
    const typeForBoth = await typeAt([A, B])
    const mine = await legacyAt(A)
    const as = await callerAtA()
    for (const body of [booking(typeForBoth, B), { ...booking(typeForBoth, A), inventoryLocationId: B }])
      await refused(403, () => t.request('POST', '/reservation', { as, body }))
    await refused(403, () =>
      t.request('PUT', `/reservation/${mine}`, { as, body: { reservationLocationId: B } }),
    )
    await refused(403, () => t.request('GET', `/reservation?reservationLocationId=${B}`, { as }))
    const updated = await t.request('PUT', `/reservation/${mine}`, { as, body: { notes: 'window seat' } })
    expect(updated.status).toBe(200)
    expect(updated.body.notes).toBe('window seat')
    const created = await t.request('POST', '/reservation', { as, body: booking(typeForBoth, A) })
    expect(created.status).toBe(201)
  })

  test('reservation types: seen when held everywhere or at A; changed only with every location', async () => {
    const [atA, atB, atBoth, everywhere] = [
      await typeAt([A]),
      await typeAt([B]),
      await typeAt([A, B]),
      await typeAt([]),
    ]
    const stockedAtB = await typeAt([A], { inventoryLocationId: B })
    const as = await callerAtA()
    const list = await t.request('GET', '/reservation-type', { as })
    expect(list.body.reservationTypes.map((r: { id: string }) => r.id).sort()).toEqual(
      [atA, atBoth, everywhere, stockedAtB].sort(),
    )
    expect(list.body.total).toBe(4)
    for (const id of [atA, atBoth, everywhere, stockedAtB])
      expect((await t.request('GET', `/reservation-type/${id}`, { as })).status).toBe(200)
    for (const method of ['GET', 'PUT', 'DELETE'])
      await refused(404, () => t.request(method, `/reservation-type/${atB}`, { as, body: {} }))
    // Held or stocked at B too, or everywhere: changing it changes B's offer.
    for (const id of [atBoth, everywhere, stockedAtB])
      for (const method of ['PUT', 'DELETE'])
        await refused(403, () =>
          t.request(method, `/reservation-type/${id}`, { as, body: { title: 'Renamed' } }),
        )
    // Withdrawing a type from B, or offering it everywhere, changes B's offer too.
    await refused(403, () =>
      t.request('PUT', `/reservation-type/${atBoth}`, { as, body: { reservationLocationIds: [A] } }),
    )
    await refused(403, () =>
      t.request('PUT', `/reservation-type/${atA}`, { as, body: { reservationLocationIds: [] } }),
    )
    await refused(403, () => t.request('POST', '/reservation-type', { as, body: { title: 'Anywhere' } }))
    await refused(403, () =>
      t.request('POST', '/reservation-type', { as, body: { title: 'There', reservationLocationIds: [B] } }),
    )
    const renamed = await t.request('PUT', `/reservation-type/${atA}`, { as, body: { title: 'Renamed' } })
    expect(renamed.body.title).toBe('Renamed')
    const created = await t.request('POST', '/reservation-type', {
      as,
      body: { title: 'Here', reservationLocationIds: [A] },
    })
    expect(created.status).toBe(201)
    expect((await t.request('DELETE', `/reservation-type/${created.body.id}`, { as })).status).toBe(200)
  })

  test('a reservation type it cannot see books nothing, even with the location override', async () => {
    const atB = await typeAt([B])
    const as = await callerAtA()
    const res = await refused(400, () =>
      t.request('POST', '/reservation', {
        as,
        body: { ...booking(atB, A), isReservationLocationOverride: true },
      }),
    )
    expect(res.body.errors[0].path).toBe('body/reservationTypeId')
  })

  test('tables reservations: B’s id under A’s path is 404; B’s path is 403', async () => {
    const atB = await tablesReservationAt(B)
    const mine = await tablesReservationAt(A)
    const as = await callerAtA()
    expect((await t.request('GET', tablesPath(A, `/reservations/${mine}`), { as })).status).toBe(200)
    await refused(404, () => t.request('GET', tablesPath(A, `/reservations/${atB}`), { as }))
    const cancel = (at: string, id: string) =>
      t.request('POST', tablesPath(at, `/reservations/${id}/cancel`), {
        as,
        headers: { 'idempotency-key': newKey(), 'if-match': '1' },
        body: { reason: 'guest called' },
      })
    await refused(404, () => cancel(A, atB))
    await refused(403, () => t.request('GET', tablesPath(B, `/reservations/${atB}`), { as }))
    await refused(403, () => cancel(B, atB))
    const listed = await t.request(
      'GET',
      tablesPath(A, `/reservations?dateFrom=${inDays(0)}&dateTo=${inDays(9)}`),
      {
        as,
      },
    )
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([mine])
    expect(listed.body.page.total).toBe(1)
    expect((await cancel(A, mine)).status).toBe(200)
  })

  test('the public booking page: at B it is 404 and cannot be replaced; at A it is theirs', async () => {
    const page = { tenantLocationCode: 'b', publicSlug: 'acme-b', publicName: 'Acme B', isPublic: true }
    await owner('PUT', '/tables/v1/settings/location-mapping', { ...page, locationId: B })
    const as = await callerAtA()
    const put = (body: unknown) => t.request('PUT', '/tables/v1/settings/location-mapping', { as, body })
    await refused(404, () => t.request('GET', '/tables/v1/settings/location-mapping', { as }))
    await refused(403, () => put({ ...page, locationId: A }))
    await refused(403, () => put(page))
    await owner('PUT', '/tables/v1/settings/location-mapping', { ...page, locationId: A })
    expect((await t.request('GET', '/tables/v1/settings/location-mapping', { as })).status).toBe(200)
    await refused(403, () => put({ ...page, locationId: B }))
    const mine = await put({ ...page, publicName: 'Acme A' })
    expect(mine.status).toBe(200)
    expect(mine.body.data).toMatchObject({ locationId: A, publicName: 'Acme A' })
  })
})

describe('tables reservations of another location', () => {
  test('are 404 under a location’s path whoever asks: the owner, a credential allowed at both', async () => {
    const atB = await tablesReservationAt(B)
    const credential = t.addCredential(t.tenant, { locationIds: [A, B] })
    for (const as of [t.tenant.owner, credential.token]) {
      await refused(404, () => t.request('GET', tablesPath(A, `/reservations/${atB}`), { as }))
      expect((await t.request('GET', tablesPath(B, `/reservations/${atB}`), { as })).status).toBe(200)
    }
  })
})

describe('audit and events', () => {
  test('legacy reservation writes keep their audit actions and `reservation` events', async () => {
    const id = await legacyAt(A)
    await owner('PUT', `/reservation/${id}`, { notes: 'x' })
    await owner('PUT', `/reservation/${id}`, { status: 'Cancelled' })
    const rows = (sql: string) => t.tenant.db.$client.query(sql).all(id)
    expect(
      rows('SELECT action, entity_type AS entityType FROM audit_entries WHERE entity_id = ? ORDER BY rowid'),
    ).toEqual([
      { action: 'legacy_reservation.create', entityType: 'legacy_reservation' },
      { action: 'legacy_reservation.update', entityType: 'legacy_reservation' },
      { action: 'legacy_reservation.status', entityType: 'legacy_reservation' },
    ])
    expect(rows('SELECT object, action FROM outbox_events WHERE aggregate_id = ? ORDER BY seq')).toEqual([
      { object: 'reservation', action: 'create' },
      { object: 'reservation', action: 'update' },
      { object: 'reservation', action: 'cancel' },
    ])
  })
})
