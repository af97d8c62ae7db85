// Dynamic tags applied by their conditions: a worked example per operator (back-filled when the
// tag is created), each object type re-evaluated when its records are created or changed, the
// back-fill when a tag changes, audit and events of the evaluator's assignments, permissions and
// tenant isolation.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { recordOrderPayment } from '../../../src/modules/orders/lifecycle'
import { REFRESH_DATED_TAGS_JOB } from '../../../src/modules/tags/jobs'
import { systemActor } from '../../../src/platform/foundation/actor'
import { zonedInstant } from '../../../src/platform/foundation/dates'
import { createTestApp, type TenantFixture, type TestApp } from '../../harness'
import { addAddress, makeClub, makeCustomer } from '../customers/helpers'
import { inDays } from '../reservations/helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

async function ok(method: string, path: string, body?: unknown, tenant?: TenantFixture) {
  const res = await t.request(method, path, { body, tenant, as: tenant?.owner })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
  return res.body
}

const dynamicTag = (objectType: string, conditions: unknown[], extra: Record<string, unknown> = {}) =>
  ok('POST', `/tag/${objectType}`, {
    title: `T${Math.random().toString(36).slice(2, 8)}`,
    type: 'Dynamic',
    conditions,
    ...extra,
  })

/** The ids of the objects carrying a tag, sorted. */
const carriers = (tagId: string, db = t.tenant.db) =>
  db.$client
    .query('SELECT object_id AS id FROM tag_assignments WHERE tag_id = ? ORDER BY object_id')
    .all(tagId)
    .map((r: any) => r.id as string)

const sorted = (...ids: string[]) => [...ids].sort()

