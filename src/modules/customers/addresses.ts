// A customer's addresses: billing, shipping and the like. Club memberships point at them, so
// an address still used as a membership's bill-to or ship-to cannot be deleted.
import { and, asc, eq } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { conflict, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { addressValues, countryCode } from './address-values'
import type { CreateAddressInput, UpdateAddressInput } from './model'
import { type AddressRow, customerAddresses } from './schema'
import { resolveCustomerId, touchCustomer } from './service'

/** An address of this customer, or 404 (an address of another customer is not found either). */
export function getAddress(db: Queryable, customerId: string, addressId: string): AddressRow {
  const row = db
    .select()
    .from(customerAddresses)
    .where(and(eq(customerAddresses.id, addressId), eq(customerAddresses.customerId, customerId)))
    .get()
  if (!row) throw notFound('address', addressId)
  return row
}

export function listAddresses(db: Queryable, customerRef: string) {
  const customerId = resolveCustomerId(db, customerRef)
  const addresses = db
    .select()
    .from(customerAddresses)
    .where(eq(customerAddresses.customerId, customerId))
    .orderBy(asc(customerAddresses.createdAt), asc(customerAddresses.id))
    .all()
  return { addresses, total: addresses.length }
}

export function createAddress(
  db: Db,
  actor: Actor,
  customerRef: string,
  input: CreateAddressInput,
): AddressRow {
  return inWriteTransaction(db, (tx) => {
    const customerId = resolveCustomerId(tx, customerRef)
    const now = nowIso()
    const row = tx
      .insert(customerAddresses)
      .values({ id: newId(), customerId, ...addressValues(input), createdAt: now, updatedAt: now })
      .returning()
      .get()
    touchCustomer(tx, actor, customerId, { action: 'customer.address.create', metadata: { address: row } })
    return row
  })
}

export function updateAddress(
  db: Db,
  actor: Actor,
  customerRef: string,
  addressId: string,
  patch: UpdateAddressInput,
): AddressRow {
  return inWriteTransaction(db, (tx) => {
    const customerId = resolveCustomerId(tx, customerRef)
    const before = getAddress(tx, customerId, addressId)
    const next = patch.countryCode
      ? { ...patch, countryCode: countryCode(patch.countryCode, 'body/countryCode') }
      : patch
    const changes = diffFields(before, next)
    if (Object.keys(changes).length === 0) return before
    const row = tx
      .update(customerAddresses)
      .set({ ...next, updatedAt: nowIso() })
      .where(eq(customerAddresses.id, addressId))
      .returning()
      .get()
    touchCustomer(tx, actor, customerId, {
      action: 'customer.address.update',
      metadata: { addressId, changes },
    })
    return row
  })
}

export function deleteAddress(db: Db, actor: Actor, customerRef: string, addressId: string): AddressRow {
  return inWriteTransaction(db, (tx) => {
    const customerId = resolveCustomerId(tx, customerRef)
    const row = getAddress(tx, customerId, addressId)
    try {
      tx.delete(customerAddresses).where(eq(customerAddresses.id, addressId)).run()
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
        throw conflict(
          'a club membership uses this address as its bill-to or ship-to address; change the membership first',
          {
            addressId,
          },
        )
      throw error
    }
    touchCustomer(tx, actor, customerId, { action: 'customer.address.delete', metadata: { address: row } })
    return row
  })
}
