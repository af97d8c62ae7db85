import { systemActor } from '../../platform/auth/actor'
import { forEachTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { sendDueReminders } from './reminders'

/** Sends the reminder emails of legacy reservations due within a day, every five minutes. */
export function registerLegacyReservationJobs(platform: Platform): void {
  platform.jobs.register({
    name: 'legacy-reservations.remind',
    intervalMs: 5 * 60_000,
    run: (signal) =>
      forEachTenant(platform, signal, async (tenant, db) => {
        await sendDueReminders(db, platform.messages, systemActor(tenant.id, 'reservation-reminders'))
      }),
  })
}