describe('dynamic tags: a worked example per operator, back-filled at creation', () => {
  // Ann: in CA with a phone, opted in, born 1980-05-01, two memberships. Bob: in OR, born
  // 1990-12-31, one membership. Cy: no address, no phone, no birth date, no membership.
  let people: { ann: string; bob: string; cy: string }
  beforeEach(async () => {
    const ann = await makeCustomer(t, {
      firstName: 'Ann',
      email: 'ann@vineyard.test',
      phone: '555-0100',
      marketingOptIn: true,
      birthDate: '1980-05-01',
    })
    const bob = await makeCustomer(t, {
      firstName: 'Bob',
      email: 'bob@example.test',
      birthDate: '1990-12-31',
    })
    const cy = await makeCustomer(t, { firstName: 'Cy', email: 'cy@example.test' })
    await addAddress(t, ann.id, { region: 'CA' })
    await addAddress(t, bob.id, { region: 'OR' })
    const club = await makeClub(t)
    const other = await makeClub(t)
    for (const [customerId, clubId] of [
      [ann.id, club.id],
      [ann.id, other.id],
      [bob.id, club.id],
    ])
      await ok('POST', '/club-membership', { customerId, clubId, orderDeliveryMethod: 'Pickup' })
    people = { ann: ann.id, bob: bob.id, cy: cy.id }
  })

  const examples: [string, unknown, (keyof typeof people)[]][] = [
    ['equals (string, any case)', { field: 'firstName', operator: 'equals', value: 'ANN' }, ['ann']],
    ['notEquals', { field: 'firstName', operator: 'notEquals', value: 'ann' }, ['bob', 'cy']],
    ['contains', { field: 'email', operator: 'contains', value: 'vineyard' }, ['ann']],
    ['notContains', { field: 'email', operator: 'notContains', value: 'vineyard' }, ['bob', 'cy']],
    ['startsWith', { field: 'email', operator: 'startsWith', value: 'bob@' }, ['bob']],
    ['endsWith', { field: 'email', operator: 'endsWith', value: '@example.test' }, ['bob', 'cy']],
    ['in (address region)', { field: 'region', operator: 'in', value: ['CA', 'WA'] }, ['ann']],
    ['notIn: no address is not in', { field: 'region', operator: 'notIn', value: ['CA'] }, ['bob', 'cy']],
    ['isEmpty', { field: 'phone', operator: 'isEmpty' }, ['bob', 'cy']],
    ['isNotEmpty', { field: 'phone', operator: 'isNotEmpty' }, ['ann']],
    ['equals (boolean)', { field: 'marketingOptIn', operator: 'equals', value: true }, ['ann']],
    ['equals (number)', { field: 'clubMembershipCount', operator: 'equals', value: 1 }, ['bob']],
    ['notEquals (number)', { field: 'clubMembershipCount', operator: 'notEquals', value: 1 }, ['ann', 'cy']],
    ['greaterThan', { field: 'clubMembershipCount', operator: 'greaterThan', value: 0 }, ['ann', 'bob']],
    [
      'greaterThanOrEqual',
      { field: 'clubMembershipCount', operator: 'greaterThanOrEqual', value: 2 },
      ['ann'],
    ],
    ['lessThan', { field: 'clubMembershipCount', operator: 'lessThan', value: 1 }, ['cy']],
    [
      'lessThanOrEqual',
      { field: 'clubMembershipCount', operator: 'lessThanOrEqual', value: 1 },
      ['bob', 'cy'],
    ],
    ['equals (date)', { field: 'birthDate', operator: 'equals', value: '1980-05-01' }, ['ann']],
    ['notEquals (date)', { field: 'birthDate', operator: 'notEquals', value: '1980-05-01' }, ['bob', 'cy']],
    ['before', { field: 'birthDate', operator: 'before', value: '1985-01-01' }, ['ann']],
    ['after', { field: 'birthDate', operator: 'after', value: '1985-01-01' }, ['bob']],
    ['onOrBefore', { field: 'birthDate', operator: 'onOrBefore', value: '1990-12-31' }, ['ann', 'bob']],
    ['onOrAfter', { field: 'birthDate', operator: 'onOrAfter', value: '1990-12-31' }, ['bob']],
    ['withinLastDays', { field: 'createdAt', operator: 'withinLastDays', value: 1 }, ['ann', 'bob', 'cy']],
  ]

  for (const [name, condition, expected] of examples)
    test(name, async () => {
      const tag = await dynamicTag('customer', [condition])
      expect(carriers(tag.id)).toEqual(sorted(...expected.map((who) => people[who])))
    })

  test('All needs every condition, Any one of them', async () => {
    const conditions = [
      { field: 'firstName', operator: 'equals', value: 'ann' },
      { field: 'region', operator: 'equals', value: 'OR' },
    ]
    expect(carriers((await dynamicTag('customer', conditions)).id)).toEqual([])
    const any = await dynamicTag('customer', conditions, { appliesToCondition: 'Any' })
    expect(carriers(any.id)).toEqual(sorted(people.ann, people.bob))
  })

  test('the customer view lists the Dynamic tags it carries', async () => {
    const tag = await dynamicTag('customer', [{ field: 'firstName', operator: 'equals', value: 'Ann' }])
    const ann = await ok('GET', `/customers/${people.ann}`)
    expect(ann.tags).toEqual([{ id: tag.id, title: tag.title }])
  })
})

