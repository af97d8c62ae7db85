import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { locations } from '../locations/schema'

export interface SocialProfiles {
  facebook: string | null
  x: string | null
  instagram: string | null
  linkedin: string | null
}

export const customers = sqliteTable(
  'customers',
  {
    id: text('id').primaryKey(),
    externalRef: text('external_ref'),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    /** Unique within the tenant, case-insensitive. */
    email: text('email').notNull(),
    phone: text('phone'),
    status: text('status', { enum: ['active', 'inactive'] }).notNull(),
    marketingOptIn: integer('marketing_opt_in', { mode: 'boolean' }).notNull(),
    notes: text('notes'),
    company: text('company'),
    jobTitle: text('job_title'),
    spouse: text('spouse'),
    additionalPhones: text('additional_phones', { mode: 'json' }).$type<string[]>().notNull(),
    birthDate: text('birth_date'),
    anniversaryDate: text('anniversary_date'),
    socialProfiles: text('social_profiles', { mode: 'json' }).$type<SocialProfiles>().notNull(),
    /** The location the customer was created at (x-location-id of the creating request). */
    originLocationId: text('origin_location_id').references(() => locations.id, { onDelete: 'set null' }),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('customers_email_unique').on(sql`lower(${table.email})`),
    index('customers_name').on(table.lastName, table.firstName),
    index('customers_origin_location').on(table.originLocationId),
    index('customers_external_ref').on(table.externalRef),
  ],
)

export const customerAddresses = sqliteTable(
  'customer_addresses',
  {
    id: text('id').primaryKey(),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    name: text('name').notNull(),
    phone: text('phone'),
    line1: text('line1').notNull(),
    line2: text('line2'),
    city: text('city').notNull(),
    region: text('region').notNull(),
    postalCode: text('postal_code').notNull(),
    countryCode: text('country_code').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [index('customer_addresses_customer').on(table.customerId)],
)

/** A merged-away customer id and the customer it now resolves to. */
export const customerAliases = sqliteTable(
  'customer_aliases',
  {
    sourceCustomerId: text('source_customer_id').primaryKey(),
    primaryCustomerId: text('primary_customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    mergedAt: text('merged_at').notNull(),
  },
  (table) => [index('customer_aliases_primary').on(table.primaryCustomerId)],
)

/** The customer's account at a payment provider (a Stripe customer, a sandbox reference). */
export const paymentProviderCustomers = sqliteTable(
  'payment_provider_customers',
  {
    id: text('id').primaryKey(),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: ['sandbox', 'stripe'] }).notNull(),
    providerCustomerId: text('provider_customer_id').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (table) => [
    uniqueIndex('payment_provider_customers_ref').on(table.provider, table.providerCustomerId),
    index('payment_provider_customers_customer').on(table.customerId, table.provider),
  ],
)

/** A stored card: provider references and display data only. The card stays at the provider. */
export const customerPaymentMethods = sqliteTable(
  'customer_payment_methods',
  {
    id: text('id').primaryKey(),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: ['sandbox', 'stripe'] }).notNull(),
    providerCustomerId: text('provider_customer_id').notNull(),
    providerPaymentMethodId: text('provider_payment_method_id').notNull(),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (table) => [
    uniqueIndex('customer_payment_methods_ref').on(table.provider, table.providerPaymentMethodId),
    index('customer_payment_methods_customer').on(table.customerId),
  ],
)

export type CustomerRow = typeof customers.$inferSelect
export type AddressRow = typeof customerAddresses.$inferSelect
export type AliasRow = typeof customerAliases.$inferSelect
export type PaymentMethodRow = typeof customerPaymentMethods.$inferSelect
