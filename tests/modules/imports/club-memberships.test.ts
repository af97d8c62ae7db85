// Bulk imports of club memberships: the member found by the customer's id or externalRef, the club
// by id, slug or title, the saved card as provider references stored as the customer's payment
// method, never a card number; upserts by externalRef or id, per-row failures, audit and events.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { makeClub } from '../customers/helpers'
import { auditEntries, csv, eventActions, importErrors, imported, lineAndField } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const audit = (action: string) => auditEntries(t, action)
const events = (object: string) => eventActions(t, object)
const memberships = () =>
  t.tenant.db.$client
    .query<Record<string, any>, []>('SELECT * FROM club_memberships ORDER BY external_ref')
    .all()

/** Customers as a migration brings them first: with their ids in the old system as externalRef. */
async function customers() {
  const done = await imported(
    t,
    csv([
      ['Customer ID', 'First Name', 'Last Name', 'Email', 'Address 1', 'City', 'State', 'Zip', 'Country'],
      ['c-1', 'Ada', 'Lovelace', 'ada@example.com', '1 Vine St', 'Napa', 'CA', '94558', 'US'],
      ['c-2', 'Bob', 'Noble', 'bob@example.com', '', '', '', '', ''],
      ['c-3', 'Cy', 'Young', 'cy@example.com', '', '', '', '', ''],
    ]),
    { kind: 'customers', mode: 'apply' },
  )
  expect(done).toMatchObject({ rowsApplied: 3, rowsFailed: 0 })
  const list = (await t.request('GET', '/customers?limit=10')).body.customers
  return Object.fromEntries(list.map((c: any) => [c.externalRef, c.id])) as Record<string, string>
}

const header = [
  'Membership ID',
  'Customer ID',
  'Club',
  'Status',
  'Delivery Method',
  'Signup Date',
  'Cancel Date',
  'Stripe Customer ID',
  'Stripe Payment Method ID',
  'Card Type',
  'Last 4',
  'Exp Month',
  'Exp Year',
  'Created At',
]
const adaRow = [
  'm-1',
  'c-1',
  'Cellar Club',
  'Active',
  'Ship',
  '2020-03-01',
  '',
  'cus_Ada123',
  'pm_AdaVisa',
  'Visa',
  '************4242',
  '12',
  '2030',
  '2020-03-01T17:00:00.000Z',
]
const bobRow = [
  'm-2',
  'c-2',
  'cellar',
  'Cancelled',
  'Pickup',
  '2019-01-10',
  '2021-06-30',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
]

async function setup() {
  const refs = await customers()
  const club = await makeClub(t, { title: 'Cellar Club', slug: 'cellar' })
  return { refs, club }
}

