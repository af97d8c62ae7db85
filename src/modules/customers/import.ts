// One customer of a bulk import (the imports family's `customers` kind): an upsert by id or
// externalRef, so that applying a file twice changes nothing the second time. Each applied row is
// one audit entry (`customer.import`, naming the import and the line); events only when asked.
import { eq } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import {
  assertImportKey,
  type ImportedRow,
  type ImportOutcome,
  importEvents,
} from '../../platform/bulk-import'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { invalid } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { insertRow } from '../../platform/tenancy/row-by-id'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { attachImportedTags, manualTagIdsByTitle } from '../tags'
import { addressValues } from './address-values'
import type { ImportedCustomerInput } from './model'
import { customersByExternalRef } from './queries'
import { customerAddresses, customers } from './schema'
import { customerIdByEmail, findCustomerRow, getCustomer, newCustomerRow } from './service'

function byExternalRef(tx: Queryable, externalRef: string) {
  const found = customersByExternalRef(tx, externalRef)
  if (found.length > 1)
    throw invalid('externalRef', `${found.length} customers have this externalRef; merge them first`)
  return found[0]
}

function assertEmailFreeFor(tx: Queryable, email: string, customerId: string | undefined) {
  const holder = customerIdByEmail(tx, email)
  if (holder && holder.id !== customerId)
    throw invalid('email', 'another customer (not matched by id or externalRef) has this email')
}

const sameAddress = (a: { label: string; line1: string; postalCode: string; countryCode: string }) => {
  const key = (x: typeof a) =>
    [x.label, x.line1, x.postalCode, x.countryCode].map((v) => v.trim().toLowerCase()).join('\u0000')
  return (b: typeof a) => key(a) === key(b)
}

/**
 * Creates or updates one customer from an import row. A row fails as a whole (an ApiError naming
 * its field) and leaves nothing behind: the caller runs it in a savepoint of its own.
 */
export function importCustomer(
  db: Db,
  actor: Actor,
  input: ImportedCustomerInput,
  row: ImportedRow,
): ImportOutcome {
  return inWriteTransaction(db, (tx) => {
    assertImportKey(input)
    const existing =
      input.id !== undefined ? findCustomerRow(tx, input.id) : byExternalRef(tx, input.externalRef!)
    const tagIds = manualTagIdsByTitle(tx, 'customer', input.tags ?? [])
    if (tagIds.missing.length > 0)
      throw invalid('tags', `no Manual customer tag is titled "${tagIds.missing[0]}": create it first`)
    assertEmailFreeFor(tx, input.email, existing?.id)
    const addresses = (input.addresses ?? []).map((address, i) => addressValues(address, `addresses/${i}`))
    const now = nowIso()
    const fields = {
      externalRef: input.externalRef,
      firstName: input.firstName,
      lastName: input.lastName,
      email: input.email,
      phone: input.phone,
      status: input.status,
      marketingOptIn: input.marketingOptIn,
      notes: input.notes,
      company: input.company,
      jobTitle: input.jobTitle,
      birthDate: input.birthDate,
      createdAt: input.createdAt,
    }

    let customerId: string
    let changes: Record<string, unknown>
    if (existing) {
      customerId = existing.id
      changes = diffFields(existing, fields)
    } else {
      const created = insertRow(tx, customers, newCustomerRow(actor, input, now))
      customerId = created.id
      changes = { created: true }
    }

    const held = existing
      ? tx.select().from(customerAddresses).where(eq(customerAddresses.customerId, customerId)).all()
      : []
    const added: string[] = []
    for (const address of addresses) {
      if (held.some(sameAddress(address))) continue
      const inserted = insertRow(tx, customerAddresses, {
        id: newId(),
        customerId,
        ...address,
        createdAt: now,
        updatedAt: now,
      })
      held.push(inserted)
      added.push(inserted.id)
    }
    if (added.length > 0) changes.addressesAdded = added
    const tagsAttached = attachImportedTags(tx, 'customer', customerId, tagIds.ids)
    if (tagsAttached.length > 0) changes.tagsAttached = tagsAttached

    if (Object.keys(changes).length === 0) return 'unchanged'
    if (existing)
      tx.update(customers)
        .set({ ...withoutUndefined(fields), updatedAt: now })
        .where(eq(customers.id, customerId))
        .run()
    const outcome: ImportOutcome = existing ? 'updated' : 'created'
    const view = getCustomer(tx, customerId)
    recordWrite(tx, actor, {
      action: 'customer.import',
      entityType: 'customer',
      entityId: customerId,
      metadata: {
        importId: row.importId,
        line: row.line,
        outcome,
        ...(existing ? { changes } : { customer: view }),
      },
      events: importEvents(row, {
        object: 'customer',
        created: outcome === 'created',
        aggregateId: customerId,
        payload: () => view,
      }),
    })
    return outcome
  })
}

function withoutUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
