import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { type CadenceUnit, clubs } from '../clubs/schema'
import { customerAddresses, customerPaymentMethods, customers } from '../customers/schema'
import { locations } from '../locations/schema'

export const membershipStatuses = ['Active', 'On Hold', 'Cancelled'] as const
export type MembershipStatus = (typeof membershipStatuses)[number]

export interface Cadence {
  unit: CadenceUnit
  count: number
}

export const clubMemberships = sqliteTable(
  'club_memberships',
  {
    id: text('id').primaryKey(),
    /** The membership's id in the system it was imported from (bulk imports upsert by it). */
    externalRef: text('external_ref'),
    status: text('status', { enum: membershipStatuses }).notNull(),
    /** No cascade: a customer with memberships cannot be deleted, only merged or made inactive. */
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id),
    clubId: text('club_id')
      .notNull()
      .references(() => clubs.id),
    billToCustomerAddressId: text('bill_to_customer_address_id').references(() => customerAddresses.id),
    orderDeliveryMethod: text('order_delivery_method', { enum: ['Pickup', 'Ship'] }).notNull(),
    shipToCustomerAddressId: text('ship_to_customer_address_id').references(() => customerAddresses.id),
    customerCreditCardId: text('customer_credit_card_id').references(() => customerPaymentMethods.id, {
      onDelete: 'set null',
    }),
    providerCustomerId: text('provider_customer_id'),
    providerPaymentMethodId: text('provider_payment_method_id'),
    signupDate: text('signup_date').notNull(),
    cancelDate: text('cancel_date'),
    cancelReason: text('cancel_reason'),
    lastProcessedDate: text('last_processed_date'),
    nextProcessDate: text('next_process_date'),
    holdUntil: text('hold_until'),
    holdReason: text('hold_reason'),
    currentNumberOfShipments: integer('current_number_of_shipments').notNull(),
    subscriptionTemplateId: text('subscription_template_id'),
    cadenceOverride: text('cadence_override', { mode: 'json' }).$type<Cadence>(),
    /** Where the customer signed up (x-location-id), for location-scoped customer lists. */
    locationId: text('location_id').references(() => locations.id, { onDelete: 'set null' }),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    index('club_memberships_customer').on(table.customerId),
    index('club_memberships_club').on(table.clubId, table.status),
    index('club_memberships_location').on(table.locationId),
    index('club_memberships_hold').on(table.status, table.holdUntil),
    index('club_memberships_card').on(table.customerCreditCardId),
    index('club_memberships_external_ref').on(table.externalRef),
  ],
)

export type ClubMembershipRow = typeof clubMemberships.$inferSelect
