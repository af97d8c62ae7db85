import { systemActor } from '../../platform/foundation/actor'
import type { DueWorkSource } from '../../platform/jobs/due-index'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { nextReminderWork, sendDueReminders } from './reminders'

/** Sends the reminder emails of legacy reservations due within a day, every five minutes. */
export const remindersDue: DueWorkSource = {
  job: 'legacy-reservations.remind',
  nextWork: (_tenant, db) => nextReminderWork(db),
}

export function registerLegacyReservationJobs(platform: Platform): void {
  platform.jobs.register({
    name: remindersDue.job,
    intervalMs: 5 * 60_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, remindersDue, async (tenant, db) => {
        await sendDueReminders(db, platform.messages, systemActor(tenant.id, 'reservation-reminders'))
      }),
  })
}
