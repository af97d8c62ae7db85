// Shared steps of the gift card tests.
import { expect } from 'bun:test'
import type { TestApp } from '../../harness'

let codes = 0

export const uniqueCode = () =>
  `GC-${Date.now().toString(36).toUpperCase()}-${(++codes).toString().padStart(4, '0')}`

/** Creates a card over HTTP and, unless told otherwise, activates it with `amount`. */
export async function issueCard(
  t: TestApp,
  amount = 5000,
  options: { activate?: boolean; locationId?: string; body?: Record<string, unknown> } = {},
) {
  const headers: Record<string, string> = options.locationId ? { 'x-location-id': options.locationId } : {}
  const res = await t.request('POST', '/gift-card', {
    headers,
    body: {
      title: 'Gift card',
      type: 'Virtual',
      code: uniqueCode(),
      initialAmount: amount,
      activate: options.activate ?? true,
      ...options.body,
    },
  })
  expect(res.status).toBe(201)
  return res.body
}

export async function putSettings(t: TestApp, changes: Record<string, unknown>) {
  const current = (await t.request('GET', '/gift-card/settings')).body
  const res = await t.request('PUT', '/gift-card/settings', { body: { ...current, ...changes } })
  expect(res.status).toBe(200)
  return res.body
}

/** The card's balance and the sum of its ledger, read straight from the database. */
export function balanceAndLedgerSum(t: TestApp, cardId: string) {
  const client = t.tenant.db.$client
  const card = client.query('SELECT current_balance AS b FROM gift_cards WHERE id = ?').get(cardId) as {
    b: number
  }
  const sum = client
    .query('SELECT coalesce(sum(amount_delta), 0) AS s FROM gift_card_transactions WHERE gift_card_id = ?')
    .get(cardId) as { s: number }
  return { balance: card.b, ledgerSum: sum.s }
}
