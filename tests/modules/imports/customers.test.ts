// Bulk imports of customers: POST /imports (multipart) then the job, the report of every row,
// upserts that make a second apply change nothing, per-row failures, audit and events.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { IMPORTS_JOB } from '../../../src/modules/imports/jobs'
import { workPendingImports } from '../../../src/modules/imports/service'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { auditEntries, csv, importErrors, imported, lineAndField, upload } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const header = [
  'External ID',
  'First Name',
  'Last Name',
  'Email',
  'Tags',
  'Address 1',
  'City',
  'State',
  'Zip',
  'Country',
  'Created At',
]
const ada = [
  'c-1',
  'Ada',
  'Lovelace',
  'ada@example.com',
  'VIP',
  '1 Vine St',
  'Napa',
  'CA',
  '94558',
  'us',
  '2019-04-01T10:00:00.000Z',
]
const bob = ['c-2', 'Bob', 'Noble', 'bob@example.com', '', '', '', '', '', '', '']

const audit = (action: string) => auditEntries(t, action)
const events = (object: string) =>
  t.tenant.db.$client
    .query<{ action: string }, [string]>('SELECT action FROM outbox_events WHERE object = ?')
    .all(object)

async function vipTag() {
  const res = await t.request('POST', '/tag/customer', { body: { title: 'VIP', type: 'Manual' } })
  expect(res.status).toBe(201)
  return res.body.id as string
}

