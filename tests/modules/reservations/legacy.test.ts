import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { zonedInstant } from '../../../src/platform/foundation/dates'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { inDays } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const TZ = 'America/Los_Angeles'
const weekdayName = (date: string) =>
  ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'][
    new Date(`${date}T12:00:00Z`).getUTCDay()
  ]!
const at = (date: string, time: string) => zonedInstant(date, time, TZ).toISOString()
const allDays = (times: { time: string; allowCustomersToReserveOnline?: boolean }[]) =>
  ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'].map((dayOfWeek) => ({
    dayOfWeek,
    times,
  }))

async function makeType(overrides: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/reservation-type', {
    body: {
      title: 'Estate Tasting',
      minGuestCount: 2,
      maxGuestCount: 6,
      leadTimeInHours: 24,
      reservationLocationIds: [t.tenant.locationId],
      options: [{ title: 'Classic flight', sku: 'TAST-1', price: 3500 }],
      timeSlots: allDays([{ time: '11:00' }, { time: '14:00', allowCustomersToReserveOnline: false }]),
      ...overrides,
    },
  })
  if (res.status !== 201) throw new Error(res.text)
  return res.body
}

async function makeCustomer(email = 'pat@example.test') {
  const res = await t.request('POST', '/customers', { body: { firstName: 'Pat', lastName: 'Doe', email } })
  if (res.status !== 201) throw new Error(res.text)
  return res.body.id as string
}

const baseBooking = (
  type: { id: string; options: { id: string }[] },
  extra: Record<string, unknown> = {},
) => ({
  reservationDate: at(inDays(5), '11:00'),
  reservationTypeId: type.id,
  guestCount: 4,
  reservationLocationId: t.tenant.locationId,
  inventoryLocationId: t.tenant.locationId,
  reservationTypeOptionId: type.options[0]!.id,
  ...extra,
})

describe('reservation types', () => {
  test('create with options and time slots; get, list, update (children replaced), delete', async () => {
    const type = await makeType()
    expect(type).toMatchObject({
      slug: 'estate-tasting',
      status: 'active',
      minGuestCount: 2,
      paymentCharge: 'none',
    })
    expect(type.options).toEqual([
      expect.objectContaining({ title: 'Classic flight', price: 3500, sortOrder: 0 }),
    ])
    expect(type.timeSlots).toHaveLength(7)
    expect(type.timeSlots[0]).toMatchObject({
      dayOfWeek: 'Sunday',
      times: [{ time: '11:00' }, { time: '14:00' }],
    })
    expect(type.timeSlots[0].times[1].allowCustomersToReserveOnline).toBe(false)
    expect((await t.request('GET', `/reservation-type/${type.id}`)).body).toEqual(type)
    const list = await t.request('GET', '/reservation-type?q=estate')
    expect(list.body.total).toBe(1)

    const updated = await t.request('PUT', `/reservation-type/${type.id}`, {
      body: {
        maxGuestCount: 10,
        options: [
          { title: 'Reserve', price: 6000 },
          { title: 'Library', price: 9000 },
        ],
      },
    })
    expect(updated.status).toBe(200)
    expect(updated.body.maxGuestCount).toBe(10)
    expect(updated.body.options.map((o: { title: string }) => o.title)).toEqual(['Reserve', 'Library'])
    expect(updated.body.timeSlots).toHaveLength(7)
    expect(countRows(t.tenant.db, 'reservation_type_options')).toBe(2)

    const deleted = await t.request('DELETE', `/reservation-type/${type.id}`)
    expect(deleted.status).toBe(200)
    expect(countRows(t.tenant.db, 'reservation_type_times')).toBe(0)
    expect((await t.request('GET', `/reservation-type/${type.id}`)).status).toBe(404)
  })

  test('validation: min above max, foreign location, default outside the list, duplicate day, taken slug', async () => {
    const post = (body: unknown) => t.request('POST', '/reservation-type', { body })
    expect((await post({ title: 'x', minGuestCount: 5, maxGuestCount: 2 })).status).toBe(400)
    expect((await post({ title: 'x', reservationLocationIds: [crypto.randomUUID()] })).status).toBe(400)
    expect(
      (
        await post({
          title: 'x',
          reservationLocationIds: [t.tenant.locationId],
          defaultReservationLocationId: crypto.randomUUID(),
        })
      ).status,
    ).toBe(400)
    expect((await post({ title: 'x', isAlwaysOccursInDefaultLocation: true })).status).toBe(400)
    const dup = await post({
      title: 'x',
      timeSlots: [
        { dayOfWeek: 'Monday', times: [] },
        { dayOfWeek: 'Monday', times: [] },
      ],
    })
    expect(dup.status).toBe(400)
    expect((await post({ title: 'x', minGuestCount: '2' })).status).toBe(400)
    expect((await post({ title: 'x', bogus: true })).status).toBe(400)
    expect(countRows(t.tenant.db, 'reservation_types')).toBe(0)
    await makeType({ slug: 'tour' })
    expect((await post({ title: 'Other', slug: 'tour' })).status).toBe(409)
  })

  test('a type with reservations cannot be deleted', async () => {
    const type = await makeType()
    expect((await t.request('POST', '/reservation', { body: baseBooking(type) })).status).toBe(201)
    expect((await t.request('DELETE', `/reservation-type/${type.id}`)).status).toBe(409)
  })

  test('permission and isolation', async () => {
    const type = await makeType()
    expect(
      (await t.request('POST', '/reservation-type', { as: t.tenant.readOnly, body: { title: 'x' } })).status,
    ).toBe(403)
    expect((await t.request('GET', '/reservation-type', { as: t.tenant.readOnly })).status).toBe(200)
    const other = await t.addTenant('other')
    expect(
      (await t.request('GET', `/reservation-type/${type.id}`, { as: other.owner, tenant: other })).status,
    ).toBe(404)
  })
})

