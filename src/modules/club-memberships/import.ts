// One club membership of a bulk import (the imports family's `club-memberships` kind): an upsert
// by id or externalRef, so that applying a file twice changes nothing the second time. The member
// is a customer already there (imported first), named by id or externalRef; the saved card comes
// as provider references and is stored as the customer's payment method (customers' own audit
// entry). Each applied row is one `club_membership.import` entry, naming the import and the line;
// events only when asked.
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
import { todayIn } from '../../platform/foundation/dates'
import { newId, nowIso } from '../../platform/foundation/ids'
import { invalid } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { timeZoneOfTenant } from '../../platform/tenancy/time-zones'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { clubByReference } from '../clubs'
import {
  addressesOfCustomer,
  customerIdsByExternalRef,
  findCustomerRow,
  importPaymentMethod,
} from '../customers'
import type { ImportedClubMembershipInput } from './model'
import { type ClubMembershipRow, clubMemberships } from './schema'
import { scheduleOf } from './service'

function memberOf(tx: Queryable, reference: string): string {
  const customer = findCustomerRow(tx, reference)
  if (customer) return customer.id
  const ids = customerIdsByExternalRef(tx, reference)
  if (ids.length > 1) throw invalid('customer', 'several customers have this externalRef')
  if (ids.length === 0) throw invalid('customer', 'no customer has this id or externalRef: import them first')
  return ids[0]!
}

function clubOf(tx: Queryable, reference: string): string {
  const club = clubByReference(tx, reference)
  if (club === 'ambiguous')
    throw invalid('club', 'several clubs have this title: name the club by id or slug')
  if (!club) throw invalid('club', 'no club has this id, slug or title')
  return club.id
}

function existingOf(tx: Queryable, input: ImportedClubMembershipInput): ClubMembershipRow | undefined {
  if (input.id !== undefined)
    return tx.select().from(clubMemberships).where(eq(clubMemberships.id, input.id)).get()
  const found = tx
    .select()
    .from(clubMemberships)
    .where(eq(clubMemberships.externalRef, input.externalRef!))
    .limit(2)
    .all()
  if (found.length > 1) throw invalid('externalRef', 'several memberships have this externalRef')
  return found[0]
}

/**
 * The row's status and the dates that go with it, which the row gives in full (no status is
 * Active). A hold that has ended by `today` lands released, as the hold-release job would leave
 * it, so that applying the file again still changes nothing.
 */
function standing(input: ImportedClubMembershipInput, today: string) {
  const held = input.status === 'On Hold' && input.holdUntil !== undefined && input.holdUntil <= today
  const status = held ? 'Active' : (input.status ?? 'Active')
  if (input.cancelDate !== undefined && status !== 'Cancelled')
    throw invalid('cancelDate', 'only a Cancelled membership has a cancelDate')
  if (status === 'Cancelled' && input.cancelDate === undefined)
    throw invalid('cancelDate', 'a Cancelled membership needs its cancelDate')
  if (input.cancelDate !== undefined && input.cancelDate < input.signupDate)
    throw invalid('cancelDate', 'is before the signupDate')
  if (input.holdUntil !== undefined && input.status !== 'On Hold')
    throw invalid('holdUntil', 'only an On Hold membership has holdUntil')
  if (status === 'On Hold' && input.holdUntil === undefined)
    throw invalid('holdUntil', 'an On Hold membership needs holdUntil')
  return {
    status,
    cancelDate: input.cancelDate ?? null,
    cancelReason: status === 'Cancelled' ? (input.cancelReason ?? null) : null,
    holdUntil: status === 'On Hold' ? input.holdUntil! : null,
    holdReason: status === 'On Hold' ? (input.holdReason ?? null) : null,
  }
}

/** The card's columns, all or none: a reference without its card's details fails the row. */
function cardOf(input: ImportedClubMembershipInput) {
  const card = {
    providerCustomerId: input.providerCustomerId,
    providerPaymentMethodId: input.providerPaymentMethodId,
    cardBrand: input.cardBrand,
    cardLast4: input.cardLast4,
    cardExpMonth: input.cardExpMonth,
    cardExpYear: input.cardExpYear,
  }
  const given = Object.entries(card).filter(([, value]) => value !== undefined)
  if (given.length === 0) return undefined
  const missing = Object.entries(card).find(([, value]) => value === undefined)?.[0]
  if (missing)
    throw invalid(missing, 'a saved card needs its provider references, brand, last four and expiry')
  return {
    providerCustomerId: card.providerCustomerId!,
    providerPaymentMethodId: card.providerPaymentMethodId!,
    brand: card.cardBrand!.toLowerCase(),
    last4: card.cardLast4!,
    expMonth: card.cardExpMonth!,
    expYear: card.cardExpYear!,
  }
}