describe('POST /imports (customers)', () => {
  test('applies rows with their address, tags and createdAt; audited per row, no events unless asked', async () => {
    const vip = await vipTag()
    const res = await upload(t, csv([header, ada, bob]), { kind: 'customers', mode: 'apply' })
    expect(res.status).toBe(202)
    expect(res.headers.get('location')).toBe(`/imports/${res.body.id}`)
    expect(res.body).toMatchObject({
      state: 'queued',
      kind: 'customers',
      format: 'csv',
      mode: 'apply',
      emitEvents: false,
    })
    await t.platform.jobs.runNow(IMPORTS_JOB)

    const done = (await t.request('GET', `/imports/${res.body.id}`)).body
    expect(done).toMatchObject({
      state: 'succeeded',
      rowsRead: 2,
      rowsApplied: 2,
      rowsUnchanged: 0,
      rowsFailed: 0,
      progress: 1,
    })
    const list = (await t.request('GET', '/customers?q=lovelace')).body.customers
    expect(list).toHaveLength(1)
    expect(list[0]).toMatchObject({
      externalRef: 'c-1',
      firstName: 'Ada',
      email: 'ada@example.com',
      createdAt: '2019-04-01T10:00:00.000Z',
      tags: [{ id: vip, title: 'VIP' }],
      addresses: [
        {
          label: 'billing',
          name: 'Ada Lovelace',
          line1: '1 Vine St',
          postalCode: '94558',
          countryCode: 'US',
        },
      ],
    })

    const rows = audit('customer.import')
    expect(rows).toHaveLength(2)
    expect(JSON.parse(rows[0]!.metadata)).toMatchObject({
      importId: res.body.id,
      line: 2,
      outcome: 'created',
    })
    expect(rows[0]!.staff_user_id).toBe(t.tenant.owner.id)
    expect(audit('data_import.create')).toHaveLength(1)
    expect(JSON.parse(audit('data_import.finish')[0]!.metadata)).toMatchObject({
      state: 'succeeded',
      rowsApplied: 2,
    })
    expect(events('customer')).toEqual([])
    expect(events('tag_assignment')).toEqual([])
  })

  test('applying the same file again changes nothing; a changed row is an update', async () => {
    await vipTag()
    const file = csv([header, ada, bob])
    await imported(t, file, { kind: 'customers', mode: 'apply' })
    const before = (await t.request('GET', '/customers?q=lovelace')).body.customers[0]
    const again = await imported(t, file, { kind: 'customers', mode: 'apply' })
    expect(again).toMatchObject({
      state: 'succeeded',
      rowsRead: 2,
      rowsApplied: 0,
      rowsUnchanged: 2,
      rowsFailed: 0,
    })
    expect((await t.request('GET', '/customers?q=lovelace')).body.customers[0]).toEqual(before)
    expect(audit('customer.import')).toHaveLength(2)
    expect(countRows(t.tenant.db, 'customers')).toBe(2)
    expect(countRows(t.tenant.db, 'customer_addresses')).toBe(1)

    const changed = await imported(
      t,
      csv([header, ['c-2', 'Robert', 'Noble', 'bob@example.com', '', '', '', '', '', '', '']]),
      {
        kind: 'customers',
        mode: 'apply',
      },
    )
    expect(changed).toMatchObject({ rowsApplied: 1, rowsUnchanged: 0 })
    const updated = audit('customer.import').at(-1)!
    expect(JSON.parse(updated.metadata)).toMatchObject({
      outcome: 'updated',
      changes: { firstName: { from: 'Bob', to: 'Robert' } },
    })
    expect(countRows(t.tenant.db, 'customers')).toBe(2)
  })

  test('emitEvents=true emits each applied row’s event', async () => {
    await vipTag()
    await imported(t, csv([header, ada, bob]), { kind: 'customers', mode: 'apply', emitEvents: 'true' })
    expect(events('customer').map((e) => e.action)).toEqual(['create', 'create'])
  })

  test('validate is a dry run: every row checked, nothing kept', async () => {
    await vipTag()
    const done = await imported(
      t,
      csv([header, ada, bob, ['c-3', 'No', 'Email', 'not-an-email', '', '', '', '', '', '', '']]),
      {
        kind: 'customers',
      },
    )
    expect(done).toMatchObject({
      mode: 'validate',
      state: 'succeeded',
      rowsRead: 3,
      rowsApplied: 2,
      rowsFailed: 1,
    })
    expect(countRows(t.tenant.db, 'customers')).toBe(0)
    expect(audit('customer.import')).toEqual([])
    expect(await importErrors(t, done.id)).toEqual([{ line: 4, field: 'email', reason: expect.any(String) }])
  })

  test('NDJSON, told by the file’s name, with a mapping', async () => {
    const lines = [
      { ref: 'n-1', first: 'Nia', lastName: 'Lee', email: 'nia@example.com', marketingOptIn: true },
      { ref: 'n-2', first: 'Oto', lastName: 'Ray', email: 'oto@example.com' },
    ]
    const done = await imported(
      t,
      lines.map((line) => JSON.stringify(line)).join('\n'),
      {
        kind: 'customers',
        mode: 'apply',
        mapping: JSON.stringify({ ref: 'externalRef', first: 'firstName' }),
      },
      { fileType: 'application/x-ndjson', fileName: 'people.ndjson' },
    )
    expect(done).toMatchObject({
      format: 'ndjson',
      state: 'succeeded',
      rowsApplied: 2,
      fileName: 'people.ndjson',
    })
    const nia = (await t.request('GET', '/customers?q=nia')).body.customers[0]
    expect(nia).toMatchObject({ externalRef: 'n-1', firstName: 'Nia', marketingOptIn: true })
  })
})

