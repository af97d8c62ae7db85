import { t } from 'elysia'
import { calendarDate } from '../../platform/foundation/dates'
import { pagingQuery } from '../../platform/foundation/paging'
import { int } from '../../platform/foundation/types'
import { Cadence, Club } from '../clubs'
import { Customer } from '../customers'

const status = t.Union([t.Literal('Active'), t.Literal('On Hold'), t.Literal('Cancelled')])
const deliveryMethod = t.Union([t.Literal('Pickup'), t.Literal('Ship')], {
  description: '`Ship` needs a `shipToCustomerAddressId` of the member.',
})
const date = t.Nullable(t.String({ format: 'date' }))

export const ClubMembership = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    externalRef: t.Nullable(
      t.String({ description: 'Its id in the system it was imported from (`POST /imports`).' }),
    ),
    status,
    customerId: t.String(),
    clubId: t.String(),
    billToCustomerAddressId: t.Nullable(t.String()),
    orderDeliveryMethod: deliveryMethod,
    shipToCustomerAddressId: t.Nullable(t.String()),
    customerCreditCardId: t.Nullable(
      t.String({ description: 'A stored card of the member (payment-methods).' }),
    ),
    providerCustomerId: t.Nullable(t.String()),
    providerPaymentMethodId: t.Nullable(t.String()),
    signupDate: t.String({ format: 'date' }),
    cancelDate: date,
    cancelReason: t.Nullable(t.String()),
    lastProcessedDate: date,
    nextProcessDate: t.Nullable(
      t.String({
        format: 'date',
        description:
          'When the membership is next processed (an order made and the saved card charged). A release takes the member (Active, and offered their delivery method) when this date is on or before its `processDate`, and otherwise skips them (`Skipped`, the reason naming this date: no order, no charge, the membership unchanged). Never processed: the `processDate` of the club’s first release, not archived, on or after the sign-up that offers the member’s delivery method, so a new member gets the next release; with none planned, the sign-up plus one cadence (the override, else the club’s). Processed: `lastProcessedDate` plus one cadence. On hold: the first such date on or after `holdUntil`. Null once cancelled. May lie in the past: processing is due.',
      }),
    ),
    holdUntil: date,
    holdReason: t.Nullable(t.String()),
    currentNumberOfShipments: int({ minimum: 0 }),
    subscriptionTemplateId: t.Nullable(t.String()),
    cadenceOverride: t.Nullable(Cadence),
    locationId: t.Nullable(t.String({ description: 'Where the member signed up (`x-location-id`).' })),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
    customer: t.Optional(Customer),
    club: t.Optional(Club),
  },
  { $id: '#/components/schemas/ClubMembership' },
)

const ref = t.String({ minLength: 1, maxLength: 200 })
const nullableRef = t.Optional(t.Nullable(ref))

const editable = {
  billToCustomerAddressId: nullableRef,
  shipToCustomerAddressId: nullableRef,
  customerCreditCardId: nullableRef,
  cadenceOverride: t.Optional(
    t.Nullable(Cadence, { description: 'Replaces the club’s cadence for this member; null returns to it.' }),
  ),
  subscriptionTemplateId: t.Optional(t.Nullable(t.String({ maxLength: 200 }))),
}

export const CreateClubMembership = t.Object(
  {
    customerId: ref,
    clubId: ref,
    orderDeliveryMethod: deliveryMethod,
    signupDate: t.Optional(calendarDate('Defaults to today in the tenant’s time zone.')),
    ...editable,
  },
  { additionalProperties: false },
)

export const UpdateClubMembership = t.Object(
  {
    orderDeliveryMethod: t.Optional(deliveryMethod),
    ...editable,
    lastProcessedDate: t.Optional(
      t.Nullable(calendarDate('Set by club processing; the next date follows from it.')),
    ),
    currentNumberOfShipments: t.Optional(int({ minimum: 0, maximum: 100_000 })),
  },
  {
    additionalProperties: false,
    description: 'Partial update of a live membership. Status changes go through hold, resume and cancel.',
  },
)

