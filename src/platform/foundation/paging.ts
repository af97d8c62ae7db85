// Paging and list envelopes. Every list accepts page (>=1) and limit (default 50, max per route).
import { type AnyColumn, or, type SQL, sql } from 'drizzle-orm'
import { t } from 'elysia'

export const DEFAULT_LIMIT = 50

export interface PageRequest {
  page: number
  limit: number
}

/** Query fields `page` and `limit`, to spread into a route's query schema. */
export const pagingQuery = (maxLimit = 100) => ({
  page: t.Optional(t.Integer({ minimum: 1, default: 1, description: 'Page number, from 1.' })),
  limit: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: maxLimit,
      default: DEFAULT_LIMIT,
      description: `Page size, 1..${maxLimit}.`,
    }),
  ),
})

export const pageOf = (query: { page?: number; limit?: number }): PageRequest => ({
  page: query.page ?? 1,
  limit: query.limit ?? DEFAULT_LIMIT,
})

export const offsetOf = ({ page, limit }: PageRequest): number => (page - 1) * limit

/** `{total, page, limit}` of the "named list with paging" envelope. */
export const pageInfoSchema = t.Object({
  total: t.Integer({ minimum: 0 }),
  page: t.Integer({ minimum: 1 }),
  limit: t.Integer({ minimum: 1 }),
})

/** `{total}` of the "named list with page" envelope. */
export const pageTotalSchema = t.Object({ total: t.Integer({ minimum: 0 }) })

/**
 * The `q` search of list routes: true when any column (or SQL expression, such as a full name)
 * contains the text, case-insensitively,
 * with `%` and `_` taken literally. Undefined (no condition) for an empty search.
 */
export function searchColumns(q: string | undefined, columns: readonly (AnyColumn | SQL)[]): SQL | undefined {
  const text = q?.trim().toLowerCase()
  if (!text) return undefined
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
  return or(...columns.map((column) => sql`lower(${column}) LIKE ${pattern} ESCAPE '\\'`))
}
