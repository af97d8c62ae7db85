// The pure condition catalogue: validation per object type and evaluation against records.
import { describe, expect, test } from 'bun:test'
import {
  conditionErrors,
  conditionFields,
  matchesConditions,
  operatorsByKind,
} from '../../../src/modules/tags/fields'

describe('conditionErrors', () => {
  test('every declared field accepts each operator of its kind with a suitable value', () => {
    const sample = { string: 'x', number: 5, boolean: true, date: '2024-02-29' } as const
    for (const [objectType, fields] of Object.entries(conditionFields)) {
      for (const [field, kind] of Object.entries(fields)) {
        for (const operator of operatorsByKind[kind]) {
          const value =
            operator === 'isEmpty' || operator === 'isNotEmpty'
              ? undefined
              : operator === 'in' || operator === 'notIn'
                ? ['a']
                : operator === 'withinLastDays'
                  ? 30
                  : sample[kind]
          expect(
            conditionErrors(objectType as keyof typeof conditionFields, [{ field, operator, value }]),
          ).toEqual([])
        }
      }
    }
  })

  test('names every bad condition by index', () => {
    const errors = conditionErrors('order', [
      { field: 'total', operator: 'greaterThan', value: 10 },
      { field: 'firstName', operator: 'equals', value: 'x' },
      { field: 'total', operator: 'contains', value: '1' },
      { field: 'total', operator: 'lessThan', value: 1.5 },
      { field: 'createdAt', operator: 'withinLastDays', value: 0 },
      { field: 'status', operator: 'in', value: [] },
      { field: 'constructor', operator: 'equals', value: 'x' },
    ])
    expect(errors.map((e) => e.path)).toEqual([
      'body/conditions/1/field',
      'body/conditions/2/operator',
      'body/conditions/3/value',
      'body/conditions/4/value',
      'body/conditions/5/value',
      'body/conditions/6/field',
    ])
  })
})

describe('matchesConditions', () => {
  const today = { today: '2025-03-01', timeZone: 'UTC' }
  const one = (
    condition: { field: string; operator: string; value?: unknown },
    record: Record<string, unknown>,
  ) =>
    matchesConditions(
      'customer',
      { appliesToCondition: 'All', conditions: [condition as never] },
      record,
      today,
    )

  test('strings compare case-insensitively', () => {
    expect(one({ field: 'city', operator: 'equals', value: 'napa' }, { city: 'Napa' })).toBe(true)
    expect(
      one({ field: 'email', operator: 'endsWith', value: '@WINERY.test' }, { email: 'a@winery.test' }),
    ).toBe(true)
    expect(one({ field: 'countryCode', operator: 'in', value: ['us', 'ca'] }, { countryCode: 'CA' })).toBe(
      true,
    )
    expect(one({ field: 'countryCode', operator: 'notIn', value: ['us'] }, { countryCode: 'US' })).toBe(false)
  })

  test('missing values satisfy only isEmpty and the negative operators', () => {
    expect(one({ field: 'city', operator: 'isEmpty' }, {})).toBe(true)
    expect(one({ field: 'city', operator: 'isEmpty' }, { city: '' })).toBe(true)
    expect(one({ field: 'city', operator: 'isNotEmpty' }, { city: null })).toBe(false)
    expect(one({ field: 'city', operator: 'notEquals', value: 'Napa' }, {})).toBe(true)
    expect(one({ field: 'city', operator: 'equals', value: 'Napa' }, {})).toBe(false)
    expect(one({ field: 'lifetimeValue', operator: 'lessThan', value: 10 }, {})).toBe(false)
  })

  test('numbers, booleans and dates', () => {
    expect(one({ field: 'orderCount', operator: 'greaterThanOrEqual', value: 3 }, { orderCount: 3 })).toBe(
      true,
    )
    expect(one({ field: 'orderCount', operator: 'greaterThan', value: 3 }, { orderCount: 3 })).toBe(false)
    expect(
      one({ field: 'marketingOptIn', operator: 'equals', value: false }, { marketingOptIn: false }),
    ).toBe(true)
    expect(
      one({ field: 'birthDate', operator: 'before', value: '1990-01-01' }, { birthDate: '1989-12-31' }),
    ).toBe(true)
    expect(
      one(
        { field: 'createdAt', operator: 'onOrAfter', value: '2025-03-01' },
        { createdAt: '2025-03-01T23:59:00Z' },
      ),
    ).toBe(true)
    // withinLastDays: today counts as day 0; 30 days covers today and the 29 days before.
    expect(
      one({ field: 'lastOrderDate', operator: 'withinLastDays', value: 30 }, { lastOrderDate: '2025-01-31' }),
    ).toBe(true)
    expect(
      one({ field: 'lastOrderDate', operator: 'withinLastDays', value: 30 }, { lastOrderDate: '2025-01-30' }),
    ).toBe(false)
    expect(
      one({ field: 'lastOrderDate', operator: 'withinLastDays', value: 30 }, { lastOrderDate: '2025-03-02' }),
    ).toBe(false)
  })

  test("timestamps are dated on the tenant's calendar; dates stay as they are", () => {
    const inLosAngeles = { today: '2025-03-01', timeZone: 'America/Los_Angeles' }
    // 02:30 UTC on 2 March is 18:30 on 1 March in Los Angeles.
    const created = { createdAt: '2025-03-02T02:30:00.000Z', birthDate: '2025-03-02' }
    const holds = (
      calendar: typeof inLosAngeles,
      condition: { field: string; operator: string; value?: unknown },
    ) =>
      matchesConditions(
        'customer',
        { appliesToCondition: 'All', conditions: [condition as never] },
        created,
        calendar,
      )
    expect(holds(inLosAngeles, { field: 'createdAt', operator: 'equals', value: '2025-03-01' })).toBe(true)
    expect(holds(inLosAngeles, { field: 'createdAt', operator: 'withinLastDays', value: 1 })).toBe(true)
    expect(holds(inLosAngeles, { field: 'birthDate', operator: 'equals', value: '2025-03-02' })).toBe(true)
    const inUtc = { today: '2025-03-01', timeZone: 'UTC' }
    expect(holds(inUtc, { field: 'createdAt', operator: 'equals', value: '2025-03-02' })).toBe(true)
    // On UTC's calendar the same instant is tomorrow: not within the last day.
    expect(holds(inUtc, { field: 'createdAt', operator: 'withinLastDays', value: 1 })).toBe(false)
  })

  test('All needs every condition, Any needs one', () => {
    const conditions = [
      { field: 'city', operator: 'equals', value: 'Napa' },
      { field: 'orderCount', operator: 'greaterThan', value: 5 },
    ]
    const record = { city: 'Napa', orderCount: 1 }
    expect(matchesConditions('customer', { appliesToCondition: 'All', conditions }, record, today)).toBe(
      false,
    )
    expect(matchesConditions('customer', { appliesToCondition: 'Any', conditions }, record, today)).toBe(true)
    expect(matchesConditions('customer', { appliesToCondition: 'Any', conditions: [] }, record, today)).toBe(
      false,
    )
  })
})

describe('required enum fields are really required', () => {
  test('a condition without an operator is 400, not silently "equals"', async () => {
    const { createTestApp } = await import('../../harness')
    const t = await createTestApp()
    try {
      const res = await t.request('POST', '/tag/customer', {
        body: { title: 'x', type: 'Dynamic', conditions: [{ field: 'city', value: 'Napa' }] },
      })
      expect(res.status).toBe(400)
    } finally {
      t.close()
    }
  })
})
