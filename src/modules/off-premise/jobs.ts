import { systemActor } from '../../platform/foundation/actor'
import type { DueWorkSource } from '../../platform/jobs/due-index'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { nextNotificationWork, sendPendingNotifications } from './notifications'
import { earliestSnoozeEnd, endDueSnoozes } from './settings'

/**
 * Snoozed channels turn themselves back on (once a minute); guest notifications still pending
 * (their request ended before sending them) are sent (every 30 seconds). Every tenant with a
 * snooze ending or a notification pending.
 */
export const snoozeEnds: DueWorkSource = {
  job: 'off-premise.snooze-expiry',
  nextWork: (_tenant, db) => earliestSnoozeEnd(db),
}

export const pendingNotifications: DueWorkSource = {
  job: 'off-premise.notify',
  nextWork: (_tenant, db) => nextNotificationWork(db),
}

export function registerOffPremiseJobs(platform: Platform): void {
  platform.jobs.register({
    name: snoozeEnds.job,
    intervalMs: 60_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, snoozeEnds, (tenant, db) => {
        endDueSnoozes(db, systemActor(tenant.id, 'off-premise-snooze'))
      }),
  })
  platform.jobs.register({
    name: pendingNotifications.job,
    intervalMs: 30_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, pendingNotifications, async (tenant, db) => {
        await sendPendingNotifications(db, platform.messages, systemActor(tenant.id, 'off-premise-notify'))
      }),
  })
}