describe('per-row failures', () => {
  const card = '4242 4242 4242 4242'

  test('each failed row is listed by line, field and reason; the others apply; a card number is kept nowhere', async () => {
    await vipTag()
    const file =
      csv([
        header,
        ada,
        ['c-3', 'Cara', 'Card', 'cara@example.com', '', card, '', '', '', '', ''],
        ['c-4', 'Dee', 'Tag', 'dee@example.com', 'Unknown tag', '', '', '', '', '', ''],
        ['', 'No', 'Ref', 'noref@example.com', '', '', '', '', '', '', ''],
        ['c-5', 'Too', 'Few'],
        ['c-6', 'Ema', 'Taken', 'ADA@example.com', '', '', '', '', '', '', ''],
        ['c-7', 'Cy', 'Country', 'cy@example.com', '', '1 Rd', 'Town', 'R', '1', 'XX', ''],
        bob,
      ]) + '"c-8,Open,Quote,open@example.com,,,,,,,\n'
    const done = await imported(t, file, { kind: 'customers', mode: 'apply' })
    expect(done).toMatchObject({ state: 'succeeded', rowsApplied: 2, rowsFailed: 7 })
    const errors = (await t.request('GET', `/imports/${done.id}/errors`)).body
    expect(errors.page.total).toBe(7)
    expect(lineAndField(errors.errors)).toEqual([
      [3, 'address.line1'],
      [4, 'tags'],
      [5, 'externalRef'],
      [6, null],
      [7, 'email'],
      [8, 'address.countryCode'],
      [10, null],
    ])
    expect(errors.errors[0].reason).toContain('card number')
    expect(errors.errors[3].reason).toBe('has 3 columns; the header has 11')
    expect(errors.errors[6].reason).toBe('a quoted field is never closed')
    // Nothing of a failed row stayed: only Ada and Bob, no address of Cy.
    expect(countRows(t.tenant.db, 'customers')).toBe(2)
    expect(countRows(t.tenant.db, 'customer_addresses')).toBe(1)
    // The card number is nowhere in the database.
    const dump = t.tenant.db.$client
      .query<{ sql: string }, []>('SELECT group_concat(metadata) AS sql FROM audit_entries')
      .get()!.sql
    expect(dump).not.toContain('4242')
    expect(JSON.stringify(errors)).not.toContain('4242')
    expect(t.tenant.db.$client.query('SELECT count(*) AS n FROM data_import_files').get()).toEqual({ n: 0 })
  })
})

describe('bad input', () => {
  test('an unknown kind, a mapping naming no field, a missing required column: 400, nothing stored', async () => {
    const file = csv([header, ada])
    const unknownKind = await upload(t, file, { kind: 'wines', mode: 'apply' })
    expect(unknownKind.status).toBe(400)
    expect(unknownKind.body.errors[0].path).toBe('body/kind')
    const badMapping = await upload(t, file, {
      kind: 'customers',
      mapping: JSON.stringify({ Email: 'eMail' }),
    })
    expect(badMapping.status).toBe(400)
    expect(badMapping.body.errors[0].path).toBe('body/mapping/Email')
    const noColumn = await upload(t, file, { kind: 'customers', mapping: JSON.stringify({ Nope: 'email' }) })
    expect(noColumn.status).toBe(400)
    const missing = await upload(
      t,
      csv([
        ['First Name', 'Last Name'],
        ['A', 'B'],
      ]),
      { kind: 'customers' },
    )
    expect(missing.status).toBe(400)
    expect(missing.body.detail).toContain('email')
    const notJson = await upload(t, file, { kind: 'customers', mapping: '{' })
    expect(notJson.status).toBe(400)
    expect(countRows(t.tenant.db, 'data_imports')).toBe(0)
  })

  test('invalid UTF-8 is 400; a file over IMPORT_MAX_BYTES is 413; a body that is not a form is 415', async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('External ID,First Name\nc-1,'),
      0xc3,
      0x28,
      0x0a,
    ])
    const notUtf8 = await upload(t, bytes, { kind: 'customers' })
    expect(notUtf8.status).toBe(400)
    expect(notUtf8.body.errors[0].path).toBe('body/file')

    const small = await createTestApp({ config: { importMaxBytes: 2048 } })
    try {
      const big = await upload(small, csv([header, ...Array.from({ length: 40 }, () => ada)]), {
        kind: 'customers',
      })
      expect(big.status).toBe(413)
      expect(countRows(small.tenant.db, 'data_imports')).toBe(0)
    } finally {
      await small.close()
    }
    const json = await t.request('POST', '/imports', { body: { kind: 'customers' } })
    expect(json.status).toBe(415)
    expect(countRows(t.tenant.db, 'data_imports')).toBe(0)
  })
})

