// preparedOn (src/platform/tenancy/prepared.ts) runs each kept query on its compiled statement with
// its own binding and row mapping: each must answer exactly what drizzle's own methods answer.
import { afterEach, describe, expect, test } from 'bun:test'
import { count, eq, sql } from 'drizzle-orm'
import { customers } from '../../src/modules/customers/schema'
import { createCustomer } from '../../src/modules/customers/service'
import { auditEntries } from '../../src/platform/audit/schema'
import { systemActor } from '../../src/platform/foundation/actor'
import { preparedOn } from '../../src/platform/tenancy/prepared'
import { commitsPending } from '../../src/platform/tenancy/transaction'
import { createTestApp, type TestApp } from '../harness'

let t: TestApp
afterEach(async () => {
  await t?.close()
})

type Methods = {
  get(values?: Record<string, unknown>): unknown
  all(values?: Record<string, unknown>): unknown
}
/** What drizzle's own methods answer for the same query and values. */
const drizzleAnswer = (query: Methods, method: 'get' | 'all', values: Record<string, unknown>) =>
  (Object.getPrototypeOf(query) as Methods)[method].call(query, values)

describe('preparedOn', () => {
  test('answers as drizzle does: JSON, booleans, nulls, mapped SQL, joins, built-in values', async () => {
    t = await createTestApp()
    const actor = systemActor(t.tenant.id, 'test')
    const created = createCustomer(t.tenant.db, actor, {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@prepared.test',
      marketingOptIn: true,
    })
    await commitsPending()
    const db = t.tenant.db
    const queries: [string, Methods, Record<string, unknown>][] = [
      [
        'a row with JSON and boolean columns, by placeholder',
        preparedOn(db, 'test:customer', () =>
          db
            .select()
            .from(customers)
            .where(eq(customers.id, sql.placeholder('id')))
            .prepare(),
        ),
        { id: created.id },
      ],
      [
        'audit entries with JSON metadata, a value built into the query',
        preparedOn(db, 'test:audit', () =>
          db.select().from(auditEntries).where(eq(auditEntries.entityId, created.id)).limit(5).prepare(),
        ),
        {},
      ],
      [
        'a count mapped to a number',
        preparedOn(db, 'test:count', () => db.select({ n: count() }).from(customers).prepare()),
        {},
      ],
      [
        'a join, whose tables nest under their names',
        preparedOn(db, 'test:join', () =>
          db
            .select()
            .from(customers)
            .leftJoin(auditEntries, eq(auditEntries.entityId, customers.id))
            .where(eq(customers.id, sql.placeholder('id')))
            .prepare(),
        ),
        { id: created.id },
      ],
      [
        'nothing found',
        preparedOn(db, 'test:none', () =>
          db
            .select()
            .from(customers)
            .where(eq(customers.id, sql.placeholder('id')))
            .prepare(),
        ),
        { id: 'no-such-customer' },
      ],
    ]
    for (const [name, query, values] of queries) {
      for (const method of ['get', 'all'] as const) {
        expect({ name, method, answer: query[method](values) }).toStrictEqual({
          name,
          method,
          answer: drizzleAnswer(query, method, values),
        })
      }
    }
    const row = queries[0]![1].get({ id: created.id }) as { marketingOptIn: unknown; addresses?: unknown }
    expect(row.marketingOptIn).toBe(true)
    expect(() => queries[0]![1].get({})).toThrow('No value for placeholder "id" was provided')
  })
})
