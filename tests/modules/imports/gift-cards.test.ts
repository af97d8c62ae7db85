// Bulk imports of gift cards: the balance opens the ledger, a changed balance is an adjustment,
// so the ledger always sums to the balance; a second apply changes nothing.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { balanceAndLedgerSum } from '../gift-cards/helpers'
import { csv, importErrors, imported, lineAndField } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const header = ['Card Number', 'Balance', 'Recipient', 'Issued At']
const cards = [
  // A 16-digit code that passes the Luhn check is a gift card's code here, not a payment card.
  ['4242 4242 4242 4242', '2500', 'Ada', '2021-12-24T09:00:00.000Z'],
  ['GIFT-0002-XY', '0', '', ''],
]

const audit = (action: string) =>
  t.tenant.db.$client
    .query<{ metadata: string }, [string]>('SELECT metadata FROM audit_entries WHERE action = ? ORDER BY seq')
    .all(action)

describe('POST /imports (gift-cards)', () => {
  test('each card opens its ledger with its balance; one audit entry per row; no events', async () => {
    const done = await imported(t, csv([header, ...cards]), { kind: 'gift-cards', mode: 'apply' })
    expect(done).toMatchObject({ state: 'succeeded', rowsApplied: 2, rowsFailed: 0 })
    const list = (await t.request('GET', '/gift-card?limit=10')).body.giftCards
    const ada = list.find((c: any) => c.recipientName === 'Ada')
    expect(ada).toMatchObject({
      currentBalance: 2500,
      status: 'Active',
      source: 'import',
      createdAt: '2021-12-24T09:00:00.000Z',
    })
    expect(balanceAndLedgerSum(t, ada.id)).toEqual({ balance: 2500, ledgerSum: 2500 })
    expect(audit('gift_card.import')).toHaveLength(2)
    expect(audit('gift_card.activate')).toEqual([])
    expect(
      t.tenant.db.$client.query("SELECT count(*) AS n FROM outbox_events WHERE object = 'gift_card'").get(),
    ).toEqual({ n: 0 })
  })

  test('applying again changes nothing; a changed balance is one adjust entry and the ledger still sums', async () => {
    const file = csv([header, ...cards])
    await imported(t, file, { kind: 'gift-cards', mode: 'apply' })
    const again = await imported(t, file, { kind: 'gift-cards', mode: 'apply' })
    expect(again).toMatchObject({ rowsApplied: 0, rowsUnchanged: 2 })
    expect(countRows(t.tenant.db, 'gift_card_transactions')).toBe(2)

    const spent = await imported(
      t,
      csv([header, ['4242424242424242', '900', 'Ada', '2021-12-24T09:00:00.000Z']]),
      {
        kind: 'gift-cards',
        mode: 'apply',
        emitEvents: 'true',
      },
    )
    expect(spent).toMatchObject({ rowsApplied: 1 })
    const card = (await t.request('GET', '/gift-card?limit=10')).body.giftCards.find(
      (c: any) => c.recipientName === 'Ada',
    )
    expect(balanceAndLedgerSum(t, card.id)).toEqual({ balance: 900, ledgerSum: 900 })
    const entries = t.tenant.db.$client
      .query<{ entry_type: string; amount_delta: number }, [string]>(
        'SELECT entry_type, amount_delta FROM gift_card_transactions WHERE gift_card_id = ? ORDER BY sequence',
      )
      .all(card.id)
    expect(entries).toEqual([
      { entry_type: 'activate', amount_delta: 2500 },
      { entry_type: 'adjust', amount_delta: -1600 },
    ])
    expect(
      t.tenant.db.$client.query("SELECT action FROM outbox_events WHERE object = 'gift_card'").all(),
    ).toEqual([{ action: 'update' }])
  })

  test('a balance that is not whole minor units, negative or too large, or a short code fails its row only', async () => {
    const done = await imported(
      t,
      csv([
        header,
        ['CODE-AAAA-01', '25.00', '', ''],
        ['CODE-AAAA-02', '-5', '', ''],
        ['CODE-AAAA-03', '99999999999999', '', ''],
        ['AB', '100', '', ''],
        ['CODE-AAAA-05', '100', '', ''],
      ]),
      { kind: 'gift-cards', mode: 'apply' },
    )
    expect(done).toMatchObject({ rowsApplied: 1, rowsFailed: 4 })
    const errors = await importErrors(t, done.id)
    expect(lineAndField(errors)).toEqual([
      [2, 'balance'],
      [3, 'balance'],
      [4, 'balance'],
      [5, 'code'],
    ])
    expect(countRows(t.tenant.db, 'gift_cards')).toBe(1)
  })
})