describe('dynamic tags: re-evaluated when a record is created or changed', () => {
  test('customers: a new customer that matches is tagged, a change that no longer matches untags', async () => {
    const tag = await dynamicTag('customer', [{ field: 'email', operator: 'endsWith', value: '@vip.test' }])
    const vip = await makeCustomer(t, { email: 'pat@vip.test' })
    const plain = await makeCustomer(t)
    expect(carriers(tag.id)).toEqual([vip.id])
    await ok('PUT', `/customers/${plain.id}`, { email: 'sam@vip.test' })
    await ok('PUT', `/customers/${vip.id}`, { email: 'pat@example.test' })
    expect(carriers(tag.id)).toEqual([plain.id])
  })

  test('customers: an address added counts (the first address’s region)', async () => {
    const tag = await dynamicTag('customer', [{ field: 'region', operator: 'equals', value: 'CA' }])
    const customer = await makeCustomer(t)
    expect(carriers(tag.id)).toEqual([])
    await addAddress(t, customer.id, { region: 'CA' })
    expect(carriers(tag.id)).toEqual([customer.id])
  })

  test('customers: paying an order changes the order count and lifetime value the tag tests', async () => {
    const tag = await dynamicTag('customer', [
      { field: 'orderCount', operator: 'greaterThanOrEqual', value: 1 },
      { field: 'lifetimeValue', operator: 'greaterThan', value: 2000 },
    ])
    const customer = await makeCustomer(t)
    const order = await ok('POST', '/order', {
      locationId: t.tenant.locationId,
      customerId: customer.id,
      lineItems: [{ lineType: 'open_item', openItemScope: 'food', title: 'Dinner', unitPrice: 2500 }],
    })
    await ok('POST', `/order/${order.id}/submit`)
    expect(carriers(tag.id)).toEqual([])
    recordOrderPayment(t.tenant.db, systemActor(t.tenant.id, 'payments'), {
      orderId: order.id,
      paymentIntentId: 'pi_1',
      amount: order.total,
      tipAmount: 0,
    })
    expect(carriers(tag.id)).toEqual([customer.id])
  })

  test('orders: an order is tagged once its total passes the threshold', async () => {
    const tag = await dynamicTag('order', [{ field: 'total', operator: 'greaterThan', value: 5000 }])
    const order = await ok('POST', '/order', {
      locationId: t.tenant.locationId,
      lineItems: [{ lineType: 'open_item', openItemScope: 'food', title: 'Wine', unitPrice: 3000 }],
    })
    expect(carriers(tag.id)).toEqual([])
    await ok('POST', `/order/${order.id}/line`, {
      lineType: 'open_item',
      openItemScope: 'food',
      title: 'More wine',
      unitPrice: 3000,
    })
    expect(carriers(tag.id)).toEqual([order.id])
    const byStatus = await dynamicTag('order', [{ field: 'status', operator: 'equals', value: 'draft' }])
    expect(carriers(byStatus.id)).toEqual([order.id])
    await ok('POST', `/order/${order.id}/submit`)
    expect(carriers(byStatus.id)).toEqual([])
  })

  test('club memberships: holding and resuming a membership moves an On Hold tag', async () => {
    const tag = await dynamicTag('club-membership', [
      { field: 'status', operator: 'equals', value: 'On Hold' },
    ])
    const customer = await makeCustomer(t)
    const club = await makeClub(t)
    const membership = await ok('POST', '/club-membership', {
      customerId: customer.id,
      clubId: club.id,
      orderDeliveryMethod: 'Pickup',
    })
    expect(carriers(tag.id)).toEqual([])
    await ok('POST', `/club-membership/${membership.id}/hold`, { holdUntil: '2099-01-01' })
    expect(carriers(tag.id)).toEqual([membership.id])
    await ok('POST', `/club-membership/${membership.id}/resume`)
    expect(carriers(tag.id)).toEqual([])
  })

  test('club memberships: a release planned for a new member moves a tag on its next process date', async () => {
    const tag = await dynamicTag('club-membership', [
      { field: 'nextProcessDate', operator: 'before', value: '2099-03-01' },
    ])
    const customer = await makeCustomer(t)
    const club = await makeClub(t)
    const membership = await ok('POST', '/club-membership', {
      customerId: customer.id,
      clubId: club.id,
      orderDeliveryMethod: 'Pickup',
      signupDate: '2099-01-10',
    })
    // The sign-up plus a quarter (2099-04-10) until a release is planned, then the release's date.
    expect(carriers(tag.id)).toEqual([])
    await ok('POST', '/product', {
      title: 'Pinot Noir',
      type: 'Wine',
      variants: [{ title: '750ml', sku: 'PINOT-99', price: 4500 }],
    })
    await ok('POST', `/club/${club.id}/releases`, {
      title: 'Winter release',
      processDate: '2099-02-01',
      items: [{ sku: 'PINOT-99', quantity: 1 }],
    })
    expect(carriers(tag.id)).toEqual([membership.id])
  })

  test('reservations: a large party is tagged, and untagged when the party shrinks', async () => {
    const tag = await dynamicTag('reservation', [
      { field: 'guestCount', operator: 'greaterThanOrEqual', value: 4 },
    ])
    const type = await ok('POST', '/reservation-type', {
      title: 'Tasting',
      minGuestCount: 1,
      maxGuestCount: 8,
      leadTimeInHours: 0,
      reservationLocationIds: [t.tenant.locationId],
      options: [{ title: 'Flight', sku: 'FL-1', price: 2000 }],
      timeSlots: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'].map(
        (dayOfWeek) => ({ dayOfWeek, times: [{ time: '11:00' }] }),
      ),
    })
    const booking = await ok('POST', '/reservation', {
      reservationDate: zonedInstant(inDays(5), '11:00', 'America/Los_Angeles').toISOString(),
      reservationTypeId: type.id,
      guestCount: 5,
      reservationLocationId: t.tenant.locationId,
      inventoryLocationId: t.tenant.locationId,
      reservationTypeOptionId: type.options[0].id,
    })
    expect(carriers(tag.id)).toEqual([booking.id])
    await ok('PUT', `/reservation/${booking.id}`, { guestCount: 2 })
    expect(carriers(tag.id)).toEqual([])
  })
})

