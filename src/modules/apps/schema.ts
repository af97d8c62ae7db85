import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** Integrations installed for the tenant (Commerce7's "apps"). */
export const apps = sqliteTable(
  'apps',
  {
    id: text('id').primaryKey(),
    /** Unique within the tenant, case-insensitive. */
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    homepageUrl: text('homepage_url'),
    status: text('status', { enum: ['active', 'inactive'] }).notNull(),
    syncStatus: text('sync_status', { enum: ['idle', 'synced'] }).notNull(),
    lastSyncedAt: text('last_synced_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('apps_slug_unique').on(sql`lower(${table.slug})`),
    index('apps_name').on(table.name),
  ],
)

export type AppRow = typeof apps.$inferSelect

/** One free-form settings object per app. */
export const appData = sqliteTable('app_data', {
  appId: text('app_id')
    .primaryKey()
    .references(() => apps.id, { onDelete: 'cascade' }),
  data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  updatedAt: text('updated_at').notNull(),
})

export interface AppSyncAction {
  id: string
  httpType: string
  url: string
  label: string
}

/** The sync state of one object (an order, a customer...) as an app last reported it. */
export const appSyncs = sqliteTable(
  'app_syncs',
  {
    id: text('id').primaryKey(),
    appId: text('app_id').references(() => apps.id, { onDelete: 'cascade' }),
    objectType: text('object_type').notNull(),
    objectId: text('object_id').notNull(),
    status: text('status').notNull(),
    issues: text('issues', { mode: 'json' }).$type<string[]>().notNull(),
    actions: text('actions', { mode: 'json' }).$type<AppSyncAction[]>().notNull(),
    lastActivityDate: text('last_activity_date').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('app_syncs_app_object')
      .on(table.appId, table.objectType, table.objectId)
      .where(sql`app_id IS NOT NULL`),
    uniqueIndex('app_syncs_unattributed_object')
      .on(table.objectType, table.objectId)
      .where(sql`app_id IS NULL`),
    index('app_syncs_object_id').on(table.objectId),
  ],
)

export type AppSyncRow = typeof appSyncs.$inferSelect

/** Each report (POST /app-sync) of an object's sync, with the issues it named. */
export const appSyncAttempts = sqliteTable(
  'app_sync_attempts',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    appSyncId: text('app_sync_id')
      .notNull()
      .references(() => appSyncs.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    activityDate: text('activity_date').notNull(),
  },
  (table) => [index('app_sync_attempts_sync').on(table.appSyncId, table.seq)],
)

export const appSyncAttemptIssues = sqliteTable(
  'app_sync_attempt_issues',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    appSyncAttemptId: text('app_sync_attempt_id')
      .notNull()
      .references(() => appSyncAttempts.id, { onDelete: 'cascade' }),
    issue: text('issue').notNull(),
  },
  (table) => [index('app_sync_attempt_issues_attempt').on(table.appSyncAttemptId)],
)
