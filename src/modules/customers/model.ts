import { t } from 'elysia'
import { calendarDate } from '../../platform/foundation/dates'
import { pageTotalSchema, pagingQuery } from '../../platform/foundation/paging'
import { int } from '../../platform/foundation/types'

const customerStatus = t.Union([t.Literal('active'), t.Literal('inactive')], {
  description: 'Inactive customers stay on record (orders, history) but are not offered at checkout.',
})

const nullableText = (max: number, description?: string) =>
  t.Nullable(t.String({ maxLength: max, description }))
const optionalText = (max: number, description?: string) => t.Optional(nullableText(max, description))

export const Address = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    customerId: t.String({ format: 'uuid' }),
    label: t.String({ description: 'What the address is for: `billing`, `shipping`, `home`, ...' }),
    name: t.String({ description: 'Addressee.' }),
    phone: t.Nullable(t.String()),
    line1: t.String(),
    line2: t.Nullable(t.String()),
    city: t.String(),
    region: t.String({ description: 'State, province or county.' }),
    postalCode: t.String(),
    countryCode: t.String({ minLength: 2, maxLength: 2, description: 'ISO 3166-1 alpha-2, upper case.' }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/CustomerAddress' },
)

/** The element of a Customer's `tags`: the tag's id and title, as Commerce7 shows them. */
export const CustomerTag = t.Object(
  { id: t.String({ format: 'uuid' }), title: t.String() },
  { $id: '#/components/schemas/CustomerTag' },
)

const SocialProfiles = t.Object({
  facebook: t.Nullable(t.String()),
  x: t.Nullable(t.String()),
  instagram: t.Nullable(t.String()),
  linkedin: t.Nullable(t.String()),
})

export const Customer = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    externalRef: t.Nullable(t.String()),
    firstName: t.String(),
    lastName: t.String(),
    email: t.String(),
    phone: t.Nullable(t.String()),
    status: customerStatus,
    tags: t.Array(CustomerTag, {
      description:
        'The customer tags it carries, in title order: Manual ones attached (tag assignments) and Dynamic ones whose conditions it meets. Attach and detach Manual tags with `POST /customers/{id}/tags` and `DELETE /customers/{id}/tags/{tagId}`, or replace them all with `tags` on PUT.',
    }),
    marketingOptIn: t.Boolean(),
    notes: t.Nullable(t.String()),
    company: t.Nullable(t.String()),
    jobTitle: t.Nullable(t.String()),
    spouse: t.Nullable(t.String()),
    additionalPhones: t.Array(t.String()),
    birthDate: t.Nullable(t.String({ format: 'date' })),
    anniversaryDate: t.Nullable(t.String({ format: 'date' })),
    socialProfiles: SocialProfiles,
    addresses: t.Array(Address),
    originLocationId: t.Nullable(
      t.String({ description: 'The location the customer was created at (`x-location-id`), if any.' }),
    ),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/Customer' },
)

const addressFields = {
  label: t.String({ minLength: 1, maxLength: 50 }),
  name: t.String({ minLength: 1, maxLength: 200 }),
  phone: optionalText(50),
  line1: t.String({ minLength: 1, maxLength: 200 }),
  line2: optionalText(200),
  city: t.String({ minLength: 1, maxLength: 100 }),
  region: t.String({ minLength: 1, maxLength: 100 }),
  postalCode: t.String({ minLength: 1, maxLength: 20 }),
  countryCode: t.String({
    pattern: '^[A-Za-z]{2}$',
    description: 'ISO 3166-1 alpha-2 (`US`, `FR`, ...); lower case is accepted and stored upper case.',
  }),
}

export const CreateAddress = t.Object(addressFields, { additionalProperties: false })

export const UpdateAddress = t.Partial(t.Object(addressFields), {
  additionalProperties: false,
  description: 'Partial update: only the fields sent change; null clears an optional field.',
})

const phone = t.String({ minLength: 1, maxLength: 50 })
const tagId = t.String({ minLength: 1, maxLength: 200 })

const customerFields = {
  externalRef: optionalText(200, 'Your own reference for the customer (another system’s id).'),
  phone: t.Optional(t.Nullable(phone)),
  status: t.Optional(customerStatus),
  tags: t.Optional(
    t.Array(tagId, {
      maxItems: 100,
      uniqueItems: true,
      description:
        'Ids of Manual customer tags (`GET /tag/customer`); the customer’s Manual tags become exactly these when sent (an empty list detaches them all; Dynamic tags stay as their conditions say). An id that is not a Manual customer tag is 400 naming its index.',
    }),
  ),
  marketingOptIn: t.Optional(t.Boolean()),
  notes: optionalText(10_000),
  company: optionalText(200),
  jobTitle: optionalText(200),
  spouse: optionalText(200),
  additionalPhones: t.Optional(
    t.Array(phone, { maxItems: 20, description: 'Replaced as a whole when sent.' }),
  ),
  birthDate: t.Optional(t.Nullable(calendarDate())),
  anniversaryDate: t.Optional(t.Nullable(calendarDate())),
  socialProfiles: t.Optional(
    t.Object(
      {
        facebook: optionalText(500),
        x: optionalText(500),
        instagram: optionalText(500),
        linkedin: optionalText(500),
      },
      { additionalProperties: false, description: 'Only the profiles sent change; null clears one.' },
    ),
  ),
}

const name = t.String({ minLength: 1, maxLength: 100 })
const email = t.String({
  format: 'email',
  maxLength: 320,
  description: 'Unique within the tenant, case-insensitive.',
})

