import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { locations } from '../locations/schema'

export const staffUsers = sqliteTable(
  'staff_users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    phoneCountryCode: text('phone_country_code'),
    phoneNumber: text('phone_number'),
    postalCode: text('postal_code'),
    /** active | invited | inactive; only active staff users may act. */
    status: text('status').notNull().default('active'),
    /** Hash of the POS passcode (Bun.password, argon2id); never the passcode itself. */
    passcodeHash: text('passcode_hash'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [uniqueIndex('staff_users_email_unique').on(table.email)],
)

/** Maps an identity provider's subject to a staff user ("staff auth identity mapping"). */
export const staffIdentities = sqliteTable(
  'staff_identities',
  {
    id: text('id').primaryKey(),
    staffUserId: text('staff_user_id')
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    subject: text('subject').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (table) => [uniqueIndex('staff_identities_provider_subject').on(table.provider, table.subject)],
)

/** A role held tenant-wide (locationId null) or at one location only. */
export const staffRoles = sqliteTable(
  'staff_roles',
  {
    id: text('id').primaryKey(),
    staffUserId: text('staff_user_id')
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    role: text('role').notNull(),
    locationId: text('location_id').references(() => locations.id),
    createdAt: text('created_at').notNull(),
  },
  (table) => [index('staff_roles_staff_user').on(table.staffUserId)],
)

export type StaffUserRow = typeof staffUsers.$inferSelect
export type StaffRoleRow = typeof staffRoles.$inferSelect
