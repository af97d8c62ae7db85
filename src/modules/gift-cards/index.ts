import { t } from 'elysia'
import { family } from '../../platform/family'
import { registerGiftCardsHooks } from './hooks'
import { giftCardDeliveries, registerGiftCardJobs } from './jobs'
import { lookupMisses } from './lookup'
import * as model from './model'
import { GiftCard, GiftCardSettings, GiftCardTransaction } from './model'
import { giftCardRoutes } from './routes'
import { ledgerEntryTypes } from './schema'

export const giftCardsFamily = family({
  name: 'gift-cards',
  tags: {
    'Gift cards': 'Gift cards, their ledger (load, redeem, adjust, cash out, expire), delivery and reports.',
  },
  models: { giftCards: model },
  events: [
    {
      object: 'gift_card',
      readPermission: 'gift-cards:read',
      actions: ['create', 'update', 'open', 'disable', 'enable'],
      emittedBy: '`/gift-card` and its opened, disable and enable routes; cards sold on a paid order',
      payload: 'the card',
      schema: GiftCard,
    },
    {
      object: 'gift_card',
      readPermission: 'gift-cards:read',
      // One event per ledger entry, named by its type.
      actions: ledgerEntryTypes,
      emittedBy: 'the ledger routes of `/gift-card`',
      payload: '`{giftCard, transaction}`',
      schema: t.Object({ giftCard: GiftCard, transaction: GiftCardTransaction }),
    },
    {
      object: 'gift_card',
      readPermission: 'gift-cards:read',
      actions: ['delivery_sent', 'delivery_failed', 'purchaser_notice_sent', 'purchaser_notice_failed'],
      emittedBy: 'the scheduled delivery job',
      payload: '`{giftCard, delivery}`',
      schema: t.Object({ giftCard: GiftCard, delivery: t.Object({}, { additionalProperties: true }) }),
    },
    {
      object: 'gift_card_settings',
      readPermission: 'gift-cards:read',
      actions: ['update'],
      emittedBy: '`PUT /gift-card/settings`',
      payload: 'the settings',
      schema: GiftCardSettings,
    },
  ],
  hooks: registerGiftCardsHooks,
  dueWork: [giftCardDeliveries],
  jobs: (platform) => registerGiftCardJobs(platform),
  routes: (platform) => [giftCardRoutes(platform.auth, lookupMisses(platform.config.dataDir))],
})

// What the other families may use.
export { createGiftCard, getGiftCardRow } from './cards'
export { giftCardLedgerExport } from './export'
export { importGiftCard } from './import'
export { ImportedGiftCard, type ImportedGiftCardInput } from './model'
export { adjustGiftCard, redeemGiftCard, voidRedemption } from './operations'
