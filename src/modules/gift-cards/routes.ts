// /gift-card: cards, lookup and settings here; value routes in ledger-routes.ts; reports in
// report-routes.ts. One plugin for server.ts.
import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import type { SharedWindowLimiter } from '../../platform/auth/rate-limit'
import { pageOf } from '../../platform/foundation/paging'
import { createGiftCard, getGiftCard, listGiftCards, markGiftCardOpened, updateGiftCard } from './cards'
import { ledgerRoutes } from './ledger-routes'
import { lookupGiftCard } from './lookup'
import {
  CreateGiftCard,
  GiftCard,
  GiftCardGetQuery,
  GiftCardList,
  GiftCardListQuery,
  GiftCardParams,
  GiftCardSettings,
  LookupQuery,
  PutGiftCardSettings,
  UpdateGiftCard,
} from './model'
import { reportRoutes } from './report-routes'
import { getGiftCardSettings, putGiftCardSettings } from './settings'

const cardRoutes = (auth: AuthPlugin, misses: SharedWindowLimiter) =>
  new Elysia({ name: 'gift-cards.cards', prefix: '/gift-card', detail: { tags: ['Gift cards'] } })
    .use(auth)
    .get(
      '',
      ({ db, query }) =>
        listGiftCards(db, {
          q: query.q,
          expand: { customer: query.expand === 'customer' },
          ...pageOf(query),
        }),
      {
        permission: 'gift-cards:read',
        query: GiftCardListQuery,
        response: GiftCardList,
        detail: {
          summary: 'List gift cards',
          description:
            'Newest card number first. `q` matches title, code, recipient name or email, purchaser email ' +
            '(case-insensitive, partial), the exact card number, or a whole code typed with or without dashes. ' +
            '`expand=customer` embeds each card’s customer (a Customer, or null).',
        },
      },
    )
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createGiftCard(db, actor, body)
      },
      {
        permission: 'gift-cards:write',
        body: CreateGiftCard,
        response: { 201: GiftCard },
        detail: {
          summary: 'Create a gift card',
          description:
            'The card starts `Inactive` with a zero balance and `giftCardNumber` one above the highest so far; ' +
            '`POST /gift-card/{id}/activate` puts `initialAmount` on it (or send `activate: true`). A code already ' +
            'in use (case-insensitive, ignoring spaces and dashes) is 409. With a `deliveryChannel` the card is ' +
            'scheduled for delivery at `deliveryScheduledAt` (default now) to `deliveryDestination` (default the ' +
            "recipient's email or phone); it goes out once Active. The origin location defaults to x-location-id. " +
            '`customerId` must be a customer of this tenant (400 otherwise). A customer merge moves cards to the ' +
            'primary; a customer who owns cards cannot be deleted (409).',
        },
      },
    )
    .get('/lookup', ({ db, actor, query }) => lookupGiftCard(db, actor, query.code, misses), {
      permission: 'gift-cards:read',
      query: LookupQuery,
      response: GiftCard,
      detail: {
        summary: 'Find a gift card by its code',
        'x-problems': ['rate_limited'],
        description:
          'Case-insensitive; spaces and dashes are ignored. Every miss is the same 404 with the same work ' +
          'behind it (the code is matched by its hash, then compared in constant time). After 20 misses in ' +
          '10 minutes a staff user gets 429 with Retry-After, so codes cannot be enumerated.',
      },
    })
    .get('/settings', ({ db }) => getGiftCardSettings(db), {
      permission: 'gift-cards:read',
      response: GiftCardSettings,
      detail: { summary: 'Get gift card settings', description: 'Defaults until first saved.' },
    })
    .put('/settings', ({ db, actor, body }) => putGiftCardSettings(db, actor, body), {
      permission: 'gift-cards:settings',
      body: PutGiftCardSettings,
      response: GiftCardSettings,
      detail: {
        summary: 'Replace gift card settings',
        description:
          'All eleven fields are required. Amounts are non-negative integer cents; a purchase limit or minimum ' +
          'of 0 means none. `cashOutPermission` names a role (`owner`, `manager`, `staff`, `read_only`): staff ' +
          'holding it or a higher role may cash out, and only a balance above `cashOutThreshold`. With ' +
          '`sharedAcrossLocations` off a card is redeemable only at its origin location. With `tipsEnabled` off a gift ' +
          'card payment may not carry a tip (409). With `allowDiscounts` off gift card sale lines are never ' +
          'discounted (coupons skip them); on, they are discountable like any line.',
      },
    })
    .get(
      '/:id',
      ({ db, params, query }) => getGiftCard(db, params.id, { customer: query.expand === 'customer' }),
      {
        permission: 'gift-cards:read',
        params: GiftCardParams,
        query: GiftCardGetQuery,
        response: GiftCard,
        detail: {
          summary: 'Get a gift card',
          description: '`expand=customer` embeds the card’s customer as `customer` (a Customer, or null).',
        },
      },
    )
    .put('/:id', ({ db, actor, params, body }) => updateGiftCard(db, actor, params.id, body), {
      permission: 'gift-cards:write',
      params: GiftCardParams,
      body: UpdateGiftCard,
      response: GiftCard,
      detail: {
        summary: 'Update a gift card',
        description:
          'Partial: descriptive, recipient and delivery fields only; the balance changes only through the ' +
          'ledger routes. Changing a delivery field re-schedules delivery (this is how a failed delivery is ' +
          'retried); clearing `deliveryChannel` makes it `not_applicable`.',
      },
    })
    .post('/:id/opened', ({ db, actor, params }) => markGiftCardOpened(db, actor, params.id), {
      permission: 'gift-cards:write',
      params: GiftCardParams,
      response: GiftCard,
      detail: {
        summary: 'Record that the recipient opened the card',
        description:
          'Sets `openedAt` the first time (a first redemption does too); later calls change nothing. With ' +
          '`notifyPurchaserWhenOpened` the delivery job then tells the purchaser once.',
      },
    })

export const giftCardRoutes = (auth: AuthPlugin, misses: SharedWindowLimiter) =>
  new Elysia({ name: 'gift-cards' })
    .use(reportRoutes(auth))
    .use(cardRoutes(auth, misses))
    .use(ledgerRoutes(auth))
