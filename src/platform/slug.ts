// URL handles (`slug`) of catalog records: lower-case ASCII letters, digits and single hyphens.
import { and, ne, type SQL, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Queryable } from './tenancy/transaction'

export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$'
const MAX_SLUG = 100

/** "Château Margaux 2015!" -> "chateau-margaux-2015"; `fallback` when nothing is left. */
export function slugify(text: string, fallback: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/, '')
  return slug || fallback
}

/** Whether another row than `exceptId` holds `slug` (case-insensitively). */
export function slugTaken(
  db: Queryable,
  table: SQLiteTable,
  columns: { id: SQLiteColumn; slug: SQLiteColumn },
  slug: string,
  exceptId?: string,
): boolean {
  const where: SQL | undefined = and(
    sql`lower(${columns.slug}) = ${slug.toLowerCase()}`,
    exceptId === undefined ? undefined : ne(columns.id, exceptId),
  )
  return db.select({ id: columns.id }).from(table).where(where).limit(1).get() !== undefined
}

/** The slug of `title`, with `-2`, `-3`... appended until no other row holds it. */
export function uniqueSlug(
  db: Queryable,
  table: SQLiteTable,
  columns: { id: SQLiteColumn; slug: SQLiteColumn },
  title: string,
  fallback: string,
): string {
  const base = slugify(title, fallback)
  let candidate = base
  for (let n = 2; slugTaken(db, table, columns, candidate); n++) {
    candidate = `${base.slice(0, MAX_SLUG - String(n).length - 1)}-${n}`
  }
  return candidate
}