describe('legacy reservations', () => {
  test('create: numbered, Pending, unpaid, priced per guest, with the type and an event', async () => {
    const type = await makeType()
    const customerId = await makeCustomer()
    const first = await t.request('POST', '/reservation', { body: baseBooking(type, { customerId }) })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({
      reservationNumber: 1,
      status: 'Pending',
      paymentStatus: 'unpaid',
      paymentCharge: 'none',
      channel: 'Admin',
      experienceType: 'default',
      customerId,
      price: 14_000,
      sku: 'TAST-1',
      reminderEmailSendStatus: 'pending',
      reservationType: { id: type.id, title: 'Estate Tasting', slug: 'estate-tasting' },
      flags: [],
    })
    const second = await t.request('POST', '/reservation', { body: baseBooking(type, { guestCount: 2 }) })
    expect(second.body.reservationNumber).toBe(2)
    const events = t.tenant.db.$client
      .query("SELECT count(*) AS n FROM outbox_events WHERE object = 'reservation' AND action = 'create'")
      .get() as { n: number }
    expect(events.n).toBe(2)
    expect((await t.request('GET', `/reservation/${first.body.id}`)).body).toEqual(first.body)
  })

  test('validated against the type: guests, time slot, lead time, location, option, customer', async () => {
    const type = await makeType()
    const post = (extra: Record<string, unknown>) =>
      t.request('POST', '/reservation', { body: baseBooking(type, extra) })
    const tooMany = await post({ guestCount: 7 })
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.errors[0].path).toBe('body/guestCount')
    expect((await post({ guestCount: 1 })).status).toBe(400)
    const offSlot = await post({ reservationDate: at(inDays(5), '12:30') })
    expect(offSlot.status).toBe(400)
    expect(offSlot.body.errors[0].message).toContain(weekdayName(inDays(5)))
    const soon = await post({ reservationDate: at(inDays(0), '23:59') })
    expect(soon.status).toBe(400)
    const lead = await post({ reservationDate: at(inDays(1), '11:00') })
    // Tomorrow 11:00 may be more or less than 24 hours away depending on the time of day.
    expect([201, 400]).toContain(lead.status)
    if (lead.status === 400) expect(lead.body.detail).toContain('24 hour')
    expect((await post({ reservationTypeOptionId: crypto.randomUUID() })).status).toBe(400)
    expect((await post({ customerId: 'nobody' })).status).toBe(400)
    expect((await post({ reservationTypeId: crypto.randomUUID() })).status).toBe(400)
    expect((await post({ inventoryLocationId: crypto.randomUUID() })).status).toBe(400)
    expect((await post({ guestCount: '4' })).status).toBe(400)
    const missing = await t.request('POST', '/reservation', { body: { reservationTypeId: type.id } })
    expect(missing.status).toBe(400)
    expect(countRows(t.tenant.db, 'legacy_reservations')).toBe(lead.status === 201 ? 1 : 0)
  })

  test('online (channel Web): needs a customer, an online slot, and no overrides', async () => {
    const type = await makeType()
    const customerId = await makeCustomer()
    const post = (extra: Record<string, unknown>) =>
      t.request('POST', '/reservation', { body: baseBooking(type, { channel: 'Web', ...extra }) })
    expect((await post({})).status).toBe(400)
    const closed = await post({ customerId, reservationDate: at(inDays(5), '14:00') })
    expect(closed.status).toBe(400)
    expect(closed.body.detail).toContain('online')
    expect((await post({ customerId, isGuestCountOverride: true, guestCount: 9 })).status).toBe(400)
    expect((await post({ customerId })).status).toBe(201)
    // Staff may book the 14:00 slot that is closed online.
    expect(
      (
        await t.request('POST', '/reservation', {
          body: baseBooking(type, { reservationDate: at(inDays(5), '14:00') }),
        })
      ).status,
    ).toBe(201)
  })

  test('staff overrides lift the guest, date and location rules; the price can be overridden', async () => {
    const type = await makeType()
    const res = await t.request('POST', '/reservation', {
      body: baseBooking(type, {
        guestCount: 12,
        isGuestCountOverride: true,
        reservationDate: at(inDays(0), '23:59'),
        isReservationDateOverride: true,
        isPriceOverride: true,
        price: 0,
      }),
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ guestCount: 12, price: 0, isPriceOverride: true })
    expect((await t.request('POST', '/reservation', { body: baseBooking(type, { price: 10 }) })).status).toBe(
      400,
    )
  })

  test('maxGroupCount: a full start time is 409; a cancelled one frees it', async () => {
    const type = await makeType({ maxGroupCount: 1 })
    const first = await t.request('POST', '/reservation', { body: baseBooking(type) })
    expect(first.status).toBe(201)
    const full = await t.request('POST', '/reservation', { body: baseBooking(type, { guestCount: 2 }) })
    expect(full.status).toBe(409)
    await t.request('PUT', `/reservation/${first.body.id}`, { body: { status: 'Cancelled' } })
    expect(
      (await t.request('POST', '/reservation', { body: baseBooking(type, { guestCount: 2 }) })).status,
    ).toBe(201)
  })

  test('status: Pending → Confirmed → Checked In → Completed, with timestamps; other moves are 409', async () => {
    const type = await makeType()
    const id = (await t.request('POST', '/reservation', { body: baseBooking(type) })).body.id
    const put = (body: unknown) => t.request('PUT', `/reservation/${id}`, { body })
    const skip = await put({ status: 'Completed' })
    expect(skip.status).toBe(409)
    expect(skip.body).toMatchObject({
      currentStatus: 'Pending',
      allowed: ['Confirmed', 'Cancelled', 'No Show'],
    })
    expect((await put({ status: 'Confirmed' })).body.status).toBe('Confirmed')
    const checkedIn = await put({ status: 'Checked In' })
    expect(checkedIn.body.checkInTime).toBeString()
    expect((await put({ status: 'Cancelled' })).status).toBe(409)
    const done = await put({ status: 'Completed' })
    expect(done.body).toMatchObject({ status: 'Completed' })
    expect(done.body.closeOutTime).toBeString()
    expect((await put({ status: 'Pending' })).status).toBe(409)
    expect((await put({ guestCount: 3 })).status).toBe(409)
    expect((await put({ paymentStatus: 'paid' })).body.reservationPaidDate).toBeString()
    expect((await put({ paymentStatus: 'unpaid' })).status).toBe(409)
    const actions = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'reservation' ORDER BY rowid")
      .all()
      .map((r) => (r as { action: string }).action)
    expect(actions).toEqual(['create', 'update', 'update', 'update', 'update'])
  })

  test('cancel emits a cancel event; a change of guests is rechecked and repriced', async () => {
    const type = await makeType()
    const id = (await t.request('POST', '/reservation', { body: baseBooking(type) })).body.id
    const fewer = await t.request('PUT', `/reservation/${id}`, { body: { guestCount: 2 } })
    expect(fewer.body.price).toBe(7000)
    expect((await t.request('PUT', `/reservation/${id}`, { body: { guestCount: 9 } })).status).toBe(400)
    await t.request('PUT', `/reservation/${id}`, { body: { status: 'Cancelled' } })
    const cancels = t.tenant.db.$client
      .query("SELECT count(*) AS n FROM outbox_events WHERE object = 'reservation' AND action = 'cancel'")
      .get() as { n: number }
    expect(cancels.n).toBe(1)
  })

  test('list: paging 1..100 and filters by date range, status, type and customer', async () => {
    const type = await makeType()
    const customerId = await makeCustomer()
    const a = (await t.request('POST', '/reservation', { body: baseBooking(type, { customerId }) })).body
    const b = (
      await t.request('POST', '/reservation', {
        body: baseBooking(type, { reservationDate: at(inDays(8), '11:00') }),
      })
    ).body
    await t.request('PUT', `/reservation/${b.id}`, { body: { status: 'Confirmed' } })
    const list = (q: string) => t.request('GET', `/reservation?${q}`)
    const ids = async (q: string) => (await list(q)).body.reservations.map((r: { id: string }) => r.id)
    expect(await ids('')).toEqual([a.id, b.id])
    expect((await list('')).body.page).toEqual({ total: 2, page: 1, limit: 50 })
    expect(await ids(`dateFrom=${inDays(6)}`)).toEqual([b.id])
    expect(await ids(`dateTo=${inDays(5)}`)).toEqual([a.id])
    expect(await ids('status=Confirmed')).toEqual([b.id])
    expect(await ids(`customerId=${customerId}`)).toEqual([a.id])
    expect(await ids(`reservationTypeId=${type.id}&limit=1&page=2`)).toEqual([b.id])
    expect((await list('limit=101')).status).toBe(400)
    expect((await list('page=0')).status).toBe(400)
    expect((await list(`dateFrom=${inDays(9)}&dateTo=${inDays(1)}`)).status).toBe(400)
  })

  test('customer merge moves reservations to the primary; customers by location include them', async () => {
    const type = await makeType()
    const primary = await makeCustomer('a@example.test')
    const source = await makeCustomer('b@example.test')
    const id = (await t.request('POST', '/reservation', { body: baseBooking(type, { customerId: source }) }))
      .body.id
    const merged = await t.request('POST', '/customers/merge', {
      body: { primaryCustomerId: primary, sourceCustomerIds: [source], confirmation: 'MERGE' },
    })
    expect(merged.status).toBe(200)
    expect((await t.request('GET', `/reservation/${id}`)).body.customerId).toBe(primary)
    const here = await t.request('GET', `/customers?locationId=${t.tenant.locationId}`)
    expect(here.body.customers.map((c: { id: string }) => c.id)).toContain(primary)
  })

  test('tags attach to reservations of both kinds and not to unknown ids', async () => {
    const { attachTag } = await import('../../../src/modules/tags/assignments')
    const { systemActor } = await import('../../../src/platform/foundation/actor')
    const type = await makeType()
    const id = (await t.request('POST', '/reservation', { body: baseBooking(type) })).body.id
    const tag = await t.request('POST', '/tag/reservation', { body: { title: 'VIP', type: 'Manual' } })
    expect(tag.status).toBe(201)
    const actor = systemActor(t.tenant.id, 'test')
    expect(() =>
      attachTag(t.tenant.db, actor, { objectType: 'reservation', objectId: id, tagId: tag.body.id }),
    ).not.toThrow()
    expect(() =>
      attachTag(t.tenant.db, actor, {
        objectType: 'reservation',
        objectId: crypto.randomUUID(),
        tagId: tag.body.id,
      }),
    ).toThrow(expect.objectContaining({ code: 'not_found' }))
  })

  test('permission and isolation', async () => {
    const type = await makeType()
    expect(
      (await t.request('POST', '/reservation', { as: t.tenant.readOnly, body: baseBooking(type) })).status,
    ).toBe(403)
    const id = (await t.request('POST', '/reservation', { body: baseBooking(type) })).body.id
    expect(
      (await t.request('PUT', `/reservation/${id}`, { as: t.tenant.readOnly, body: { notes: 'x' } })).status,
    ).toBe(403)
    const other = await t.addTenant('other')
    expect((await t.request('GET', `/reservation/${id}`, { as: other.owner, tenant: other })).status).toBe(
      404,
    )
    expect(
      (await t.request('PUT', `/reservation/${id}`, { as: other.owner, tenant: other, body: { notes: 'x' } }))
        .status,
    ).toBe(404)
  })
})