describe('POST /imports (club-memberships)', () => {
  test('applies members with their card as provider references; createdAt kept; one audit entry per row; no events', async () => {
    const { refs, club } = await setup()
    const done = await imported(t, csv([header, adaRow, bobRow]), { kind: 'club-memberships', mode: 'apply' })
    expect(done).toMatchObject({ state: 'succeeded', rowsRead: 2, rowsApplied: 2, rowsFailed: 0 })

    const [ada, bob] = memberships()
    expect(ada).toMatchObject({
      external_ref: 'm-1',
      customer_id: refs['c-1'],
      club_id: club.id,
      status: 'Active',
      order_delivery_method: 'Ship',
      signup_date: '2020-03-01',
      provider_customer_id: 'cus_Ada123',
      provider_payment_method_id: 'pm_AdaVisa',
      created_at: '2020-03-01T17:00:00.000Z',
    })
    expect(ada!.ship_to_customer_address_id).toEqual(expect.any(String))
    expect(ada!.next_process_date).toEqual(expect.any(String))
    expect(bob).toMatchObject({
      external_ref: 'm-2',
      customer_id: refs['c-2'],
      status: 'Cancelled',
      cancel_date: '2021-06-30',
      next_process_date: null,
      customer_credit_card_id: null,
    })
    const cards = (await t.request('GET', `/customers/${refs['c-1']}/payment-methods`)).body.paymentMethods
    expect(cards).toEqual([
      expect.objectContaining({
        id: ada!.customer_credit_card_id,
        provider: 'stripe',
        providerCustomerId: 'cus_Ada123',
        providerPaymentMethodId: 'pm_AdaVisa',
        brand: 'visa',
        last4: '4242',
        expMonth: 12,
        expYear: 2030,
      }),
    ])
    const view = (await t.request('GET', `/club-membership/${ada!.id}`)).body
    expect(view).toMatchObject({ externalRef: 'm-1', createdAt: '2020-03-01T17:00:00.000Z' })

    const rows = audit('club_membership.import')
    expect(rows.map((r) => r.entity_id)).toEqual([ada!.id, bob!.id])
    expect(JSON.parse(rows[0]!.metadata)).toMatchObject({ importId: done.id, line: 2, outcome: 'created' })
    expect(rows[0]!.staff_user_id).toBe(t.tenant.owner.id)
    expect(audit('customer.payment-method.import')).toHaveLength(1)
    expect(audit('club_membership.create')).toEqual([])
    expect(events('club_membership')).toEqual([])
    expect(events('customer_payment_method')).toEqual([])
  })

  test('applying the same file again changes nothing; a changed row is one update', async () => {
    await setup()
    const file = csv([header, adaRow, bobRow])
    await imported(t, file, { kind: 'club-memberships', mode: 'apply' })
    const before = memberships()
    const again = await imported(t, file, { kind: 'club-memberships', mode: 'apply' })
    expect(again).toMatchObject({ rowsApplied: 0, rowsUnchanged: 2, rowsFailed: 0 })
    expect(memberships()).toEqual(before)
    expect(audit('club_membership.import')).toHaveLength(2)
    expect(audit('customer.payment-method.import')).toHaveLength(1)
    expect(countRows(t.tenant.db, 'customer_payment_methods')).toBe(1)

    const onHold = [...adaRow]
    onHold[3] = 'On Hold'
    const changed = await imported(
      t,
      csv([
        [...header, 'Hold Until'],
        [...onHold, '2031-01-01'],
      ]),
      { kind: 'club-memberships', mode: 'apply' },
    )
    expect(changed).toMatchObject({ rowsApplied: 1, rowsUnchanged: 0 })
    expect(JSON.parse(audit('club_membership.import').at(-1)!.metadata)).toMatchObject({
      outcome: 'updated',
      changes: { status: { from: 'Active', to: 'On Hold' }, holdUntil: { from: null, to: '2031-01-01' } },
    })
    expect(countRows(t.tenant.db, 'club_memberships')).toBe(2)
  })

  test('validate is a dry run: every row checked, nothing kept', async () => {
    await setup()
    const done = await imported(t, csv([header, adaRow, bobRow, ['m-3', 'nobody', 'cellar']]), {
      kind: 'club-memberships',
    })
    expect(done).toMatchObject({ mode: 'validate', rowsRead: 3, rowsApplied: 2, rowsFailed: 1 })
    expect(countRows(t.tenant.db, 'club_memberships')).toBe(0)
    expect(countRows(t.tenant.db, 'customer_payment_methods')).toBe(0)
    expect(audit('club_membership.import')).toEqual([])
    expect(audit('customer.payment-method.import')).toEqual([])
  })

  test('NDJSON by our ids and the club’s id, with events when asked', async () => {
    const { refs, club } = await setup()
    const lines = [
      {
        externalRef: 'n-1',
        customer: refs['c-3'],
        club: club.id,
        signupDate: '2024-05-05',
        providerCustomerId: 'cus_Cy',
        providerPaymentMethodId: 'card_Cy',
        cardBrand: 'mastercard',
        cardLast4: '4444',
        cardExpMonth: 1,
        cardExpYear: 2029,
      },
    ]
    const done = await imported(
      t,
      lines.map((line) => JSON.stringify(line)).join('\n'),
      { kind: 'club-memberships', mode: 'apply', emitEvents: 'true' },
      { fileType: 'application/x-ndjson', fileName: 'members.ndjson' },
    )
    expect(done).toMatchObject({ format: 'ndjson', rowsApplied: 1, rowsFailed: 0 })
    expect(memberships()[0]).toMatchObject({
      customer_id: refs['c-3'],
      provider_payment_method_id: 'card_Cy',
    })
    expect(events('club_membership')).toEqual(['create'])
    expect(events('customer_payment_method')).toEqual(['create'])
  })
})

