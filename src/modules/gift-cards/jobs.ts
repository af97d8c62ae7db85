import { systemActor } from '../../platform/foundation/actor'
import type { DueWorkSource } from '../../platform/jobs/due-index'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { deliverDueGiftCards, nextDeliveryWork } from './delivery'

/** Sends scheduled gift card deliveries of every tenant once a minute. */
export const giftCardDeliveries: DueWorkSource = {
  job: 'gift-cards.deliver',
  nextWork: (_tenant, db) => nextDeliveryWork(db),
}

export function registerGiftCardJobs(platform: Platform): void {
  platform.jobs.register({
    name: giftCardDeliveries.job,
    intervalMs: 60_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, giftCardDeliveries, async (tenant, db) => {
        await deliverDueGiftCards(
          db,
          platform.messages,
          new Date(),
          systemActor(tenant.id, 'gift-card-delivery'),
        )
      }),
  })
}
