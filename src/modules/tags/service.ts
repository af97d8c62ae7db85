import { and, asc, count, eq, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { ApiError, conflict } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { backfillTag } from './dynamic'
import {
  assertConditionShape,
  type ConditionShape,
  conditionFields,
  isTagObjectType,
  objectTypes,
  type TagObjectType,
  type TagObjectTypeName,
} from './fields'
import type { CreateTagInput, UpdateTagInput } from './model'
import { type TagRow, tagAssignments, tags } from './schema'
import { getTag } from './tag-row'

/** The object type of a `/tag/{objectType}` path, or 404 for anything else. */
export function tagObjectType(slug: string): TagObjectType {
  if (!isTagObjectType(slug)) throw new ApiError('not_found', `tags do not apply to object type ${slug}`)
  return slug
}

export function listTags(
  db: Queryable,
  objectType: TagObjectType,
  query: { q?: string; type?: 'Manual' | 'Dynamic' } & PageRequest,
) {
  const where = and(
    eq(tags.objectType, objectTypes[objectType]),
    query.type ? eq(tags.type, query.type) : undefined,
    searchColumns(query.q, [tags.title]),
  )
  const total = db.select({ n: count() }).from(tags).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(tags)
    .where(where)
    .orderBy(asc(sql`lower(${tags.title})`), asc(tags.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { tags: rows, total }
}

/** A tag of this object type; a tag of another object type (or tenant) is 404. */

function assertTitleFree(db: Queryable, objectType: TagObjectType, title: string, exceptId?: string) {
  const holder = db
    .select({ id: tags.id })
    .from(tags)
    .where(
      and(eq(tags.objectType, objectTypes[objectType]), eq(sql`lower(${tags.title})`, title.toLowerCase())),
    )
    .get()
  if (holder && holder.id !== exceptId)
    throw conflict(`a ${objectType} tag titled "${title}" already exists`, { existingTagId: holder.id })
}

/** Checks a whole tag: Manual tags have no conditions; Dynamic ones 1..25 valid conditions. */
const assertValidShape = (objectType: TagObjectType, shape: ConditionShape) =>
  assertConditionShape(conditionFields[objectType], objectTypes[objectType], 'tags', shape)

export function createTag(db: Db, actor: Actor, objectType: TagObjectType, input: CreateTagInput): TagRow {
  return inWriteTransaction(db, (tx) => {
    const shape = assertValidShape(objectType, {
      type: input.type ?? 'Manual',
      appliesToCondition: input.appliesToCondition ?? null,
      conditions: input.conditions ?? [],
    })
    assertTitleFree(tx, objectType, input.title)
    const now = nowIso()
    const row = tx
      .insert(tags)
      .values({
        id: newId(),
        title: input.title,
        objectType: objectTypes[objectType],
        ...shape,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'tag.create',
      entityType: 'tag',
      entityId: row.id,
      metadata: { tag: row },
      event: row,
    })
    if (row.type === 'Dynamic') backfillTag(tx, actor, objectType, row)
    return row
  })
}

export function updateTag(
  db: Db,
  actor: Actor,
  objectType: TagObjectType,
  id: string,
  patch: UpdateTagInput,
): TagRow {
  return inWriteTransaction(db, (tx) => {
    const before = getTag(tx, objectType, id)
    const type = patch.type ?? before.type
    // Switching to Manual drops the conditions unless the patch sends some (which is then refused).
    const switchedToManual = type === 'Manual' && before.type === 'Dynamic'
    const shape = assertValidShape(objectType, {
      type,
      appliesToCondition:
        patch.appliesToCondition !== undefined
          ? patch.appliesToCondition
          : switchedToManual
            ? null
            : before.appliesToCondition,
      conditions: patch.conditions ?? (switchedToManual ? [] : before.conditions),
    })
    if (patch.title !== undefined) assertTitleFree(tx, objectType, patch.title, id)
    if (type === 'Dynamic' && before.type === 'Manual') {
      const attached = attachedCount(tx, id)
      if (attached > 0)
        throw conflict(
          `tag ${id} is attached to ${attached} object(s); detach them before making it Dynamic`,
          {
            attachedCount: attached,
          },
        )
    }
    const next = { title: patch.title ?? before.title, ...shape }
    const changes = diffFields(before, next)
    if (Object.keys(changes).length === 0) return before
    const row = tx
      .update(tags)
      .set({ ...next, updatedAt: nowIso() })
      .where(eq(tags.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'tag.update',
      entityType: 'tag',
      entityId: id,
      metadata: { changes },
      event: row,
    })
    if (row.type === 'Dynamic' || before.type === 'Dynamic') backfillTag(tx, actor, objectType, row)
    return row
  })
}

function attachedCount(db: Queryable, tagId: string): number {
  return db.select({ n: count() }).from(tagAssignments).where(eq(tagAssignments.tagId, tagId)).get()?.n ?? 0
}

/** Deletes a tag and (by cascade) its assignments; the audit entry records how many. */
export function deleteTag(db: Db, actor: Actor, objectType: TagObjectType, id: string): void {
  inWriteTransaction(db, (tx) => {
    const row = getTag(tx, objectType, id)
    const detached = attachedCount(tx, id)
    tx.delete(tags).where(eq(tags.id, id)).run()
    recordWrite(tx, actor, {
      action: 'tag.delete',
      entityType: 'tag',
      entityId: id,
      metadata: { tag: row, detachedCount: detached },
      event: row,
    })
  })
}

/** A tag of an object type, by id; undefined when none (or one of another type). */
export const findTagOf = (db: Queryable, objectType: TagObjectTypeName, id: string): TagRow | undefined =>
  db
    .select()
    .from(tags)
    .where(and(eq(tags.id, id), eq(tags.objectType, objectType)))
    .get()

/** A tag by id, of whichever object type; undefined when none. */
export const findTag = (db: Queryable, id: string): TagRow | undefined =>
  db.select().from(tags).where(eq(tags.id, id)).get()