export const HoldClubMembership = t.Object(
  {
    holdUntil: calendarDate('The first day the membership is active again; after today.'),
    holdReason: t.Optional(t.Nullable(t.String({ maxLength: 500 }))),
  },
  { additionalProperties: false },
)

export const CancelClubMembership = t.Object(
  {
    cancelDate: t.Optional(
      calendarDate('Defaults to today in the tenant’s time zone; not before the sign-up.'),
    ),
    cancelReason: t.Optional(t.Nullable(t.String({ maxLength: 500 }))),
  },
  { additionalProperties: false },
)

const expand = t.Optional(
  t.String({
    pattern: '^(customer|club)(,(customer|club))*$',
    description: 'Comma-separated: `customer`, `club`.',
  }),
)

export const ClubMembershipListQuery = t.Object({
  q: t.Optional(
    t.String({ maxLength: 200, description: 'Matches the member’s name or email, or the club’s title.' }),
  ),
  clubId: t.Optional(ref),
  customerId: t.Optional(ref),
  status: t.Optional(status),
  expand,
  ...pagingQuery(100),
})

export const ClubMembershipGetQuery = t.Object({ expand })

export const ClubMembershipList = t.Object({
  clubMemberships: t.Array(ClubMembership),
  total: int({ minimum: 0 }),
})

export const ClubMembershipParams = t.Object({ id: ref })

export type CreateClubMembershipInput = typeof CreateClubMembership.static
export type UpdateClubMembershipInput = typeof UpdateClubMembership.static
export type HoldInput = typeof HoldClubMembership.static
export type CancelInput = typeof CancelClubMembership.static
export type ClubMembershipView = typeof ClubMembership.static

const providerRef = t.Optional(t.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_]+$' }))

/**
 * One membership of a bulk import (`POST /imports`, kind `club-memberships`): its member named by
 * the customer's id or externalRef, its club by id, slug or title, its saved card by the payment
 * provider's references only.
 */
export const ImportedClubMembership = t.Object(
  {
    id: t.Optional(t.String({ format: 'uuid' })),
    externalRef: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    customer: t.String({
      minLength: 1,
      maxLength: 200,
      description: 'The member: the customer’s id, else their externalRef (import customers first).',
    }),
    club: t.String({ minLength: 1, maxLength: 200, description: 'The club’s id, slug or title.' }),
    status: t.Optional(
      t.Union([t.Literal('Active'), t.Literal('On Hold'), t.Literal('Cancelled')], {
        description:
          'Default Active. On Hold until a `holdUntil` already past lands Active (the hold ended).',
      }),
    ),
    orderDeliveryMethod: t.Optional(
      t.Union([t.Literal('Pickup'), t.Literal('Ship')], {
        description:
          'Default Pickup. Ship sends to the ship-to address kept, else the member’s address labelled shipping, else their newest.',
      }),
    ),
    signupDate: calendarDate(),
    cancelDate: t.Optional(calendarDate('Only with status Cancelled, which needs it.')),
    cancelReason: t.Optional(t.String({ maxLength: 500 })),
    holdUntil: t.Optional(calendarDate('Only with status On Hold, which needs it.')),
    holdReason: t.Optional(t.String({ maxLength: 500 })),
    lastProcessedDate: t.Optional(calendarDate()),
    currentNumberOfShipments: t.Optional(int({ minimum: 0, maximum: 100_000 })),
    providerCustomerId: providerRef,
    providerPaymentMethodId: providerRef,
    cardBrand: t.Optional(t.String({ minLength: 1, maxLength: 40 })),
    cardLast4: t.Optional(t.String({ pattern: '^[0-9]{4}$', description: 'The last four digits only.' })),
    cardExpMonth: t.Optional(int({ minimum: 1, maximum: 12 })),
    cardExpYear: t.Optional(int({ minimum: 2000, maximum: 2100 })),
    createdAt: t.Optional(t.String({ format: 'date-time', description: 'Kept as given (history).' })),
  },
  { additionalProperties: false },
)

export type ImportedClubMembershipInput = typeof ImportedClubMembership.static
