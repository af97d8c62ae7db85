import { systemActor } from '../../platform/auth/actor'
import { forEachTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { sendPendingNotifications } from './notifications'
import { endDueSnoozes } from './settings'

/**
 * Snoozed channels turn themselves back on (once a minute); guest notifications still pending
 * (their request ended before sending them) are sent (every 30 seconds). Every tenant.
 */
export function registerOffPremiseJobs(platform: Platform): void {
  platform.jobs.register({
    name: 'off-premise.snooze-expiry',
    intervalMs: 60_000,
    run: (signal) =>
      forEachTenant(platform, signal, (tenant, db) => {
        endDueSnoozes(db, systemActor(tenant.id, 'off-premise-snooze'))
      }),
  })
  platform.jobs.register({
    name: 'off-premise.notify',
    intervalMs: 30_000,
    run: (signal) =>
      forEachTenant(platform, signal, async (_tenant, db) => {
        await sendPendingNotifications(db, platform.messages)
      }),
  })
}