describe('upserts by id', () => {
  test('a given id is kept; a new card replaces the membership’s; the membership never moves to another customer', async () => {
    const { refs } = await setup()
    const id = '01a21ec9-0000-7000-8000-0000000000aa'
    const columns = [
      'ID',
      'Customer',
      'Club',
      'Signup Date',
      'Stripe Customer ID',
      'Stripe Payment Method ID',
      'Brand',
      'Last4',
      'Exp Month',
      'Exp Year',
    ]
    const card = (pm: string, last4: string) => ['cus_Ada', pm, 'visa', last4, '1', '2031']
    await imported(t, csv([columns, [id, 'c-1', 'cellar', '2022-02-02', ...card('pm_Old', '1111')]]), {
      kind: 'club-memberships',
      mode: 'apply',
    })
    const done = await imported(
      t,
      csv([
        columns,
        [id, 'c-1', 'cellar', '2022-02-02', ...card('pm_New', '2222')],
        [id, 'c-2', 'cellar', '2022-02-02', ...card('pm_New', '2222')],
      ]),
      { kind: 'club-memberships', mode: 'apply' },
    )
    expect(done).toMatchObject({ rowsApplied: 1, rowsFailed: 1 })
    expect(await importErrors(t, done.id)).toEqual([
      { line: 3, field: 'customer', reason: 'this membership belongs to another customer' },
    ])
    const [membership] = memberships()
    expect(membership).toMatchObject({ id, customer_id: refs['c-1'], provider_payment_method_id: 'pm_New' })
    const cards = (await t.request('GET', `/customers/${refs['c-1']}/payment-methods`)).body.paymentMethods
    expect(cards.map((c: any) => [c.providerPaymentMethodId, c.last4])).toEqual([
      ['pm_Old', '1111'],
      ['pm_New', '2222'],
    ])
    expect(cards[1].id).toBe(membership!.customer_credit_card_id)
    expect(JSON.parse(audit('club_membership.import').at(-1)!.metadata)).toMatchObject({
      outcome: 'updated',
      changes: { providerPaymentMethodId: { from: 'pm_Old', to: 'pm_New' } },
    })
  })
})

describe('holds', () => {
  test('an On Hold row whose hold has ended lands Active, as the hold-release job leaves it; again, nothing changes', async () => {
    await setup()
    const file = csv([
      ['External ID', 'Customer', 'Club', 'Signup Date', 'Status', 'Hold Until', 'Hold Reason'],
      ['h-1', 'c-2', 'cellar', '2020-01-01', 'On Hold', '2021-01-01', 'travel'],
      ['h-2', 'c-3', 'cellar', '2020-01-01', 'On Hold', '2999-01-01', 'travel'],
    ])
    await imported(t, file, { kind: 'club-memberships', mode: 'apply' })
    expect(memberships().map((m) => [m.external_ref, m.status, m.hold_until, m.hold_reason])).toEqual([
      ['h-1', 'Active', null, null],
      ['h-2', 'On Hold', '2999-01-01', 'travel'],
    ])
    const again = await imported(t, file, { kind: 'club-memberships', mode: 'apply' })
    expect(again).toMatchObject({ rowsApplied: 0, rowsUnchanged: 2 })
  })
})

