// /gift-card/{id}/...: the routes that move value (each one ledger entry) or change status.
import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf, pagingQuery } from '../../platform/foundation/paging'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import { changeGiftCardStatus, getGiftCardRow } from './cards'
import { listCardTransactions, presentGiftCard, presentResult, presentTransaction } from './ledger'
import {
  ActivateBody,
  AdjustBody,
  GiftCard,
  GiftCardParams,
  LedgerResult,
  LoadBody,
  MergeBody,
  MergeResult,
  ReasonBody,
  RedeemBody,
  TransactionList,
  TransactionParams,
} from './model'
import {
  activateGiftCard,
  adjustGiftCard,
  cashOutGiftCard,
  expireGiftCard,
  loadGiftCard,
  mergeGiftCards,
  redeemGiftCard,
  voidGiftCardTransaction,
} from './operations'

const ledgerRoute = { params: GiftCardParams, response: LedgerResult }

export const ledgerRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'gift-cards.ledger', prefix: '/gift-card/:id', detail: { tags: ['Gift cards'] } })
    .use(auth)
    .get(
      '/transactions',
      ({ db, params, query }) => {
        getGiftCardRow(db, params.id)
        return listCardTransactions(db, params.id, pageOf(query))
      },
      {
        permission: 'gift-cards:read',
        params: GiftCardParams,
        query: t.Object(pagingQuery(500)),
        response: TransactionList,
        detail: {
          summary: "List a card's ledger",
          description: 'Oldest first. The last entry’s `balanceAfter` is the card’s `currentBalance`.',
        },
      },
    )
    .post(
      '/activate',
      ({ db, actor, params, body }) =>
        inWriteTransaction(db, (tx) => presentResult(activateGiftCard(tx, actor, params.id, body))),
      {
        ...ledgerRoute,
        permission: 'gift-cards:write',
        body: ActivateBody,
        detail: {
          summary: 'Activate a gift card',
          description:
            'Inactive to Active with an `activate` entry of `amount` (default `initialAmount`), checked against ' +
            'the minimum purchase and the digital/physical purchase limit. Any other status is 409. Sets the ' +
            'origin location if the card has none.',
        },
      },
    )
    .post(
      '/load',
      ({ db, actor, params, body }) =>
        inWriteTransaction(db, (tx) => presentResult(loadGiftCard(tx, actor, params.id, body))),
      {
        ...ledgerRoute,
        permission: 'gift-cards:write',
        body: LoadBody,
        detail: {
          summary: 'Add value to a gift card',
          description: 'A `load` entry on an Active card, within the purchase limits of the settings.',
        },
      },
    )
    .post(
      '/redeem',
      ({ db, actor, params, body }) =>
        inWriteTransaction(db, (tx) => presentResult(redeemGiftCard(tx, actor, { ...body, id: params.id }))),
      {
        ...ledgerRoute,
        permission: 'gift-cards:write',
        body: RedeemBody,
        detail: {
          summary: 'Redeem a gift card',
          description:
            'Takes `amount` for the payment `paymentReference`. More than the balance is 409 with ' +
            '`currentBalance` (no partial redemption: split the payment). Repeating a reference for the same ' +
            'card and amount answers the first redemption with `replayed: true`; another card or amount under ' +
            'a used reference is 409. With `sharedAcrossLocations` off only the origin location may redeem ' +
            '(409 elsewhere; 400 without a location). `channel: online` needs `allowOnlineRedemption`.',
        },
      },
    )
    .post(
      '/adjust',
      ({ db, actor, params, body }) =>
        inWriteTransaction(db, (tx) => presentResult(adjustGiftCard(tx, actor, params.id, body))),
      {
        ...ledgerRoute,
        permission: 'gift-cards:manage',
        body: AdjustBody,
        detail: {
          summary: 'Adjust a gift card balance',
          description: 'A signed `adjust` entry with a required reason; below zero is 409.',
        },
      },
    )
    .post(
      '/cash-out',
      ({ db, actor, params, body }) =>
        inWriteTransaction(db, (tx) => presentResult(cashOutGiftCard(tx, actor, params.id, body))),
      {
        ...ledgerRoute,
        permission: 'gift-cards:write',
        body: ReasonBody,
        detail: {
          summary: 'Cash out a gift card',
          description:
            'Pays out the whole balance (a `cash_out` entry). Needs `cashOutEnabled` (else 409), a staff user ' +
            'holding the `cashOutPermission` role or a higher one (else 403), and a balance above ' +
            '`cashOutThreshold` (else 409).',
        },
      },
    )
    .post(
      '/transactions/:transactionId/void',
      ({ db, actor, params, body }) =>
        inWriteTransaction(db, (tx) =>
          presentResult(
            voidGiftCardTransaction(tx, actor, {
              giftCardId: params.id,
              transactionId: params.transactionId,
              ...body,
            }),
          ),
        ),
      {
        params: TransactionParams,
        response: LedgerResult,
        permission: 'gift-cards:manage',
        body: ReasonBody,
        detail: {
          summary: 'Void a redemption, activation or load',
          description:
            'Appends the opposite entry (`void_redeem` gives the value back; `void_load` takes it off, 409 if ' +
            'already spent). Each entry can be voided once (409 after); other entry types are 409.',
        },
      },
    )
    .post(
      '/merge',
      ({ db, actor, params, body }) =>
        inWriteTransaction(db, (tx) => {
          const merged = mergeGiftCards(tx, actor, params.id, body)
          return {
            giftCard: presentGiftCard(merged.giftCard),
            source: presentGiftCard(merged.source),
            transactions: merged.transactions.map(presentTransaction),
          }
        }),
      {
        params: GiftCardParams,
        response: MergeResult,
        permission: 'gift-cards:manage',
        body: MergeBody,
        detail: {
          summary: 'Merge another card into this one',
          description:
            'Moves the whole balance of `sourceGiftCardId` (Active or Disabled) onto this Active card: a ' +
            '`merge` entry on each. The source becomes `Merged` with `mergedIntoGiftCardId` set.',
        },
      },
    )
    .post(
      '/expire',
      ({ db, actor, params, body }) =>
        inWriteTransaction(db, (tx) => presentResult(expireGiftCard(tx, actor, params.id, body))),
      {
        ...ledgerRoute,
        permission: 'gift-cards:manage',
        body: ReasonBody,
        detail: {
          summary: 'Expire a gift card',
          description:
            'Removes the remaining balance (an `expire` entry, reported under adjustments) and marks the card ' +
            '`Expired`. Never automatic: many jurisdictions forbid expiring gift card value.',
        },
      },
    )
    .post(
      '/disable',
      ({ db, actor, params, body }) => changeGiftCardStatus(db, actor, params.id, 'disable', body.reason),
      {
        params: GiftCardParams,
        response: GiftCard,
        permission: 'gift-cards:manage',
        body: ReasonBody,
        detail: {
          summary: 'Disable a gift card',
          description: 'Active or Inactive to `Disabled`: no loads or redemptions; the balance stays owed.',
        },
      },
    )
    .post(
      '/enable',
      ({ db, actor, params, body }) => changeGiftCardStatus(db, actor, params.id, 'enable', body.reason),
      {
        params: GiftCardParams,
        response: GiftCard,
        permission: 'gift-cards:manage',
        body: ReasonBody,
        detail: {
          summary: 'Re-enable a disabled gift card',
          description: 'Back to `Active` (or `Inactive` if it never had value).',
        },
      },
    )