describe('dynamic tags: changing a tag back-fills it', () => {
  test('new conditions add and remove; switching to Manual removes what the conditions attached', async () => {
    const napa = await makeCustomer(t, { firstName: 'Napa' })
    const sonoma = await makeCustomer(t, { firstName: 'Sonoma' })
    const tag = await dynamicTag('customer', [{ field: 'firstName', operator: 'equals', value: 'Napa' }])
    expect(carriers(tag.id)).toEqual([napa.id])
    await ok('PUT', `/tag/customer/${tag.id}`, {
      conditions: [{ field: 'firstName', operator: 'equals', value: 'Sonoma' }],
    })
    expect(carriers(tag.id)).toEqual([sonoma.id])
    await ok('PUT', `/tag/customer/${tag.id}`, { type: 'Manual' })
    expect(carriers(tag.id)).toEqual([])
  })

  test('each assignment the evaluator makes is audited on the record and emitted as a tag event', async () => {
    const customer = await makeCustomer(t, { firstName: 'Napa' })
    const tag = await dynamicTag('customer', [{ field: 'firstName', operator: 'equals', value: 'Napa' }])
    await ok('PUT', `/customers/${customer.id}`, { firstName: 'Sonoma' })
    const audit = t.tenant.db.$client
      .query(
        "SELECT action, entity_type AS entityType, entity_id AS entityId, metadata FROM audit_entries WHERE action LIKE 'tag.%' AND action != 'tag.create' ORDER BY seq",
      )
      .all() as any[]
    expect(audit.map((a) => [a.action, a.entityType, a.entityId])).toEqual([
      ['tag.attach', 'customer', customer.id],
      ['tag.detach', 'customer', customer.id],
    ])
    expect(JSON.parse(audit[0].metadata)).toMatchObject({ tagId: tag.id, byConditions: true })
    const events = t.tenant.db.$client
      .query(
        "SELECT action, aggregate_id AS id FROM outbox_events WHERE object = 'tag' AND action != 'create' ORDER BY seq",
      )
      .all()
    expect(events).toEqual([
      { action: 'attach', id: tag.id },
      { action: 'detach', id: tag.id },
    ])
  })

  test('a Dynamic tag cannot be detached by hand (409) and stays', async () => {
    const customer = await makeCustomer(t, { firstName: 'Napa' })
    const tag = await dynamicTag('customer', [{ field: 'firstName', operator: 'equals', value: 'Napa' }])
    const res = await t.request('DELETE', `/customers/${customer.id}/tags/${tag.id}`)
    expect(res.status).toBe(409)
    expect(carriers(tag.id)).toEqual([customer.id])
  })
})