describe('security', () => {
  test('data:import is needed; another tenant’s import is 404; a location-bound manager is refused', async () => {
    const file = csv([header, ada])
    expect((await upload(t, file, { kind: 'customers' }, { as: t.tenant.staff })).status).toBe(403)
    expect((await upload(t, file, { kind: 'customers' }, { as: null })).status).toBe(401)
    const mine = await upload(t, file, { kind: 'customers' })
    const other = await t.addTenant('other')
    for (const path of [`/imports/${mine.body.id}`, `/imports/${mine.body.id}/errors`]) {
      const res = await t.request('GET', path, { as: other.owner, tenant: other })
      expect(res.status).toBe(404)
    }
    expect((await t.request('GET', '/imports', { as: other.owner, tenant: other })).body.imports).toEqual([])
    expect((await t.request('GET', '/imports', { as: t.tenant.readOnly })).status).toBe(403)
    const second = t.addLocation(t.tenant, { name: 'Second' })
    const bound = await t.addStaff(t.tenant, { role: 'manager', locationId: second.id })
    expect((await upload(t, file, { kind: 'customers' }, { as: bound })).status).toBe(403)
    expect((await t.request('GET', '/imports', { as: bound })).status).toBe(403)
  })
})

describe('resuming', () => {
  test('an import stopped between batches resumes after its last committed line, each row once', async () => {
    const rows = Array.from({ length: 450 }, (_, i) => [
      `r-${i}`,
      'Row',
      `N${i}`,
      `row${i}@example.com`,
      '',
      '',
      '',
      '',
      '',
      '',
      '',
    ])
    const res = await upload(t, csv([header, ...rows]), { kind: 'customers', mode: 'apply' })
    const stop = new AbortController()
    const working = workPendingImports(t.tenant.db, t.tenant.id, stop.signal)
    stop.abort()
    await working
    const stopped = (await t.request('GET', `/imports/${res.body.id}`)).body
    // The first batch is FIRST_BATCH_ROWS (service.ts); the next ones follow its time per row.
    expect(stopped).toMatchObject({ state: 'running', rowsRead: 50, rowsApplied: 50 })
    expect(stopped.progress).toBeGreaterThan(0)
    expect(stopped.progress).toBeLessThan(1)

    await t.platform.jobs.runNow(IMPORTS_JOB)
    const done = (await t.request('GET', `/imports/${res.body.id}`)).body
    expect(done).toMatchObject({ state: 'succeeded', rowsRead: 450, rowsApplied: 450, rowsFailed: 0 })
    expect(audit('customer.import')).toHaveLength(450)
    expect(countRows(t.tenant.db, 'customers')).toBe(450)
  })

  test('one worker at a time: a held lease keeps others off until it runs out; two at once apply each row once', async () => {
    const rows = Array.from({ length: 450 }, (_, i) => [
      `r-${i}`,
      'Row',
      `N${i}`,
      `row${i}@example.com`,
      '',
      '',
      '',
      '',
      '',
      '',
      '',
    ])
    const res = await upload(t, csv([header, ...rows]), { kind: 'customers', mode: 'apply' })
    const inAMinute = new Date(Date.now() + 60_000).toISOString()
    t.tenant.db.$client.run("UPDATE data_imports SET state = 'running', lease_until = ?", [inAMinute])
    await workPendingImports(t.tenant.db, t.tenant.id, new AbortController().signal)
    expect((await t.request('GET', `/imports/${res.body.id}`)).body).toMatchObject({
      state: 'running',
      rowsRead: 0,
    })

    // The holder stopped without letting go: its lease ran out.
    t.tenant.db.$client.run('UPDATE data_imports SET lease_until = ?', [
      new Date(Date.now() - 1000).toISOString(),
    ])
    const never = new AbortController().signal
    await Promise.all([
      workPendingImports(t.tenant.db, t.tenant.id, never),
      workPendingImports(t.tenant.db, t.tenant.id, never),
    ])
    const done = (await t.request('GET', `/imports/${res.body.id}`)).body
    expect(done).toMatchObject({ state: 'succeeded', rowsRead: 450, rowsApplied: 450 })
    expect(audit('customer.import')).toHaveLength(450)
  })
})
