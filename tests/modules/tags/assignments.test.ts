// The exported assignment service (attachTag, detachTag, replaceTags, tagsFor, tagsForMany,
// dynamicTagsFor) and the existence-check registry, over arbitrary object ids: the customers
// family's real existence check is set aside for these tests (and restored after each); it is
// exercised through the API in tests/modules/customers/tags.test.ts.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import {
  attachTag,
  detachTag,
  dynamicTagsFor,
  objectIdsTagged,
  registerTaggable,
  replaceTags,
  tagsFor,
  tagsForMany,
} from '../../../src/modules/tags/assignments'
import { tags } from '../../../src/modules/tags/schema'
import { createTag, deleteTag } from '../../../src/modules/tags/service'
import { type Actor, systemActor } from '../../../src/platform/foundation/actor'
import { ApiError } from '../../../src/platform/foundation/problem'
import { countRows, createTestApp, type TestApp } from '../../harness'

const code = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    if (error instanceof ApiError) return error.code
    throw error
  }
  return 'ok'
}

describe('tag assignments', () => {
  let t: TestApp
  let actor: Actor
  let restoreCustomerCheck: () => void
  beforeEach(async () => {
    t = await createTestApp()
    actor = systemActor(t.tenant.id, 'test')
    restoreCustomerCheck = registerTaggable('customer', () => true)
  })
  afterEach(() => {
    restoreCustomerCheck()
    t.close()
  })

  const manual = (title: string, objectType: 'customer' | 'order' = 'customer') =>
    createTag(t.tenant.db, actor, objectType, { title })

  test('attach, list and detach, each audited; attaching twice changes nothing', () => {
    const db = t.tenant.db
    const vip = manual('VIP')
    const allocation = manual('Allocation')
    attachTag(db, actor, { objectType: 'customer', objectId: 'cust-1', tagId: vip.id })
    attachTag(db, actor, { objectType: 'customer', objectId: 'cust-1', tagId: allocation.id })
    attachTag(db, actor, { objectType: 'customer', objectId: 'cust-1', tagId: vip.id })
    expect(tagsFor(db, 'customer', 'cust-1').map((x) => x.title)).toEqual(['Allocation', 'VIP'])
    expect(tagsFor(db, 'customer', 'cust-2')).toEqual([])
    expect(tagsFor(db, 'order', 'cust-1')).toEqual([])
    expect(objectIdsTagged(db, 'customer', vip.id)).toEqual(['cust-1'])

    detachTag(db, actor, { objectType: 'customer', objectId: 'cust-1', tagId: vip.id })
    expect(tagsFor(db, 'customer', 'cust-1').map((x) => x.title)).toEqual(['Allocation'])
    expect(
      code(() => detachTag(db, actor, { objectType: 'customer', objectId: 'cust-1', tagId: vip.id })),
    ).toBe('not_found')

    const audit = db.$client
      .query(
        "SELECT action, entity_type, entity_id, metadata FROM audit_entries WHERE action LIKE 'tag.%tach' ORDER BY seq",
      )
      .all() as { action: string; entity_type: string; entity_id: string; metadata: string }[]
    expect(audit.map((a) => a.action)).toEqual(['tag.attach', 'tag.attach', 'tag.detach'])
    expect(audit[0]).toMatchObject({ entity_type: 'customer', entity_id: 'cust-1' })
    expect(JSON.parse(audit[2]!.metadata)).toEqual({
      tagId: vip.id,
      title: 'VIP',
      objectType: 'customer',
      objectId: 'cust-1',
    })
    const events = db.$client
      .query("SELECT action FROM outbox_events WHERE action IN ('attach', 'detach')")
      .all()
    expect(events).toHaveLength(3)
  })

  test('a tag of another object type, an unknown tag or a Dynamic tag cannot be attached', () => {
    const db = t.tenant.db
    const orderTag = manual('Rush', 'order')
    const dynamic = createTag(db, actor, 'customer', {
      title: 'Locals',
      type: 'Dynamic',
      conditions: [{ field: 'city', operator: 'equals', value: 'Napa' }],
    })
    expect(
      code(() => attachTag(db, actor, { objectType: 'customer', objectId: 'c', tagId: orderTag.id })),
    ).toBe('not_found')
    expect(
      code(() => attachTag(db, actor, { objectType: 'customer', objectId: 'c', tagId: 'missing' })),
    ).toBe('not_found')
    expect(
      code(() => attachTag(db, actor, { objectType: 'customer', objectId: 'c', tagId: dynamic.id })),
    ).toBe('conflict')
    expect(countRows(db, 'tag_assignments')).toBe(0)
  })

  test('a registered existence check makes unknown objects 404; unregistering restores the check it replaced', () => {
    const db = t.tenant.db
    const vip = manual('VIP')
    const known = new Set(['cust-known'])
    const unregister = registerTaggable('customer', (_db, id) => known.has(id))
    try {
      expect(
        code(() => attachTag(db, actor, { objectType: 'customer', objectId: 'cust-unknown', tagId: vip.id })),
      ).toBe('not_found')
      expect(
        code(() => attachTag(db, actor, { objectType: 'customer', objectId: 'cust-known', tagId: vip.id })),
      ).toBe('ok')
      // Other object types are unaffected by the customer check.
      const restoreOrders = registerTaggable('order', () => true)
      try {
        const rush = manual('Rush', 'order')
        expect(
          code(() => attachTag(db, actor, { objectType: 'order', objectId: 'anything', tagId: rush.id })),
        ).toBe('ok')
      } finally {
        restoreOrders()
      }
    } finally {
      unregister()
    }
    expect(
      code(() => attachTag(db, actor, { objectType: 'customer', objectId: 'cust-unknown', tagId: vip.id })),
    ).toBe('ok')
  })

  test('the existence check runs against the tenant database the write runs on', async () => {
    // A check that finds "objects" in the database it is given: here, the tenant's own tag titles.
    const unregister = registerTaggable(
      'reservation',
      (db, id) => db.select({ id: tags.id }).from(tags).where(eq(tags.title, id)).get() !== undefined,
    )
    try {
      const other = await t.addTenant('other')
      createTag(other.db, systemActor(other.id, 'test'), 'reservation', { title: 'only-in-other' })
      const tag = createTag(t.tenant.db, actor, 'reservation', { title: 'Anniversary' })
      const attach = (objectId: string) => () =>
        attachTag(t.tenant.db, actor, { objectType: 'reservation', objectId, tagId: tag.id })
      expect(code(attach('only-in-other'))).toBe('not_found')
      expect(code(attach('Anniversary'))).toBe('ok')
    } finally {
      unregister()
    }
  })

  test('replaceTags makes the set exact, all or nothing', () => {
    const db = t.tenant.db
    const [a, b, c] = [manual('A'), manual('B'), manual('C')]
    attachTag(db, actor, { objectType: 'customer', objectId: 'x', tagId: a.id })
    attachTag(db, actor, { objectType: 'customer', objectId: 'x', tagId: b.id })
    const after = replaceTags(db, actor, { objectType: 'customer', objectId: 'x' }, [b.id, c.id, c.id])
    expect(after.map((x) => x.title)).toEqual(['B', 'C'])

    const auditBefore = countRows(db, 'audit_entries')
    expect(
      code(() => replaceTags(db, actor, { objectType: 'customer', objectId: 'x' }, [a.id, 'missing'])),
    ).toBe('not_found')
    expect(tagsFor(db, 'customer', 'x').map((x) => x.title)).toEqual(['B', 'C'])
    expect(countRows(db, 'audit_entries')).toBe(auditBefore)

    expect(replaceTags(db, actor, { objectType: 'customer', objectId: 'x' }, [])).toEqual([])
  })

  test('tagsForMany answers every object in one query', () => {
    const db = t.tenant.db
    const [a, b] = [manual('A'), manual('B')]
    attachTag(db, actor, { objectType: 'customer', objectId: '1', tagId: a.id })
    attachTag(db, actor, { objectType: 'customer', objectId: '2', tagId: a.id })
    attachTag(db, actor, { objectType: 'customer', objectId: '2', tagId: b.id })
    const map = tagsForMany(db, 'customer', ['1', '2', '3'])
    expect(map.get('1')!.map((x) => x.title)).toEqual(['A'])
    expect(map.get('2')!.map((x) => x.title)).toEqual(['A', 'B'])
    expect(map.get('3')).toBeUndefined()
    expect(tagsForMany(db, 'customer', []).size).toBe(0)
  })

  test('deleting a tag detaches it everywhere and records how many', () => {
    const db = t.tenant.db
    const vip = manual('VIP')
    for (const id of ['1', '2', '3'])
      attachTag(db, actor, { objectType: 'customer', objectId: id, tagId: vip.id })
    deleteTag(db, actor, 'customer', vip.id)
    expect(countRows(db, 'tag_assignments')).toBe(0)
    const entry = db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'tag.delete'")
      .get() as {
      metadata: string
    }
    expect(JSON.parse(entry.metadata).detachedCount).toBe(3)
  })

  test('a Manual tag attached to objects cannot become Dynamic (409 with the count)', async () => {
    const vip = manual('VIP')
    attachTag(t.tenant.db, actor, { objectType: 'customer', objectId: '1', tagId: vip.id })
    const res = await t.request('PUT', `/tag/customer/${vip.id}`, {
      body: { type: 'Dynamic', conditions: [{ field: 'city', operator: 'equals', value: 'Napa' }] },
    })
    expect(res.status).toBe(409)
    expect(res.body.attachedCount).toBe(1)
  })

  test('dynamicTagsFor evaluates every Dynamic tag of the object type against a record', () => {
    const db = t.tenant.db
    createTag(db, actor, 'customer', {
      title: 'CA big spenders',
      type: 'Dynamic',
      conditions: [
        { field: 'region', operator: 'equals', value: 'ca' },
        { field: 'lifetimeValue', operator: 'greaterThanOrEqual', value: 100_000 },
      ],
    })
    createTag(db, actor, 'customer', {
      title: 'Recent or opted in',
      type: 'Dynamic',
      appliesToCondition: 'Any',
      conditions: [
        { field: 'lastOrderDate', operator: 'withinLastDays', value: 30 },
        { field: 'marketingOptIn', operator: 'equals', value: true },
      ],
    })
    manual('VIP')
    const titles = (record: Record<string, unknown>) =>
      dynamicTagsFor(db, 'customer', record, { today: '2025-06-30', timeZone: 'UTC' }).map((x) => x.title)
    expect(titles({ region: 'CA', lifetimeValue: 150_000, marketingOptIn: false })).toEqual([
      'CA big spenders',
    ])
    expect(
      titles({ region: 'CA', lifetimeValue: 99_999, lastOrderDate: '2025-06-15T10:00:00.000Z' }),
    ).toEqual(['Recent or opted in'])
    expect(titles({ region: 'OR', lastOrderDate: '2025-05-01' })).toEqual([])
  })
})
