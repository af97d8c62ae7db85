import { systemActor } from '../../platform/auth/actor'
import { DueTenants } from '../../platform/jobs/due-tenants'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { nextReminderWork, sendDueReminders } from './reminders'

/** Sends the reminder emails of legacy reservations due within a day, every five minutes. */
export function registerLegacyReservationJobs(platform: Platform): void {
  const due = new DueTenants()
  platform.jobs.register({
    name: 'legacy-reservations.remind',
    intervalMs: 5 * 60_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, due, async (tenant, db) => {
        await sendDueReminders(db, platform.messages, systemActor(tenant.id, 'reservation-reminders'))
        return nextReminderWork(db)
      }),
  })
}