/** Where a shipping member's orders go: the ship-to kept, else their shipping address, else their newest. */
function shipTo(tx: Queryable, customerId: string, current: string | null): string {
  const addresses = addressesOfCustomer(tx, customerId)
  const kept = addresses.find((a) => a.id === current)
  const chosen = kept ?? addresses.find((a) => a.label.toLowerCase() === 'shipping') ?? addresses[0]
  if (!chosen)
    throw invalid('orderDeliveryMethod', 'Ship needs an address of the customer: import their address first')
  return chosen.id
}

/**
 * Creates or updates one membership from an import row. A row fails as a whole (an ApiError naming
 * its field) and leaves nothing behind: the caller runs it in a savepoint of its own. Unlike a
 * sign-up, a club not open for sign-ups takes imported members (they are history).
 */
export function importClubMembership(
  db: Db,
  actor: Actor,
  input: ImportedClubMembershipInput,
  row: ImportedRow,
): ImportOutcome {
  return inWriteTransaction(db, (tx) => {
    assertImportKey(input)
    const customerId = memberOf(tx, input.customer)
    const clubId = clubOf(tx, input.club)
    const existing = existingOf(tx, input)
    if (existing && existing.customerId !== customerId)
      throw invalid('customer', 'this membership belongs to another customer')
    if (existing && existing.clubId !== clubId)
      throw invalid('club', 'this membership is of another club: cancel it and import a new one')
    const state = standing(input, todayIn(timeZoneOfTenant(actor.tenantId)))
    if (state.status !== 'Cancelled') {
      // By the customer alone: a customer holds a few memberships, a club thousands (the planner
      // would otherwise pick the club's index, one scan of its members a row).
      const live = tx
        .select({ id: clubMemberships.id, clubId: clubMemberships.clubId, status: clubMemberships.status })
        .from(clubMemberships)
        .where(eq(clubMemberships.customerId, customerId))
        .all()
        .find((m) => m.clubId === clubId && m.status !== 'Cancelled' && m.id !== existing?.id)
      if (live) throw invalid('club', `the customer already has a live membership of this club (${live.id})`)
    }
    const card = cardOf(input)
    const stored = card && importPaymentMethod(tx, actor, customerId, card, row)
    const orderDeliveryMethod = input.orderDeliveryMethod ?? 'Pickup'
    const fields = {
      externalRef: input.externalRef ?? existing?.externalRef ?? null,
      ...state,
      orderDeliveryMethod,
      shipToCustomerAddressId:
        orderDeliveryMethod === 'Ship'
          ? shipTo(tx, customerId, existing?.shipToCustomerAddressId ?? null)
          : (existing?.shipToCustomerAddressId ?? null),
      signupDate: input.signupDate,
      lastProcessedDate: input.lastProcessedDate ?? existing?.lastProcessedDate ?? null,
      currentNumberOfShipments: input.currentNumberOfShipments ?? existing?.currentNumberOfShipments ?? 0,
      ...(stored
        ? {
            customerCreditCardId: stored.id,
            providerCustomerId: stored.providerCustomerId,
            providerPaymentMethodId: stored.providerPaymentMethodId,
          }
        : {}),
      ...(input.createdAt !== undefined ? { createdAt: input.createdAt } : {}),
    }
    const schedule = { clubId, cadenceOverride: existing?.cadenceOverride ?? null, ...fields }
    const next = { ...fields, nextProcessDate: scheduleOf(tx, schedule) }
    const now = nowIso()

    let membership: ClubMembershipRow
    let changes: Record<string, unknown>
    if (existing) {
      changes = diffFields(existing, next)
      if (Object.keys(changes).length === 0) return 'unchanged'
      membership = tx
        .update(clubMemberships)
        .set({ ...next, updatedAt: now })
        .where(eq(clubMemberships.id, existing.id))
        .returning()
        .get()
    } else {
      membership = tx
        .insert(clubMemberships)
        .values({
          id: input.id ?? newId(),
          customerId,
          clubId,
          billToCustomerAddressId: null,
          customerCreditCardId: null,
          providerCustomerId: null,
          providerPaymentMethodId: null,
          subscriptionTemplateId: null,
          cadenceOverride: null,
          locationId: actor.locationId,
          createdAt: now,
          ...next,
          updatedAt: now,
        })
        .returning()
        .get()
      changes = { created: true }
    }
    const outcome: ImportOutcome = existing ? 'updated' : 'created'
    recordWrite(tx, actor, {
      action: 'club_membership.import',
      entityType: 'club_membership',
      entityId: membership.id,
      metadata: {
        importId: row.importId,
        line: row.line,
        outcome,
        ...(existing ? { changes } : { clubMembership: membership }),
      },
      events: importEvents(row, {
        object: 'club_membership',
        created: outcome === 'created',
        aggregateId: membership.id,
        payload: () => membership,
      }),
    })
    return outcome
  })
}
