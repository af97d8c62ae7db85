import { systemActor } from '../../platform/auth/actor'
import { forEachTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { deliverDueGiftCards } from './delivery'

/** Sends scheduled gift card deliveries of every tenant once a minute. */
export function registerGiftCardJobs(platform: Platform): void {
  platform.jobs.register({
    name: 'gift-cards.deliver',
    intervalMs: 60_000,
    run: (signal) =>
      forEachTenant(platform, signal, async (tenant, db) => {
        await deliverDueGiftCards(
          db,
          platform.messages,
          new Date(),
          systemActor(tenant.id, 'gift-card-delivery'),
        )
      }),
  })
}
