// A saved card arriving with a bulk import (the imports family's `club-memberships` kind): only
// the provider's references (customer and payment-method ids) and what a receipt shows (brand,
// last four, expiry), never a number. Stored as the customer's payment method, so club
// processing charges it like a card added through `/customers/{id}/payment-methods`.
import { and, eq } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { ImportedRow } from '../../platform/bulk-import'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { invalid } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { customerPaymentMethods, type PaymentMethodRow } from './schema'

export interface ImportedCard {
  providerCustomerId: string
  providerPaymentMethodId: string
  brand: string
  last4: string
  expMonth: number
  expYear: number
}

/** The provider a pair of references belongs to, by the prefixes each provider gives its ids. */
function providerOf(card: ImportedCard): PaymentMethodRow['provider'] {
  if (card.providerCustomerId.startsWith('sandbox_cus_')) {
    if (!card.providerPaymentMethodId.startsWith('sandbox_pm_'))
      throw invalid('providerPaymentMethodId', 'a sandbox payment method id starts with sandbox_pm_')
    return 'sandbox'
  }
  if (!card.providerCustomerId.startsWith('cus_'))
    throw invalid(
      'providerCustomerId',
      'not a provider customer id: a Stripe customer id starts with cus_ (a sandbox one with sandbox_cus_)',
    )
  if (!/^(pm|card|src)_/.test(card.providerPaymentMethodId))
    throw invalid(
      'providerPaymentMethodId',
      'not a Stripe payment method id: it starts with pm_, card_ or src_',
    )
  return 'stripe'
}

/**
 * The customer's stored card for these references: found by its provider's payment-method id (and
 * brought up to date: a provider's card updater changes expiries), or stored. A card stored for
 * another customer fails the row. Audited (`customer.payment-method.import`, naming the import and
 * the line) when it changes anything; its event only when the import emits events.
 */
export function importPaymentMethod(
  tx: Queryable,
  actor: Actor,
  customerId: string,
  card: ImportedCard,
  row: ImportedRow,
): PaymentMethodRow {
  const provider = providerOf(card)
  const existing = tx
    .select()
    .from(customerPaymentMethods)
    .where(
      and(
        eq(customerPaymentMethods.provider, provider),
        eq(customerPaymentMethods.providerPaymentMethodId, card.providerPaymentMethodId),
      ),
    )
    .get()
  if (existing && existing.customerId !== customerId)
    throw invalid('providerPaymentMethodId', 'this payment method is stored for another customer')
  const fields = { provider, ...card }
  let stored: PaymentMethodRow
  let metadata: Record<string, unknown>
  if (existing) {
    const changes = diffFields(existing, fields)
    if (Object.keys(changes).length === 0) return existing
    stored = tx
      .update(customerPaymentMethods)
      .set(fields)
      .where(eq(customerPaymentMethods.id, existing.id))
      .returning()
      .get()
    // Which fields changed, not their values: the card's audit leaves its expiry out.
    metadata = { changed: Object.keys(changes) }
  } else {
    stored = tx
      .insert(customerPaymentMethods)
      .values({ id: newId(), customerId, ...fields, createdAt: nowIso() })
      .returning()
      .get()
    const { id, providerCustomerId, providerPaymentMethodId, brand, last4 } = stored
    metadata = { paymentMethod: { id, provider, providerCustomerId, providerPaymentMethodId, brand, last4 } }
  }
  recordWrite(tx, actor, {
    action: 'customer.payment-method.import',
    entityType: 'customer',
    entityId: customerId,
    metadata: {
      importId: row.importId,
      line: row.line,
      outcome: existing ? 'updated' : 'created',
      ...metadata,
    },
    events:
      row.emitEvents && !existing
        ? [{ object: 'customer_payment_method', action: 'create', aggregateId: customerId, payload: stored }]
        : [],
  })
  return stored
}
