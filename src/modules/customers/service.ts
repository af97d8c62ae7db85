import { and, asc, count, eq, getTableColumns, inArray, or, type SQL, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { conflict, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { jsonRows, parseJsonRows } from '../../platform/tenancy/json-rows'
import { preparedOn } from '../../platform/tenancy/prepared'
import { insertRow, rowById } from '../../platform/tenancy/row-by-id'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { assertManualTagIds, removeAssignmentsOf, replaceTags, tagsForMany, tagsJsonOf } from '../tags'
import { addressValues } from './address-values'
import type { AddressView, CreateCustomerInput, CustomerView, UpdateCustomerInput } from './model'
import { customerLocationLinks, customerReferencesOf } from './references'
import {
  type AddressRow,
  type CustomerRow,
  customerAddresses,
  customerAliases,
  customerPaymentMethods,
  customers,
  type PaymentMethodRow,
  type SocialProfiles,
} from './schema'

/**
 * The live customer an id stands for: the customer itself, or, for an id merged away, the
 * primary it was merged into. 404 otherwise (including another tenant's id).
 */
export function resolveCustomerId(db: Queryable, id: string): string {
  const row = db.select({ id: customers.id }).from(customers).where(eq(customers.id, id)).get()
  if (row) return row.id
  const alias = db
    .select({ primary: customerAliases.primaryCustomerId })
    .from(customerAliases)
    .where(eq(customerAliases.sourceCustomerId, id))
    .get()
  if (alias) return alias.primary
  throw notFound('customer', id)
}

/** The customer an id names, or the primary it was merged into; undefined when neither exists. */
export function findCustomerRow(db: Queryable, id: string): CustomerRow | undefined {
  const primary =
    db
      .select({ id: customerAliases.primaryCustomerId })
      .from(customerAliases)
      .where(eq(customerAliases.sourceCustomerId, id))
      .get()?.id ?? id
  return db.select().from(customers).where(eq(customers.id, primary)).get()
}

// A customer read is the hottest read of the API: the customer, its addresses and its tags come
// from one prepared statement (children as JSON arrays), built once per connection.
interface CustomerViewRow extends CustomerRow {
  addressesJson: string
  tagsJson: string
}

const customerViewById = (db: Queryable, id: string): CustomerViewRow | undefined =>
  preparedOn(db, 'customer-view-by-id', () =>
    db
      .select({
        ...getTableColumns(customers),
        addressesJson: jsonRows(customerAddresses, customerAddresses.customerId, customers.id, [
          customerAddresses.createdAt,
          customerAddresses.id,
        ]),
        tagsJson: tagsJsonOf('customer', customers.id),
      })
      .from(customers)
      .where(eq(customers.id, sql.placeholder('id')))
      .prepare(),
  ).get({ id })

function viewOf({ addressesJson, tagsJson, ...row }: CustomerViewRow): CustomerView {
  return {
    ...row,
    tags: parseJsonRows<{ id: string; title: string }>(tagsJson),
    addresses: parseJsonRows<AddressRow>(addressesJson),
  }
}

/** The customer, or the primary it was merged into. */
export function getCustomerRow(db: Queryable, id: string): CustomerRow {
  const row = rowById(db, customers, id) ?? rowById(db, customers, resolveCustomerId(db, id))
  if (!row) throw notFound('customer', id)
  return row
}

const addressView = (row: AddressRow): AddressView => row

function addressesOf(db: Queryable, customerIds: string[]): Map<string, AddressView[]> {
  const byCustomer = new Map<string, AddressView[]>()
  if (customerIds.length === 0) return byCustomer
  const rows = db
    .select()
    .from(customerAddresses)
    .where(inArray(customerAddresses.customerId, customerIds))
    .orderBy(asc(customerAddresses.createdAt), asc(customerAddresses.id))
    .all()
  for (const row of rows) {
    const list = byCustomer.get(row.customerId) ?? []
    list.push(addressView(row))
    byCustomer.set(row.customerId, list)
  }
  return byCustomer
}

export function customerViews(db: Queryable, rows: CustomerRow[]): CustomerView[] {
  const ids = rows.map((r) => r.id)
  const addresses = addressesOf(db, ids)
  const tags = tagsForMany(db, 'customer', ids)
  return rows.map((row) => ({
    ...row,
    tags: (tags.get(row.id) ?? []).map((tag) => ({ id: tag.id, title: tag.title })),
    addresses: addresses.get(row.id) ?? [],
  }))
}

export const customerView = (db: Queryable, row: CustomerRow): CustomerView => getCustomer(db, row.id)

export function getCustomer(db: Queryable, id: string): CustomerView {
  const found = customerViewById(db, id) ?? customerViewById(db, resolveCustomerId(db, id))
  if (!found) throw notFound('customer', id)
  return viewOf(found)
}

export interface CustomerListQuery extends PageRequest {
  q?: string
  locationId?: string
}

export function listCustomers(
  db: Queryable,
  query: CustomerListQuery,
): { customers: CustomerView[]; total: number } {
  const search = searchColumns(query.q, [
    customers.firstName,
    customers.lastName,
    sql`${customers.firstName} || ' ' || ${customers.lastName}`,
    customers.email,
    customers.phone,
  ])
  let atLocation: SQL | undefined
  if (query.locationId) {
    const locationId = query.locationId
    const links = [...customerLocationLinks().values()].map((link) =>
      inArray(customers.id, link(db, locationId)),
    )
    atLocation = or(eq(customers.originLocationId, locationId), ...links)
  }
  const filter = and(search, atLocation)
  const total = db.select({ n: count() }).from(customers).where(filter).get()?.n ?? 0
  const rows = db
    .select()
    .from(customers)
    .where(filter)
    .orderBy(
      asc(sql`lower(${customers.lastName})`),
      asc(sql`lower(${customers.firstName})`),
      asc(customers.id),
    )
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { customers: customerViews(db, rows), total }
}

// Every create and email change checks: prepared once per connection (the unique index on
// lower(email) answers it).
export const customerIdByEmail = (db: Queryable, email: string) =>
  preparedOn(db, 'customer-id-by-email', () =>
    db
      .select({ id: customers.id })
      .from(customers)
      .where(eq(sql`lower(${customers.email})`, sql`lower(${sql.placeholder('email')})`))
      .prepare(),
  ).get({ email })

export function assertEmailFree(db: Queryable, email: string, exceptId?: string): void {
  const holder = customerIdByEmail(db, email)
  if (holder && holder.id !== exceptId)
    throw conflict(`a customer with email "${email}" already exists`, { customerId: holder.id })
}

const emptySocial: SocialProfiles = { facebook: null, x: null, instagram: null, linkedin: null }

/** The profiles sent replace those of `base`; profiles not sent keep their value. */
function withProfiles(
  base: SocialProfiles,
  patch: Partial<Record<keyof SocialProfiles, string | null>> = {},
) {
  const next = { ...base }
  for (const key of Object.keys(emptySocial) as (keyof SocialProfiles)[]) {
    const value = patch[key]
    if (value !== undefined) next[key] = value
  }
  return next
}

/** What a new customer's row is made from: a create's body, or an imported record (its id and time kept). */
type NewCustomerInput = Pick<CreateCustomerInput, 'firstName' | 'lastName' | 'email'> &
  Partial<Omit<CreateCustomerInput, 'firstName' | 'lastName' | 'email'>> & { id?: string; createdAt?: string }

/** A new customer's row, made here or by an import: whatever `input` leaves out takes its default. */
export function newCustomerRow(actor: Actor, input: NewCustomerInput, now: string) {
  return {
    id: input.id ?? newId(),
    externalRef: input.externalRef ?? null,
    firstName: input.firstName,
    lastName: input.lastName,
    email: input.email,
    phone: input.phone ?? null,
    status: input.status ?? 'active',
    marketingOptIn: input.marketingOptIn ?? false,
    notes: input.notes ?? null,
    company: input.company ?? null,
    jobTitle: input.jobTitle ?? null,
    spouse: input.spouse ?? null,
    additionalPhones: input.additionalPhones ?? [],
    birthDate: input.birthDate ?? null,
    anniversaryDate: input.anniversaryDate ?? null,
    socialProfiles: withProfiles(emptySocial, input.socialProfiles),
    originLocationId: actor.locationId,
    createdAt: input.createdAt ?? now,
    updatedAt: now,
  }
}

export function createCustomer(db: Db, actor: Actor, input: CreateCustomerInput): CustomerView {
  return inWriteTransaction(db, (tx) => {
    assertEmailFree(tx, input.email)
    if (input.tags) assertManualTagIds(tx, 'customer', input.tags, 'body/tags')
    const now = nowIso()
    const row = insertRow(tx, customers, newCustomerRow(actor, input, now))
    // Inserted in order with one timestamp: ordered as the view orders them (created, then id).
    const addresses = (input.addresses ?? [])
      .map((address, i) =>
        insertRow(tx, customerAddresses, {
          id: newId(),
          customerId: row.id,
          ...addressValues(address, `body/addresses/${i}`),
          createdAt: now,
          updatedAt: now,
        }),
      )
      .sort((a, b) => (a.id < b.id ? -1 : 1))
    // Joins this transaction: the tag assignments (each audited) commit with the customer.
    const tagRows = input.tags?.length
      ? replaceTags(db, actor, { objectType: 'customer', objectId: row.id }, input.tags)
      : []
    // The view from what was written, not read back: the same shape getCustomer answers.
    const view: CustomerView = {
      ...row,
      tags: tagRows.map((tag) => ({ id: tag.id, title: tag.title })),
      addresses: addresses.map(addressView),
    }
    recordWrite(tx, actor, {
      action: 'customer.create',
      entityType: 'customer',
      entityId: row.id,
      metadata: { customer: view },
      event: view,
    })
    return view
  })
}

export function updateCustomer(db: Db, actor: Actor, id: string, patch: UpdateCustomerInput): CustomerView {
  return inWriteTransaction(db, (tx) => {
    const before = getCustomerRow(tx, id)
    if (patch.email !== undefined) assertEmailFree(tx, patch.email, before.id)
    const { tags: tagIds, ...fields } = patch
    if (tagIds) assertManualTagIds(tx, 'customer', tagIds, 'body/tags')
    const next = {
      ...fields,
      socialProfiles: fields.socialProfiles && withProfiles(before.socialProfiles, fields.socialProfiles),
    }
    const changes = diffFields(before, next)
    if (tagIds) {
      const beforeTags = customerView(tx, before).tags.map((t) => t.id)
      const afterTags = replaceTags(db, actor, { objectType: 'customer', objectId: before.id }, tagIds).map(
        (t) => t.id,
      )
      if (JSON.stringify(beforeTags) !== JSON.stringify(afterTags))
        changes.tags = { from: beforeTags, to: afterTags }
    }
    if (Object.keys(changes).length === 0) return customerView(tx, before)
    const row = tx
      .update(customers)
      .set({ ...next, updatedAt: nowIso() })
      .where(eq(customers.id, before.id))
      .returning()
      .get()
    const view = customerView(tx, row)
    recordWrite(tx, actor, {
      action: 'customer.update',
      entityType: 'customer',
      entityId: row.id,
      metadata: { changes },
      event: view,
    })
    return view
  })
}

/** A change to a customer made through its addresses or tags: its audit action and metadata. */
export interface CustomerPartChange {
  action: string
  metadata: Record<string, unknown>
}

/**
 * Bumps updatedAt after a change to a customer's addresses or tags, records the change on the
 * customer and announces the customer as updated (`customer.update`).
 */
export function touchCustomer(
  tx: Queryable,
  actor: Actor,
  customerId: string,
  change: CustomerPartChange,
): CustomerView {
  const row = tx
    .update(customers)
    .set({ updatedAt: nowIso() })
    .where(eq(customers.id, customerId))
    .returning()
    .get()
  if (!row) throw notFound('customer', customerId)
  const view = customerView(tx, row)
  recordWrite(tx, actor, {
    ...change,
    entityType: 'customer',
    entityId: row.id,
    events: [{ object: 'customer', action: 'update', aggregateId: row.id, payload: view }],
  })
  return view
}

/**
 * Deletes a customer with its addresses, stored-card references, aliases and tag assignments.
 * Refused (409) while other records (club memberships, notes, gift cards, ...) still point at it:
 * mark it inactive or merge it instead. Answers the deleted customer and the cards the caller
 * should detach at the provider.
 */
export function deleteCustomer(
  db: Db,
  actor: Actor,
  id: string,
): { customer: CustomerView; paymentMethods: PaymentMethodRow[] } {
  return inWriteTransaction(db, (tx) => {
    const row = getCustomerRow(tx, id)
    const view = customerView(tx, row)
    const references = customerReferencesOf(tx, row.id)
    if (Object.keys(references).length > 0)
      throw conflict(
        `other records (${Object.entries(references)
          .map(([kind, n]) => `${n} ${kind}`)
          .join(', ')}) still refer to this customer; set it inactive or merge it instead`,
        { customerId: row.id, references },
      )
    removeAssignmentsOf(tx, 'customer', row.id)
    const paymentMethods = tx
      .select()
      .from(customerPaymentMethods)
      .where(eq(customerPaymentMethods.customerId, row.id))
      .all()
    try {
      tx.delete(customers).where(eq(customers.id, row.id)).run()
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
        throw conflict(
          'other records (club memberships, orders, ...) still refer to this customer; set it inactive or merge it instead',
          {
            customerId: row.id,
          },
        )
      throw error
    }
    recordWrite(tx, actor, {
      action: 'customer.delete',
      entityType: 'customer',
      entityId: row.id,
      metadata: {
        customer: view,
        paymentMethods: paymentMethods.map((m) => ({
          id: m.id,
          provider: m.provider,
          providerPaymentMethodId: m.providerPaymentMethodId,
        })),
      },
      event: view,
    })
    return { customer: view, paymentMethods }
  })
}
