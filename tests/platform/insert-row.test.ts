// insertRow (src/platform/tenancy/row-by-id.ts) answers the row it inserted without reading it
// back (no RETURNING): what it answers must be what a read of the row answers, for every kind of
// column it meets: an autoincrement key, JSON, booleans, nulls.
import { afterEach, describe, expect, test } from 'bun:test'
import { customers } from '../../src/modules/customers/schema'
import { newCustomerRow } from '../../src/modules/customers/service'
import { appendAudit } from '../../src/platform/audit/audit'
import { auditEntries } from '../../src/platform/audit/schema'
import { systemActor } from '../../src/platform/foundation/actor'
import { insertRow, rowById } from '../../src/platform/tenancy/row-by-id'
import { commitsPending, inWriteTransaction } from '../../src/platform/tenancy/transaction'
import { createTestApp, type TestApp } from '../harness'

let t: TestApp
afterEach(async () => {
  await t?.close()
})

describe('insertRow', () => {
  test('answers each row as a read of it answers: the rowid key, JSON, booleans and nulls', async () => {
    t = await createTestApp()
    const actor = systemActor(t.tenant.id, 'test')
    const { customer, entry, second } = inWriteTransaction(t.tenant.db, (tx) => ({
      customer: insertRow(
        tx,
        customers,
        newCustomerRow(
          actor,
          { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@rows.test', marketingOptIn: true },
          '2026-11-28T00:00:00.000Z',
        ),
      ),
      // Metadata with what JSON does not keep: an undefined member, a date.
      entry: appendAudit(tx, actor, {
        action: 'customer.note',
        entityType: 'customer',
        entityId: 'c1',
        metadata: {
          nested: { list: [1, 'two', null] },
          gone: undefined,
          at: new Date('2026-11-28T00:00:00Z'),
        },
      }),
      second: appendAudit(tx, actor, { action: 'customer.note', entityType: 'customer', entityId: null }),
    }))
    await commitsPending()
    expect(customer).toEqual(rowById(t.tenant.db, customers, customer.id)!)
    expect(customer.marketingOptIn).toBe(true)
    expect(customer.phone).toBeNull()
    expect(entry).toStrictEqual(rowById(t.tenant.db, auditEntries, entry.id)!)
    expect(entry.metadata).toStrictEqual({
      nested: { list: [1, 'two', null] },
      at: '2026-11-28T00:00:00.000Z',
    })
    expect(second.seq).toBe(entry.seq + 1)
    expect(second.prevHash).toBe(entry.hash)
  })
})
