// One tag by id, of one object type: what the service and the assignments both look up.
import { and, eq } from 'drizzle-orm'
import { notFound } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { objectTypes, type TagObjectType } from './fields'
import { type TagRow, tags } from './schema'

export function getTag(db: Queryable, objectType: TagObjectType, id: string): TagRow {
  const row = db
    .select()
    .from(tags)
    .where(and(eq(tags.id, id), eq(tags.objectType, objectTypes[objectType])))
    .get()
  if (!row) throw notFound(`${objectType} tag`, id)
  return row
}
