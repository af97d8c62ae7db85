import { systemActor } from '../../platform/auth/actor'
import { DueTenants } from '../../platform/jobs/due-tenants'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { nextNotificationWork, sendPendingNotifications } from './notifications'
import { earliestSnoozeEnd, endDueSnoozes } from './settings'

/**
 * Snoozed channels turn themselves back on (once a minute); guest notifications still pending
 * (their request ended before sending them) are sent (every 30 seconds). Every tenant with a
 * snooze ending or a notification pending.
 */
export function registerOffPremiseJobs(platform: Platform): void {
  const snoozed = new DueTenants()
  platform.jobs.register({
    name: 'off-premise.snooze-expiry',
    intervalMs: 60_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, snoozed, (tenant, db) => {
        endDueSnoozes(db, systemActor(tenant.id, 'off-premise-snooze'))
        return earliestSnoozeEnd(db)
      }),
  })
  const notifying = new DueTenants()
  platform.jobs.register({
    name: 'off-premise.notify',
    intervalMs: 30_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, notifying, async (tenant, db) => {
        await sendPendingNotifications(db, platform.messages, systemActor(tenant.id, 'off-premise-notify'))
        return nextNotificationWork(db)
      }),
  })
}
