// Dynamic tags applied by their conditions. The families that own taggable records register a
// source here (the port): how to present a record as the fields of fields.ts, which ids exist, and
// which recorded writes change which records. Every recorded write then re-evaluates the records
// it changed, in its own transaction; creating or changing a Dynamic tag back-fills it over every
// record. The tags module imports none of those families.
import { eq, sql } from 'drizzle-orm'
import { observeWrites, type WriteObserver, type WriteRecord } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import type { Db } from '../../platform/tenancy/databases'
import { preparedOn } from '../../platform/tenancy/prepared'
import { calendarOfTenant } from '../../platform/tenancy/time-zones'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { deleteAssignment, dynamicTagsFor, insertAssignment, tagsFor } from './assignments'
import { matchesConditions, objectTypes, type TagObjectType, tagObjectTypeOf } from './fields'
import { type TagRow, tagAssignments, tags } from './schema'

export type RecordFields = Record<string, unknown>

export interface DynamicSource {
  /**
   * The ids of the records the family owns (a back-fill evaluates each). A family that only adds
   * fields to another's records (orders add a customer's order count) leaves it out.
   */
  ids?: (db: Queryable) => string[]
  /** The fields the family knows of a record, named as in fields.ts; undefined for an unknown id. */
  present: (db: Queryable, id: string) => RecordFields | undefined
  /** The records of the object type a recorded write may have changed. */
  changedBy: (db: Queryable, write: WriteRecord) => readonly string[]
}

const sources = new Map<TagObjectType, Set<DynamicSource>>()

/** Registers a source of an object type's records; answers the function that removes it. */
export function registerDynamicSource(objectType: TagObjectType, source: DynamicSource): () => void {
  const set = sources.get(objectType) ?? new Set()
  sources.set(objectType, set.add(source))
  return () => set.delete(source)
}

const sourcesOf = (objectType: TagObjectType) => [...(sources.get(objectType) ?? [])]

/** A record's presented view: its owner's fields and every other family's; undefined once gone. */
export function presentRecord(
  db: Queryable,
  objectType: TagObjectType,
  id: string,
): RecordFields | undefined {
  const all = sourcesOf(objectType)
  const owned = all.filter((s) => s.ids).map((s) => s.present(db, id))
  const own = owned.find((fields) => fields !== undefined)
  if (!own) return undefined
  return Object.assign({}, own, ...all.filter((s) => !s.ids).map((s) => s.present(db, id)))
}

/** The Dynamic tags with a `withinLastDays` condition. */
export const datedTags = (db: Db) =>
  preparedOn(db, 'tags-dynamic', () => db.select().from(tags).where(eq(tags.type, 'Dynamic')).prepare())
    .all()
    .filter((tag) => tag.conditions.some((c) => c.operator === 'withinLastDays'))

/**
 * Re-applies every Dynamic tag with a `withinLastDays` condition: what those conditions hold for
 * moves with the date, not with a write (a customer created 31 days ago leaves "created within 30
 * days" overnight). The scheduler runs it for each tenant (jobs.ts); changes are recorded by `actor`.
 */
export function refreshDatedTags(db: Db, actor: Actor): number {
  const dated = datedTags(db)
  for (const tag of dated) {
    const objectType = tagObjectTypeOf(tag.objectType)
    if (objectType) inWriteTransaction(db, (tx) => backfillTag(tx, actor, objectType, tag))
  }
  return dated.length
}

/**
 * Makes one record carry exactly the Dynamic tags (of `among`, default all of its type) whose
 * conditions hold for it, each attachment and detachment recorded on the record.
 */
function reconcile(tx: Queryable, actor: Actor, objectType: TagObjectType, objectId: string, among?: TagRow) {
  const record = presentRecord(tx, objectType, objectId)
  // The tenant's calendar: "within the last 30 days" turns over at the tenant's midnight.
  const calendar = calendarOfTenant(actor.tenantId)
  const matching = record
    ? among
      ? matchesConditions(objectType, among, record, calendar)
        ? [among]
        : []
      : dynamicTagsFor(tx, objectType, record, calendar)
    : []
  const carried = tagsFor(tx, objectType, objectId).filter(
    (t) => t.type === 'Dynamic' && (!among || t.id === among.id),
  )
  const target = { objectType, objectId }
  const matchingIds = new Set(matching.map((t) => t.id))
  const carriedIds = new Set(carried.map((t) => t.id))
  for (const tag of carried) if (!matchingIds.has(tag.id)) deleteAssignment(tx, actor, tag, target)
  for (const tag of matching) if (!carriedIds.has(tag.id)) insertAssignment(tx, actor, tag, target)
}

/**
 * Applies a Dynamic tag (just created or changed) to every record of its type its conditions
 * hold for, and removes it from the others; a tag now Manual loses what its conditions attached.
 */
export function backfillTag(tx: Queryable, actor: Actor, objectType: TagObjectType, tag: TagRow): void {
  if (tag.type === 'Dynamic') {
    const ids = new Set(sourcesOf(objectType).flatMap((s) => s.ids?.(tx) ?? []))
    for (const id of objectIdsCarrying(tx, tag.id)) ids.add(id)
    for (const id of ids) reconcile(tx, actor, objectType, id, tag)
    return
  }
  const target = (objectId: string) => ({ objectType, objectId })
  const formerly = { ...tag, type: 'Dynamic' as const }
  for (const id of objectIdsCarrying(tx, tag.id)) deleteAssignment(tx, actor, formerly, target(id))
}

const objectIdsCarrying = (db: Queryable, tagId: string) =>
  db
    .select({ id: tagAssignments.objectId })
    .from(tagAssignments)
    .where(eq(tagAssignments.tagId, tagId))
    .all()
    .map((r) => r.id)

/**
 * The object types that have Dynamic tags in this tenant (one read per recorded write). The type is
 * written into the SQL, not bound: SQLite plans a statement comparing an unindexed column with a
 * bound parameter again at each run, 8 µs of the 9 this read took (bench/README.md, seventeenth pass).
 */
const typesWithDynamicTags = (db: Queryable): Set<string> =>
  new Set(
    preparedOn(db, 'dynamic-tag-types', () =>
      db
        .selectDistinct({ objectType: tags.objectType })
        .from(tags)
        .where(sql`${tags.type} = 'Dynamic'`)
        .prepare(),
    )
      .all()
      .map((r) => r.objectType),
  )

// Tag writes (the tags' own, and the assignments this evaluator records) change no record's fields.
const reconcileWritten: WriteObserver = (tx, actor, write) => {
  if (write.action.startsWith('tag.') || sources.size === 0) return
  const dynamicTypes = typesWithDynamicTags(tx)
  if (dynamicTypes.size === 0) return
  for (const [objectType, set] of sources) {
    if (!dynamicTypes.has(objectTypes[objectType])) continue
    const changed = new Set([...set].flatMap((s) => s.changedBy(tx, write)))
    for (const id of changed) reconcile(tx, actor, objectType, id)
  }
}

/** Re-evaluates Dynamic tags after each recorded write (the family's manifest's `hooks`, index.ts). */
export function registerTagsHooks(): void {
  observeWrites(reconcileWritten)
}
