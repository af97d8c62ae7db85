// The resource families of the service, in the order the route table and the API document list
// them. Each declares what it brings in its index.ts (platform/family.ts); the composition roots
// (src/server.ts, the command line) loop over this list, and nothing else names the families.
import type { AnyElysia } from 'elysia'
import type { EventCatalogue } from '../platform/events/catalogue'
import { registerEventNames } from '../platform/events/names'
import type { Family } from '../platform/family'
import type { DueWorkSource } from '../platform/jobs/due-index'
import type { Platform } from '../platform/platform'
import { appsFamily } from './apps'
import { auditEntriesFamily } from './audit-entries'
import { backupsFamily } from './backups'
import { cashFamily } from './cash'
import { clubMembershipsFamily } from './club-memberships'
import { clubReleasesFamily } from './club-releases'
import { clubsFamily } from './clubs'
import { clusterFamily } from './cluster'
import { collectionsFamily } from './collections'
import { couponsFamily } from './coupons'
import { credentialsFamily } from './credentials'
import { customersFamily } from './customers'
import { eraFamily } from './era'
import { eventStreamFamily } from './event-stream'
import { experiencesFamily } from './experiences'
import { exportsFamily } from './exports'
import { giftCardsFamily } from './gift-cards'
import { healthFamily } from './health'
import { importsFamily } from './imports'
import { inventoryFamily } from './inventory'
import { laborFamily } from './labor'
import { legacyReservationsFamily } from './legacy-reservations'
import { locationsFamily } from './locations'
import { mediaFamily } from './media'
import { notesFamily } from './notes'
import { offPremiseFamily } from './off-premise'
import { ordersFamily } from './orders'
import { partnersFamily } from './partners'
import { passcodeSessionsFamily } from './passcode-sessions'
import { paymentsFamily } from './payments'
import { productsFamily } from './products'
import { shippingFamily } from './shipping'
import { staffFamily } from './staff'
import { tablesMetaFamily } from './tables-meta'
import { tablesReservationsFamily } from './tables-reservations'
import { tagsFamily } from './tags'
import { taxesFamily } from './taxes'
import { tenantsFamily } from './tenants'
import { vendorsFamily } from './vendors'
import { webhooksFamily } from './webhooks'
import { wineListsFamily } from './wine-lists'

export const families: readonly Family<unknown>[] = [
  healthFamily,
  passcodeSessionsFamily,
  staffFamily,
  locationsFamily,
  auditEntriesFamily,
  tablesMetaFamily,
  experiencesFamily,
  tablesReservationsFamily,
  legacyReservationsFamily,
  vendorsFamily,
  customersFamily,
  clubsFamily,
  clubMembershipsFamily,
  clubReleasesFamily,
  productsFamily,
  wineListsFamily,
  collectionsFamily,
  tagsFamily,
  notesFamily,
  taxesFamily,
  couponsFamily,
  inventoryFamily,
  ordersFamily,
  paymentsFamily,
  offPremiseFamily,
  shippingFamily,
  giftCardsFamily,
  cashFamily,
  appsFamily,
  mediaFamily,
  webhooksFamily,
  eventStreamFamily,
  laborFamily,
  partnersFamily,
  eraFamily,
  importsFamily,
  exportsFamily,
  credentialsFamily,
  backupsFamily,
  tenantsFamily,
  clusterFamily,
]

/** Every OpenAPI tag with what its operations are about, in the families' order. */
export const apiTags: Record<string, string> = Object.assign({}, ...families.map((f) => f.tags ?? {}))

/** Every model file, for the document to name the schemas it finds. */
export const modelFiles: Record<string, Record<string, unknown>> = Object.assign(
  {},
  ...families.map((f) => f.models ?? {}),
)

/** Every event a webhook subscriber can receive (docs/events.md and the document's `webhooks`). */
export const eventCatalogue: EventCatalogue = families.flatMap((f) => f.events ?? [])

/** Every job's answer of when a tenant next has work, handed to openPlatform by the composition roots. */
export const dueWorkSources: readonly DueWorkSource[] = families.flatMap((f) => f.dueWork ?? [])

/**
 * What every family lends the others (keyed registrations: calling again replaces), and the
 * catalogue's former event names. Each composition root calls it before any family's code runs.
 */
export function registerFamilies(): void {
  for (const f of families) f.hooks?.()
  registerEventNames(eventCatalogue)
}

/** Registers every family's jobs and answers its route plugins, in order. */
export const mountFamilies = (platform: Platform): AnyElysia[] =>
  families.flatMap((f) => f.routes?.(platform, f.jobs?.(platform)) ?? [])