describe('dynamic tags: security', () => {
  test('read_only may not create a Dynamic tag (403), and nothing is evaluated', async () => {
    await makeCustomer(t, { firstName: 'Napa' })
    for (const as of [t.tenant.readOnly]) {
      const res = await t.request('POST', '/tag/customer', {
        as,
        body: {
          title: 'Napa',
          type: 'Dynamic',
          conditions: [{ field: 'firstName', operator: 'equals', value: 'Napa' }],
        },
      })
      expect(res.status).toBe(403)
    }
    expect(t.tenant.db.$client.query('SELECT count(*) AS n FROM tag_assignments').get()).toEqual({ n: 0 })
  })

  test('a tag applies within its tenant only; another tenant’s tag id is 404', async () => {
    const other = await t.addTenant('other')
    const here = await makeCustomer(t, { firstName: 'Napa' })
    const there = await makeCustomer(t, { firstName: 'Napa' }, { tenant: other })
    const tag = await dynamicTag('customer', [{ field: 'firstName', operator: 'equals', value: 'Napa' }])
    expect(carriers(tag.id)).toEqual([here.id])
    expect(carriers(tag.id, other.db)).toEqual([])
    await ok('PUT', `/customers/${there.id}`, { lastName: 'Changed' }, other)
    expect(other.db.$client.query('SELECT count(*) AS n FROM tag_assignments').get()).toEqual({ n: 0 })
    const res = await t.request('PUT', `/tag/customer/${tag.id}`, {
      as: other.owner,
      tenant: other,
      body: { title: 'Stolen' },
    })
    expect(res.status).toBe(404)
  })

  test('invalid conditions are 400 and back-fill nothing', async () => {
    await makeCustomer(t, { firstName: 'Napa' })
    const res = await t.request('POST', '/tag/customer', {
      body: {
        title: 'Bad',
        type: 'Dynamic',
        conditions: [{ field: 'firstName', operator: 'greaterThan', value: 1 }],
      },
    })
    expect(res.status).toBe(400)
    expect(t.tenant.db.$client.query('SELECT count(*) AS n FROM tag_assignments').get()).toEqual({ n: 0 })
  })
})

describe('dated conditions move with the date, not with a write', () => {
  test("a timestamp is dated on the tenant's calendar (America/Los_Angeles here), not on UTC's", async () => {
    const yesterday = inDays(-1)
    // 20:00 in Los Angeles is 03:00 or 04:00 the next day in UTC.
    const evening = zonedInstant(yesterday, '20:00', 'America/Los_Angeles').toISOString()
    expect(evening.slice(0, 10)).not.toBe(yesterday)
    const late = await makeCustomer(t, { firstName: 'Late' })
    t.tenant.db.$client.run('UPDATE customers SET created_at = ? WHERE id = ?', [evening, late.id])
    const createdYesterday = await dynamicTag('customer', [
      { field: 'createdAt', operator: 'equals', value: yesterday },
    ])
    const createdToday = await dynamicTag('customer', [
      { field: 'createdAt', operator: 'equals', value: inDays(0) },
    ])
    expect(carriers(createdYesterday.id)).toContain(late.id)
    expect(carriers(createdToday.id)).not.toContain(late.id)
  })

  test('the tags.refresh-dated job takes a customer out of "created within 1 day" once that day is past, recorded by the system', async () => {
    const fresh = await makeCustomer(t, { firstName: 'Fresh' })
    const aging = await makeCustomer(t, { firstName: 'Aging' })
    const tag = await dynamicTag('customer', [{ field: 'createdAt', operator: 'withinLastDays', value: 1 }])
    expect(carriers(tag.id)).toEqual(sorted(fresh.id, aging.id))

    // Three days pass for one customer (no write of its own): nothing changes until the job runs.
    const db = t.tenant.db.$client
    db.run('UPDATE customers SET created_at = ? WHERE id = ?', [
      new Date(Date.now() - 3 * 86_400_000).toISOString(),
      aging.id,
    ])
    expect(carriers(tag.id)).toEqual(sorted(fresh.id, aging.id))
    await t.platform.jobs.runNow(REFRESH_DATED_TAGS_JOB)
    expect(carriers(tag.id)).toEqual([fresh.id])
    const detached = db
      .query("SELECT subject, entity_id AS id FROM audit_entries WHERE action = 'tag.detach' ORDER BY seq")
      .all() as { subject: string; id: string }[]
    expect(detached).toEqual([{ subject: 'system:dynamic-tags', id: expect.any(String) }])

    // A second run changes nothing, and writes nothing.
    const count = () => (db.query('SELECT count(*) AS n FROM audit_entries').get() as { n: number }).n
    const before = count()
    await t.platform.jobs.runNow(REFRESH_DATED_TAGS_JOB)
    expect(count()).toBe(before)
  })
})
