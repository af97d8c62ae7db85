import { newId } from '../../../../src/platform/foundation/ids'
import { made, type WalkFamily } from '../family'

/**
 * Gift cards are tenant-wide value accounts: a card issued at one location is spent at any
 * (sharedAcrossLocations), so a card and its ledger are not located; the location-scoped views
 * are the reports (tests/modules/gift-cards/reports.test.ts).
 */
export const giftCards: WalkFamily = {
  name: 'gift cards',
  prefixes: ['/gift-card'],
  located: false,
  async create(t, tenant, locationId) {
    const card = await made(
      t,
      tenant,
      'POST',
      '/gift-card',
      { title: 'Gift card', type: 'Virtual', code: `WALK-${newId()}`, initialAmount: 5000, activate: true },
      { 'x-location-id': locationId },
    )
    const redeemed = await made(t, tenant, 'POST', `/gift-card/${card.id}/redeem`, {
      amount: 100,
      paymentReference: `walk-${newId()}`,
      locationId,
    })
    return { id: card.id, transactionId: redeemed.transaction.id }
  },
}
