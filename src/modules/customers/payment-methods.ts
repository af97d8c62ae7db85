// Stored cards: the provider keeps the card; we keep its references (provider customer and
// payment-method ids) and what a receipt shows (brand, last four, expiry). The provider token
// sent by the client is used once and never stored, audited or logged.
import { and, asc, eq } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import type { Logger } from '../../platform/foundation/log'
import { conflict, invalid, notFound } from '../../platform/foundation/problem'
import {
  looksLikeCardNumber,
  type PaymentProvider,
  PaymentProviderError,
  providerProblem,
} from '../../platform/payments/provider'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { paymentMethodUsesOf } from './references'
import { customerPaymentMethods, type PaymentMethodRow, paymentProviderCustomers } from './schema'
import { getCustomerRow, resolveCustomerId } from './service'

export interface PaymentDeps {
  payments: PaymentProvider
  log: Logger
}

export type PaymentMethodView = PaymentMethodRow

export function listPaymentMethods(db: Queryable, customerRef: string) {
  const customerId = resolveCustomerId(db, customerRef)
  const paymentMethods = db
    .select()
    .from(customerPaymentMethods)
    .where(eq(customerPaymentMethods.customerId, customerId))
    .orderBy(asc(customerPaymentMethods.createdAt), asc(customerPaymentMethods.id))
    .all()
  return { paymentMethods, total: paymentMethods.length }
}

export function getPaymentMethod(
  db: Queryable,
  customerId: string,
  paymentMethodId: string,
): PaymentMethodRow {
  const row = db
    .select()
    .from(customerPaymentMethods)
    .where(
      and(eq(customerPaymentMethods.id, paymentMethodId), eq(customerPaymentMethods.customerId, customerId)),
    )
    .get()
  if (!row) throw notFound('payment method', paymentMethodId)
  return row
}

async function callProvider<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof PaymentProviderError) throw providerProblem(error)
    throw error
  }
}

/** Provider-customer creations in flight, per tenant, customer and provider: concurrent first cards share one. */
const creating = new Map<string, Promise<string>>()

/** The customer's account at the configured provider, created there (and recorded) on first use. */
async function providerCustomerFor(
  db: Db,
  actor: Actor,
  deps: PaymentDeps,
  customerRef: string,
): Promise<string> {
  const key = `${actor.tenantId}:${resolveCustomerId(db, customerRef)}:${deps.payments.name}`
  const pending = creating.get(key)
  if (pending) return pending
  const work = findOrCreateProviderCustomer(db, actor, deps, customerRef)
  creating.set(key, work)
  try {
    return await work
  } finally {
    creating.delete(key)
  }
}

async function findOrCreateProviderCustomer(
  db: Db,
  actor: Actor,
  deps: PaymentDeps,
  customerRef: string,
): Promise<string> {
  const customer = getCustomerRow(db, customerRef)
  const existing = db
    .select({ ref: paymentProviderCustomers.providerCustomerId })
    .from(paymentProviderCustomers)
    .where(
      and(
        eq(paymentProviderCustomers.customerId, customer.id),
        eq(paymentProviderCustomers.provider, deps.payments.name),
      ),
    )
    .orderBy(asc(paymentProviderCustomers.createdAt))
    .get()
  if (existing) return existing.ref
  const name = `${customer.firstName} ${customer.lastName}`
  const { providerCustomerId } = await callProvider(() =>
    deps.payments.createCustomer({
      customerId: customer.id,
      tenantId: actor.tenantId,
      email: customer.email,
      name,
      // What is sent is in the key: a retry after a rename is a new request, not a mismatch (400).
      idempotencyKey: `customer-${actor.tenantId}-${customer.id}-${Bun.hash(`${name}\n${customer.email}`).toString(36)}`,
    }),
  )
  inWriteTransaction(db, (tx) => {
    const customerId = resolveCustomerId(tx, customer.id)
    const recorded = tx
      .insert(paymentProviderCustomers)
      .values({
        id: newId(),
        customerId,
        provider: deps.payments.name,
        providerCustomerId,
        createdAt: nowIso(),
      })
      // Another worker asked the provider for the customer's first card at the same moment: the
      // provider answered both with one customer (the request's idempotency key), recorded there.
      .onConflictDoNothing()
      .returning({ id: paymentProviderCustomers.id })
      .get()
    if (!recorded) return
    recordWrite(tx, actor, {
      action: 'customer.provider-customer.create',
      entityType: 'customer',
      entityId: customerId,
      metadata: { provider: deps.payments.name, providerCustomerId },
    })
  })
  return providerCustomerId
}

