import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { clubMemberships } from '../club-memberships/schema'
import { clubs } from '../clubs/schema'

export const releaseStatuses = ['Planning', 'Active', 'Archived'] as const
export type ReleaseStatus = (typeof releaseStatuses)[number]
export const deliveryMethods = ['Ship', 'Pickup'] as const
export type DeliveryMethod = (typeof deliveryMethods)[number]

/** One wine of a release: a variant, how many of it, and the release price (null: catalog price). */
export interface ReleaseItemValue {
  productVariantId: string
  sku: string
  title: string
  quantity: number
  price: number | null
}

/** A club shipment: what a club sends its members on a process date, and charges them for. */
export const clubReleases = sqliteTable(
  'club_releases',
  {
    id: text('id').primaryKey(),
    clubId: text('club_id')
      .notNull()
      .references(() => clubs.id),
    title: text('title').notNull(),
    status: text('status', { enum: releaseStatuses }).notNull(),
    /** The tenant's local date the scheduler processes an Active release on. */
    processDate: text('process_date').notNull(),
    shipDate: text('ship_date'),
    items: text('items', { mode: 'json' }).$type<ReleaseItemValue[]>().notNull(),
    deliveryMethods: text('delivery_methods', { mode: 'json' }).$type<DeliveryMethod[]>().notNull(),
    activatedAt: text('activated_at'),
    archivedAt: text('archived_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    index('club_releases_club').on(table.clubId, table.processDate),
    index('club_releases_due').on(table.status, table.processDate),
  ],
)

export const runTriggers = ['manual', 'schedule', 'retry'] as const
export const runStatuses = ['Queued', 'Running', 'Completed', 'Failed'] as const

/** One pass over a release's memberships (a process request, the scheduler, or a retry of declines). */
export const clubReleaseRuns = sqliteTable(
  'club_release_runs',
  {
    id: text('id').primaryKey(),
    releaseId: text('release_id')
      .notNull()
      .references(() => clubReleases.id),
    trigger: text('trigger_kind', { enum: runTriggers }).notNull(),
    status: text('status', { enum: runStatuses }).notNull(),
    requestedBy: text('requested_by').notNull(),
    error: text('error'),
    createdAt: text('created_at').notNull(),
    startedAt: text('started_at'),
    /** Moved on after every membership a Running run takes: a stale one means its process died. */
    heartbeatAt: text('heartbeat_at'),
    finishedAt: text('finished_at'),
  },
  (table) => [
    index('club_release_runs_release').on(table.releaseId, table.status),
    // The scheduler starts a release once, however many ticks see it due.
    uniqueIndex('club_release_runs_scheduled').on(table.releaseId).where(sql`trigger_kind = 'schedule'`),
  ],
)

export const shipmentStatuses = ['Pending', 'Processed', 'Declined', 'Skipped', 'OnHold'] as const
export type ShipmentStatus = (typeof shipmentStatuses)[number]

/** A membership's part of a release: at most one per (release, membership), whatever runs. */
export const clubShipments = sqliteTable(
  'club_shipments',
  {
    id: text('id').primaryKey(),
    releaseId: text('release_id')
      .notNull()
      .references(() => clubReleases.id),
    membershipId: text('membership_id')
      .notNull()
      .references(() => clubMemberships.id),
    customerId: text('customer_id').notNull(),
    orderId: text('order_id'),
    status: text('status', { enum: shipmentStatuses }).notNull(),
    reason: text('reason'),
    /** Charges tried and answered (declined or captured); the next charge's key counts from it. */
    attempts: integer('attempts').notNull(),
    /** The order's total, in cents, once the order exists. */
    amount: integer('amount').notNull(),
    paymentIntentId: text('payment_intent_id'),
    lastRunId: text('last_run_id'),
    /** The run charging the card right now, and since when: another run leaves it alone meanwhile. */
    claimedByRunId: text('claimed_by_run_id'),
    claimedAt: text('claimed_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('club_shipments_membership').on(table.releaseId, table.membershipId),
    index('club_shipments_status').on(table.releaseId, table.status),
  ],
)

export type ClubReleaseRow = typeof clubReleases.$inferSelect
export type ClubReleaseRunRow = typeof clubReleaseRuns.$inferSelect
export type ClubShipmentRow = typeof clubShipments.$inferSelect
