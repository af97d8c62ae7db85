// Tenants live in the control database; each has its own SQLite file in the pool.
import { asc, eq, sql } from 'drizzle-orm'
import { ApiError, invalid } from '../http/problem'
import { newId, nowIso } from '../ids'
import { type TenantRow, tenants } from './control-schema'
import type { ControlDb } from './databases'
import { preparedOn } from './prepared'
import { inWriteTransaction } from './transaction'

export type Tenant = TenantRow

export const slugPattern = /^[a-z0-9][a-z0-9-]{0,62}$/

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value })
    return true
  } catch {
    return false
  }
}

export function createTenant(
  control: ControlDb,
  input: { slug: string; name: string; timezone?: string },
): Tenant {
  const timezone = input.timezone ?? 'UTC'
  if (!slugPattern.test(input.slug)) throw invalid('slug', 'lower-case letters, digits and dashes, 1..63')
  if (!input.name.trim()) throw invalid('name', 'must not be empty')
  if (!isTimeZone(timezone)) throw invalid('timezone', `unknown IANA time zone "${timezone}"`)
  if (findTenantBySlug(control, input.slug))
    throw new ApiError('conflict', `tenant "${input.slug}" already exists`)
  const now = nowIso()
  return inWriteTransaction(control, (tx) =>
    tx
      .insert(tenants)
      .values({
        id: newId(),
        slug: input.slug,
        name: input.name.trim(),
        timezone,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get(),
  )
}

export const findTenantBySlug = (control: ControlDb, slug: string): Tenant | undefined =>
  preparedOn(control, 'tenant-by-slug', () =>
    control
      .select()
      .from(tenants)
      .where(eq(tenants.slug, sql.placeholder('slug')))
      .prepare(),
  ).get({ slug })

export const findTenantById = (control: ControlDb, id: string): Tenant | undefined =>
  preparedOn(control, 'tenant-by-id', () =>
    control
      .select()
      .from(tenants)
      .where(eq(tenants.id, sql.placeholder('id')))
      .prepare(),
  ).get({ id })

export const listTenants = (control: ControlDb): Tenant[] =>
  control.select().from(tenants).orderBy(asc(tenants.slug)).all()
