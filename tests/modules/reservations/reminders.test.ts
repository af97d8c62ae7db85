// Reminder emails of legacy reservations: due within 24 hours, sent once through the message
// sender, the outcome recorded on the reservation and audited; the job runs them for every tenant.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import {
  nextReminderWork,
  REMINDER_LEAD_MS,
  sendDueReminders,
} from '../../../src/modules/legacy-reservations/reminders'
import { systemActor } from '../../../src/platform/foundation/actor'
import { zonedInstant } from '../../../src/platform/foundation/dates'
import { MessageSendError, type MessageSender } from '../../../src/platform/messaging/sender'
import { createTestApp, type TenantFixture, type TestApp } from '../../harness'
import { inDays } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

async function ok(method: string, path: string, body?: unknown, tenant?: TenantFixture) {
  const res = await t.request(method, path, { body, tenant, as: tenant?.owner })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
  return res.body
}

const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']

/** A reservation `inDaysFromToday` days ahead at 11:00, for a customer with an email unless `guest`. */
async function book(inDaysFromToday: number, options: { guest?: boolean; tenant?: TenantFixture } = {}) {
  const tenant = options.tenant ?? t.tenant
  const type = await ok(
    'POST',
    '/reservation-type',
    {
      title: 'Estate Tasting',
      minGuestCount: 1,
      maxGuestCount: 8,
      leadTimeInHours: 0,
      reservationLocationIds: [tenant.locationId],
      options: [{ title: 'Flight', sku: `FL-${Math.random()}`, price: 2000 }],
      timeSlots: days.map((dayOfWeek) => ({ dayOfWeek, times: [{ time: '11:00' }] })),
    },
    tenant,
  )
  const customer = options.guest
    ? null
    : await ok(
        'POST',
        '/customers',
        { firstName: 'Ann', lastName: 'Lee', email: `ann${Math.random()}@example.test` },
        tenant,
      )
  return ok(
    'POST',
    '/reservation',
    {
      reservationDate: zonedInstant(inDays(inDaysFromToday), '11:00', 'America/Los_Angeles').toISOString(),
      reservationTypeId: type.id,
      guestCount: 3,
      reservationLocationId: tenant.locationId,
      inventoryLocationId: tenant.locationId,
      reservationTypeOptionId: type.options[0].id,
      ...(customer ? { customerId: customer.id } : {}),
    },
    tenant,
  )
}

const actor = () => systemActor(t.tenant.id, 'test')
const messages = (tenant = t.tenant) =>
  tenant.db.$client.query('SELECT destination, subject, body, category FROM outbound_messages').all() as any[]
/** "Now" a day before the reservation's date: it is then due. */
const dayBefore = (reservation: { reservationDate: string }) =>
  new Date(Date.parse(reservation.reservationDate) - 23 * 3600_000)

describe('legacy reservation reminders', () => {
  test('a reservation due within a day is reminded once, recorded and audited', async () => {
    const reservation = await book(3)
    expect(reservation.reminderEmailSendStatus).toBe('pending')
    // The reminder job's next work for this tenant: a day before the reservation.
    expect(nextReminderWork(t.tenant.db)).toBe(Date.parse(reservation.reservationDate) - REMINDER_LEAD_MS)
    const now = dayBefore(reservation)
    expect(await sendDueReminders(t.tenant.db, t.platform.messages, actor(), now)).toBe(1)
    expect(await sendDueReminders(t.tenant.db, t.platform.messages, actor(), now)).toBe(0)
    expect(nextReminderWork(t.tenant.db, now)).toBeNull()
    const [message] = messages()
    expect(message).toMatchObject({
      subject: `Reminder: Estate Tasting on ${inDays(3)}`,
      category: 'reservation_reminder',
    })
    expect(message.body).toContain(`#${reservation.reservationNumber}`)
    expect(message.body).toContain('3 guest(s)')
    const after = await ok('GET', `/reservation/${reservation.id}`)
    expect(after.reminderEmailSendStatus).toBe('sent')
    expect(after.reminderEmailSendDate).not.toBeNull()
    const audit = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'legacy_reservation.remind'")
      .all() as any[]
    expect(JSON.parse(audit[0].metadata)).toMatchObject({ status: 'sent', provider: 'embedded' })
    const events = t.tenant.db.$client
      .query("SELECT count(*) AS n FROM outbox_events WHERE object = 'reservation' AND action = 'remind'")
      .get()
    expect(events).toEqual({ n: 1 })
  })

  test('not yet due, cancelled, or in the past: nothing is sent', async () => {
    const later = await book(5)
    expect(await sendDueReminders(t.tenant.db, t.platform.messages, actor(), new Date())).toBe(0)
    const cancelled = await book(3)
    await ok('PUT', `/reservation/${cancelled.id}`, { status: 'Cancelled' })
    expect(await sendDueReminders(t.tenant.db, t.platform.messages, actor(), dayBefore(cancelled))).toBe(0)
    const past = new Date(Date.parse(later.reservationDate) + 3600_000)
    expect(await sendDueReminders(t.tenant.db, t.platform.messages, actor(), past)).toBe(0)
    // Only the one in five days waits; once its date has passed, nothing does.
    expect(nextReminderWork(t.tenant.db)).toBe(Date.parse(later.reservationDate) - REMINDER_LEAD_MS)
    expect(nextReminderWork(t.tenant.db, past)).toBeNull()
    expect(messages()).toEqual([])
  })

  test('no customer email: skipped; a failing sender: failed with its reason', async () => {
    const guest = await book(3, { guest: true })
    await sendDueReminders(t.tenant.db, t.platform.messages, actor(), dayBefore(guest))
    expect((await ok('GET', `/reservation/${guest.id}`)).reminderEmailSendStatus).toBe('skipped')
    const member = await book(4)
    const failing: MessageSender = {
      provider: 'smtp',
      send: async () => {
        throw new MessageSendError('smtp', 'mailbox unavailable')
      },
    }
    await sendDueReminders(t.tenant.db, failing, actor(), dayBefore(member))
    expect((await ok('GET', `/reservation/${member.id}`)).reminderEmailSendStatus).toBe('failed')
    const reasons = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'legacy_reservation.remind' ORDER BY seq")
      .all()
      .map((r: any) => JSON.parse(r.metadata).reason)
    expect(reasons).toEqual(['no customer email address on the reservation', 'mailbox unavailable'])
  })

  test('the job is registered and each tenant’s reminders stay in that tenant', async () => {
    expect(t.platform.jobs.status().map((j) => j.name)).toContain('legacy-reservations.remind')
    const other = await t.addTenant('other')
    const theirs = await book(3, { tenant: other })
    await sendDueReminders(t.tenant.db, t.platform.messages, actor(), dayBefore(theirs))
    expect(messages(other)).toEqual([])
    const res = await t.request('GET', `/reservation/${theirs.id}`)
    expect(res.status).toBe(404)
  })
})
