import { systemActor } from '../../platform/auth/actor'
import { DueTenants } from '../../platform/jobs/due-tenants'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { deliverDueGiftCards, nextDeliveryWork } from './delivery'

/** Sends scheduled gift card deliveries of every tenant once a minute. */
export function registerGiftCardJobs(platform: Platform): void {
  const due = new DueTenants()
  platform.jobs.register({
    name: 'gift-cards.deliver',
    intervalMs: 60_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, due, async (tenant, db) => {
        await deliverDueGiftCards(
          db,
          platform.messages,
          new Date(),
          systemActor(tenant.id, 'gift-card-delivery'),
        )
        return nextDeliveryWork(db)
      }),
  })
}