/** A card stored or removed: audited on the customer (without expiry), announced whole. */
function recordPaymentMethod(tx: Queryable, actor: Actor, verb: 'create' | 'delete', row: PaymentMethodRow) {
  const { id, provider, providerCustomerId, providerPaymentMethodId, brand, last4 } = row
  recordWrite(tx, actor, {
    action: `customer.payment-method.${verb}`,
    entityType: 'customer',
    entityId: row.customerId,
    metadata: { paymentMethod: { id, provider, providerCustomerId, providerPaymentMethodId, brand, last4 } },
    events: [{ object: 'customer_payment_method', action: verb, aggregateId: row.customerId, payload: row }],
  })
}

export async function addPaymentMethod(
  db: Db,
  actor: Actor,
  deps: PaymentDeps,
  customerRef: string,
  providerToken: string,
): Promise<PaymentMethodView> {
  if (looksLikeCardNumber(providerToken))
    throw invalid(
      'body/providerToken',
      'send the token your payment provider’s client library returns, never a card number; the number was not stored',
    )
  const providerCustomerId = await providerCustomerFor(db, actor, deps, customerRef)
  const card = await callProvider(() => deps.payments.attachPaymentMethod(providerCustomerId, providerToken))
  try {
    return inWriteTransaction(db, (tx) => {
      const customerId = resolveCustomerId(tx, customerRef)
      const row = tx
        .insert(customerPaymentMethods)
        .values({
          id: newId(),
          customerId,
          provider: deps.payments.name,
          providerCustomerId,
          providerPaymentMethodId: card.providerPaymentMethodId,
          brand: card.brand,
          last4: card.last4,
          expMonth: card.expMonth,
          expYear: card.expYear,
          createdAt: nowIso(),
        })
        .returning()
        .get()
      recordPaymentMethod(tx, actor, 'create', row)
      return row
    })
  } catch (error) {
    // Recording failed (customer deleted meanwhile, card already stored): undo the attachment.
    await deps.payments.detachPaymentMethod(card.providerPaymentMethodId).catch(() => {
      deps.log.warn('could not detach a payment method after a failed save', {
        provider: deps.payments.name,
        providerPaymentMethodId: card.providerPaymentMethodId,
      })
    })
    throw error
  }
}

function assertUnused(db: Queryable, row: PaymentMethodRow) {
  const uses = paymentMethodUsesOf(db, row.id)
  if (Object.keys(uses).length > 0)
    throw conflict('this card is still charged by live records; change or cancel them first', {
      paymentMethodId: row.id,
      uses,
    })
}

/** Detaches a card at the provider; a card the provider no longer knows counts as detached. */
async function detachAtProvider(deps: PaymentDeps, row: PaymentMethodRow): Promise<void> {
  if (row.provider !== deps.payments.name) return // a reference of a provider no longer configured
  try {
    await deps.payments.detachPaymentMethod(row.providerPaymentMethodId)
  } catch (error) {
    if (error instanceof PaymentProviderError && error.kind === 'invalid_token') return
    if (error instanceof PaymentProviderError) throw providerProblem(error)
    throw error
  }
}

/** Detaches the card at the provider first, then removes the reference; answers the removed card. */
export async function removePaymentMethod(
  db: Db,
  actor: Actor,
  deps: PaymentDeps,
  customerRef: string,
  paymentMethodId: string,
): Promise<PaymentMethodView> {
  const customerId = resolveCustomerId(db, customerRef)
  const row = getPaymentMethod(db, customerId, paymentMethodId)
  assertUnused(db, row)
  await detachAtProvider(deps, row)
  return inWriteTransaction(db, (tx) => {
    const current = getPaymentMethod(tx, resolveCustomerId(tx, customerRef), paymentMethodId)
    assertUnused(tx, current)
    tx.delete(customerPaymentMethods).where(eq(customerPaymentMethods.id, current.id)).run()
    recordPaymentMethod(tx, actor, 'delete', current)
    return current
  })
}

/** After a customer is deleted: detach its cards at the provider, logging (not failing) misses. */
export async function detachDeletedCards(deps: PaymentDeps, rows: PaymentMethodRow[]): Promise<void> {
  for (const row of rows) {
    try {
      await detachAtProvider(deps, row)
    } catch {
      deps.log.warn('could not detach a deleted customer’s payment method', {
        provider: row.provider,
        providerPaymentMethodId: row.providerPaymentMethodId,
      })
    }
  }
}
