// POST /customers/merge: every record that points at a source customer moves to the primary in
// one transaction; each source is deleted and leaves a CustomerAlias, so its id keeps resolving
// to the primary. Families join through registerCustomerReferenceMover (references.ts).
import { eq } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { ApiError, conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { CustomerView } from './model'
import { customerReferenceMovers, customerReferencesOf, registerCustomerReferenceMover } from './references'
import {
  type AliasRow,
  type CustomerRow,
  customerAddresses,
  customerAliases,
  customerPaymentMethods,
  customers,
  paymentProviderCustomers,
} from './schema'
import { customerView } from './service'

const moveColumn =
  (table: typeof customerAddresses | typeof customerPaymentMethods | typeof paymentProviderCustomers) =>
  (tx: Queryable, sourceId: string, primaryId: string) =>
    tx
      .update(table)
      .set({ customerId: primaryId })
      .where(eq(table.customerId, sourceId))
      .returning({ id: table.id })
      .all().length

registerCustomerReferenceMover('addresses', moveColumn(customerAddresses))
registerCustomerReferenceMover('paymentMethods', moveColumn(customerPaymentMethods))
registerCustomerReferenceMover('providerCustomers', moveColumn(paymentProviderCustomers))
// Ids merged into a source earlier now resolve to the new primary directly.
registerCustomerReferenceMover(
  'aliases',
  (tx, sourceId, primaryId) =>
    tx
      .update(customerAliases)
      .set({ primaryCustomerId: primaryId })
      .where(eq(customerAliases.primaryCustomerId, sourceId))
      .returning({ id: customerAliases.sourceCustomerId })
      .all().length,
)

export interface MergeInput {
  primaryCustomerId: string
  sourceCustomerIds: string[]
}

/** A live customer by its own id; an id already merged away is 409, an unknown one 404. */
function liveCustomer(tx: Queryable, id: string, role: 'primary' | 'source'): CustomerRow {
  const row = tx.select().from(customers).where(eq(customers.id, id)).get()
  if (row) return row
  const alias = tx.select().from(customerAliases).where(eq(customerAliases.sourceCustomerId, id)).get()
  if (alias)
    throw conflict(`customer ${id} was already merged into ${alias.primaryCustomerId}`, {
      role,
      customerId: id,
      mergedInto: alias.primaryCustomerId,
      mergedAt: alias.mergedAt,
    })
  throw notFound('customer', id)
}

const fillable = [
  'externalRef',
  'phone',
  'company',
  'jobTitle',
  'spouse',
  'birthDate',
  'anniversaryDate',
] as const

/**
 * The primary's fields after absorbing a source: the primary's values win; its empty fields take
 * the source's; notes are appended; additional phones and social profiles are combined (tags move
 * as tag assignments, through their mover).
 */
function absorb(primary: CustomerRow, source: CustomerRow): CustomerRow {
  const next = { ...primary }
  for (const field of fillable)
    if (next[field] === null && source[field] !== null) next[field] = source[field]
  if (source.notes) next.notes = next.notes ? `${next.notes}\n\n${source.notes}` : source.notes
  const phones = [...next.additionalPhones, ...source.additionalPhones]
  if (source.phone && source.phone !== next.phone) phones.push(source.phone)
  next.additionalPhones = [...new Set(phones)].filter((p) => p !== next.phone)
  next.socialProfiles = { ...next.socialProfiles }
  for (const key of Object.keys(next.socialProfiles) as (keyof CustomerRow['socialProfiles'])[])
    next.socialProfiles[key] ??= source.socialProfiles[key]
  return next
}

export function mergeCustomers(
  db: Db,
  actor: Actor,
  input: MergeInput,
): { customer: CustomerView; aliases: AliasRow[] } {
  if (input.sourceCustomerIds.includes(input.primaryCustomerId))
    throw invalid('body/sourceCustomerIds', 'a customer cannot be merged into itself')
  return inWriteTransaction(db, (tx) => {
    const primary = liveCustomer(tx, input.primaryCustomerId, 'primary')
    const sources = input.sourceCustomerIds.map((id) => liveCustomer(tx, id, 'source'))
    let merged = primary
    const aliases: AliasRow[] = []
    const moved: { customerId: string; customer: CustomerView; moved: Record<string, number> }[] = []
    const mergedAt = nowIso()
    for (const source of sources) {
      const snapshot = customerView(tx, source)
      const counts: Record<string, number> = {}
      for (const [kind, mover] of customerReferenceMovers()) counts[kind] = mover(tx, source.id, primary.id)
      merged = absorb(merged, source)
      const left = customerReferencesOf(tx, source.id)
      if (Object.keys(left).length > 0)
        throw new ApiError(
          'conflict',
          `records of a kind merge does not move yet still refer to customer ${source.id}`,
          { extensions: { references: left } },
        )
      try {
        tx.delete(customers).where(eq(customers.id, source.id)).run()
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
          throw new ApiError(
            'conflict',
            `records of a kind merge does not move yet still refer to customer ${source.id}`,
          )
        throw error
      }
      aliases.push(
        tx
          .insert(customerAliases)
          .values({ sourceCustomerId: source.id, primaryCustomerId: primary.id, mergedAt })
          .returning()
          .get(),
      )
      moved.push({ customerId: source.id, customer: snapshot, moved: counts })
    }
    const { id: _id, createdAt: _c, updatedAt: _u, ...fields } = merged
    const changes = diffFields(primary, fields)
    const row = tx
      .update(customers)
      .set({ ...fields, updatedAt: mergedAt })
      .where(eq(customers.id, primary.id))
      .returning()
      .get()
    const view = customerView(tx, row)
    recordWrite(tx, actor, {
      action: 'customer.merge',
      entityType: 'customer',
      entityId: primary.id,
      metadata: { primaryCustomerId: primary.id, sources: moved, changes },
      event: {
        customer: view,
        aliases,
        moved: Object.fromEntries(moved.map((m) => [m.customerId, m.moved])),
      },
    })
    return { customer: view, aliases }
  })
}