describe('per-row failures', () => {
  test('each failed row by line, field and reason; a card number fails its row and is kept nowhere', async () => {
    const { refs } = await setup()
    await makeClub(t, { title: 'Twin', slug: 'twin-a' })
    await makeClub(t, { title: 'Twin', slug: 'twin-b' })
    const row = (changes: Record<number, string>) => {
      const cells = [...adaRow]
      for (const [i, value] of Object.entries(changes)) cells[Number(i)] = value
      return cells
    }
    const file = csv([
      [...header, 'Notes'],
      [...row({ 0: 'f-1', 8: '4242 4242 4242 4242' }), ''],
      [...row({ 0: 'f-2' }), '5555555555554444'],
      [...row({ 0: 'f-3', 1: 'nobody' }), ''],
      [...row({ 0: 'f-4', 2: 'No such club' }), ''],
      [...row({ 0: 'f-5', 2: 'Twin' }), ''],
      [...row({ 0: 'f-6', 3: 'Cancelled' }), ''],
      [...row({ 0: 'f-7', 9: '' }), ''],
      [...row({ 0: 'f-8', 7: 'acct_1' }), ''],
      [...row({ 0: '' }), ''],
      // Bob has no address to ship to: his card was stored before that was found, and goes too.
      [...row({ 0: 'f-10', 1: 'c-2', 7: 'cus_Bob', 8: 'pm_Bob' }), ''],
      [...row({ 0: 'f-11', 12: '20300' }), ''],
      [...adaRow, ''],
      [...row({ 0: 'f-13' }), ''],
    ])
    const done = await imported(t, file, { kind: 'club-memberships', mode: 'apply' })
    expect(done).toMatchObject({ state: 'succeeded', rowsApplied: 1, rowsFailed: 12 })
    const errors = await importErrors(t, done.id)
    expect(lineAndField(errors)).toEqual([
      [2, 'providerPaymentMethodId'],
      [3, 'Notes'],
      [4, 'customer'],
      [5, 'club'],
      [6, 'club'],
      [7, 'cancelDate'],
      [8, 'cardBrand'],
      [9, 'providerCustomerId'],
      [10, 'externalRef'],
      [11, 'orderDeliveryMethod'],
      [12, 'cardExpYear'],
      [14, 'club'],
    ])
    expect(errors[0].reason).toContain('card number')
    expect(errors[1].reason).toContain('card number')
    expect(errors[11].reason).toContain('live membership')

    expect(memberships().map((m) => m.external_ref)).toEqual(['m-1'])
    const cards = t.tenant.db.$client
      .query<{ customer_id: string }, []>('SELECT customer_id FROM customer_payment_methods')
      .all()
    expect(cards).toEqual([{ customer_id: refs['c-1']! }])
    const everything = JSON.stringify([
      t.tenant.db.$client.query('SELECT * FROM audit_entries').all(),
      t.tenant.db.$client.query('SELECT * FROM data_import_errors').all(),
      t.tenant.db.$client.query('SELECT * FROM customer_payment_methods').all(),
      t.tenant.db.$client.query('SELECT * FROM club_memberships').all(),
      errors,
    ])
    expect(everything).not.toContain('42424242')
    expect(everything).not.toContain('4242 4242')
    expect(everything).not.toContain('5555555555554444')
  })

  test('NDJSON carrying a card number as a JSON number fails its row too', async () => {
    await setup()
    const line = {
      externalRef: 'j-1',
      customer: 'c-1',
      club: 'cellar',
      signupDate: '2024-01-01',
      note: 4111111111111111,
    }
    const done = await imported(
      t,
      JSON.stringify(line),
      { kind: 'club-memberships', mode: 'apply' },
      {
        fileType: 'application/x-ndjson',
        fileName: 'members.ndjson',
      },
    )
    expect(done).toMatchObject({ rowsApplied: 0, rowsFailed: 1 })
    const [error] = await importErrors(t, done.id)
    expect(error).toMatchObject({ line: 1, field: 'note', reason: expect.stringContaining('card number') })
    expect(JSON.stringify(t.tenant.db.$client.query('SELECT * FROM data_import_errors').all())).not.toContain(
      '4111',
    )
  })
})

describe('security', () => {
  test('another tenant’s customer or club is not found; the membership is placed at the import’s location', async () => {
    const { refs, club } = await setup()
    const other = await t.addTenant('other')
    const theirClub = await makeClub(t, { title: 'Theirs', slug: 'theirs' }, other)
    const second = t.addLocation(t.tenant, { name: 'Second' })
    const file = csv([
      ['External ID', 'Customer', 'Club', 'Signup Date'],
      ['x-1', refs['c-1']!, theirClub.id, '2024-01-01'],
      ['x-2', 'c-2', club.id, '2024-01-01'],
    ])
    // In the other tenant, our customer and our club are unknown.
    const theirs = await imported(
      t,
      file,
      { kind: 'club-memberships', mode: 'apply' },
      { as: other.owner, tenant: other },
    )
    expect(theirs).toMatchObject({ rowsApplied: 0, rowsFailed: 2 })
    const theirErrors = (
      await t.request('GET', `/imports/${theirs.id}/errors`, { as: other.owner, tenant: other })
    ).body.errors
    expect(theirErrors.map((e: any) => e.field)).toEqual(['customer', 'customer'])
    expect(countRows(other.db, 'club_memberships')).toBe(0)

    const ours = await imported(
      t,
      file,
      { kind: 'club-memberships', mode: 'apply' },
      { headers: { 'x-location-id': second.id } },
    )
    expect(ours).toMatchObject({ rowsApplied: 1, rowsFailed: 1 })
    expect(await importErrors(t, ours.id)).toEqual([{ line: 2, field: 'club', reason: expect.any(String) }])
    expect(memberships()).toEqual([expect.objectContaining({ external_ref: 'x-2', location_id: second.id })])
  })
})