export const CreateCustomer = t.Object(
  {
    firstName: name,
    lastName: name,
    email,
    ...customerFields,
    addresses: t.Optional(t.Array(CreateAddress, { maxItems: 20 })),
  },
  { additionalProperties: false },
)

export const UpdateCustomer = t.Object(
  { firstName: t.Optional(name), lastName: t.Optional(name), email: t.Optional(email), ...customerFields },
  {
    additionalProperties: false,
    description: 'Partial update: only the fields sent change; null clears an optional field.',
  },
)

export const CustomerListQuery = t.Object({
  q: t.Optional(
    t.String({ maxLength: 200, description: 'Case-insensitive search over name, email and phone.' }),
  ),
  locationId: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Customers associated with the location: created there, or with club memberships (and, as those families arrive, orders or reservations) there.',
    }),
  ),
  ...pagingQuery(100),
})

/** `/customers` answers `{customers, page: {total}}`. */
export const CustomerPagedList = t.Object({ customers: t.Array(Customer), page: pageTotalSchema })
/** `/customer` answers `{customers, total}`. */
export const CustomerTotalList = t.Object({ customers: t.Array(Customer), total: int({ minimum: 0 }) })

export const CustomerParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })
export const AddressParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  addressId: t.String({ minLength: 1, maxLength: 200 }),
})
export const AddressList = t.Object({ addresses: t.Array(Address), total: int({ minimum: 0 }) })

export type CreateCustomerInput = typeof CreateCustomer.static
export type UpdateCustomerInput = typeof UpdateCustomer.static
export type CreateAddressInput = typeof CreateAddress.static
export type UpdateAddressInput = typeof UpdateAddress.static
export type CustomerView = typeof Customer.static
export type AddressView = typeof Address.static

export const MergeCustomers = t.Object(
  {
    primaryCustomerId: t.String({ minLength: 1, maxLength: 200, description: 'The customer that remains.' }),
    sourceCustomerIds: t.Array(t.String({ minLength: 1, maxLength: 200 }), {
      minItems: 1,
      maxItems: 50,
      uniqueItems: true,
      description: 'Customers merged into the primary and then removed; their ids keep resolving to it.',
    }),
    confirmation: t.Literal('MERGE', { description: 'Must be the literal `MERGE`.' }),
  },
  { additionalProperties: false },
)

export const CustomerAlias = t.Object(
  {
    sourceCustomerId: t.String(),
    primaryCustomerId: t.String(),
    mergedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/CustomerAlias' },
)

export const MergeResult = t.Object({ customer: Customer, aliases: t.Array(CustomerAlias) })

export const PaymentMethod = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    customerId: t.String({ format: 'uuid' }),
    provider: t.Union([t.Literal('sandbox'), t.Literal('stripe')]),
    providerCustomerId: t.String(),
    providerPaymentMethodId: t.String(),
    brand: t.String({
      description: 'Card brand as the provider names it: `visa`, `mastercard`, `amex`, ...',
    }),
    last4: t.String({ minLength: 4, maxLength: 4 }),
    expMonth: int({ minimum: 1, maximum: 12 }),
    expYear: int(),
    createdAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/CustomerPaymentMethod' },
)

export const AddPaymentMethod = t.Object(
  {
    providerToken: t.String({
      minLength: 1,
      maxLength: 500,
      description:
        'A token from the payment provider’s client library (Stripe: `pm_...` or `tok_...`; sandbox: `tok_visa`, `tok_mastercard`, ...). Never a card number.',
    }),
  },
  { additionalProperties: false },
)

export const PaymentMethodList = t.Object({
  paymentMethods: t.Array(PaymentMethod),
  total: int({ minimum: 0 }),
})

export const PaymentMethodParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  paymentMethodId: t.String({ minLength: 1, maxLength: 200 }),
})

export const IdempotencyHeaders = t.Object({
  'idempotency-key': t.Optional(
    t.String({
      minLength: 8,
      maxLength: 180,
      description:
        'Optional: a retry with the same key and body answers the first result instead of storing the card twice.',
    }),
  ),
})

export const AttachCustomerTag = t.Object(
  { tagId: t.String({ minLength: 1, maxLength: 200, description: 'A Manual customer tag.' }) },
  { additionalProperties: false },
)

export const CustomerTagParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  tagId: t.String({ minLength: 1, maxLength: 200 }),
})

/**
 * One customer of a bulk import (`POST /imports`, kind `customers`): matched by `id`, else by
 * `externalRef`; tags by title (Manual customer tags that exist); addresses added when no address
 * of the customer has the same label, first line, postal code and country.
 */
export const ImportedCustomer = t.Object(
  {
    id: t.Optional(t.String({ format: 'uuid' })),
    externalRef: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    firstName: name,
    lastName: name,
    email,
    phone: t.Optional(phone),
    status: t.Optional(customerStatus),
    marketingOptIn: t.Optional(t.Boolean()),
    notes: t.Optional(t.String({ maxLength: 10_000 })),
    company: t.Optional(t.String({ maxLength: 200 })),
    jobTitle: t.Optional(t.String({ maxLength: 200 })),
    birthDate: t.Optional(calendarDate()),
    createdAt: t.Optional(t.String({ format: 'date-time', description: 'Kept as given (history).' })),
    tags: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
    addresses: t.Optional(t.Array(CreateAddress, { maxItems: 20 })),
  },
  { additionalProperties: false },
)

export type ImportedCustomerInput = typeof ImportedCustomer.static
