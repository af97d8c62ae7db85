// What each kind of import reads and which family applies it: its fields (with the column names
// other platforms export them under), the owning family's schema of one record, and the owner's
// upsert, called through its front door.
import { ImportedCustomer, type ImportedCustomerInput, importCustomer } from '../customers'
import { ImportedGiftCard, type ImportedGiftCardInput, importGiftCard } from '../gift-cards'
import { clubMemberships } from './club-membership-kind'
import { textField as text } from './fields'
import type { KindSpec } from './kind-spec'
import { orders } from './order-kind'
import { products } from './product-kind'
import type { ImportKind } from './schema'

const customers: KindSpec<ImportedCustomerInput> = {
  fields: {
    id: text('id'),
    externalRef: text('externalRef', 'externalid', 'customerid', 'customernumber', 'ref'),
    firstName: text('firstName', 'first', 'givenname'),
    lastName: text('lastName', 'last', 'surname', 'familyname'),
    email: text('email', 'emailaddress', 'mail'),
    phone: text('phone', 'phonenumber', 'mobile', 'cellphone'),
    status: text('status'),
    marketingOptIn: {
      path: 'marketingOptIn',
      type: 'boolean',
      aliases: ['emailmarketing', 'acceptsmarketing', 'optin'],
    },
    notes: text('notes', 'note'),
    company: text('company', 'companyname', 'organization'),
    jobTitle: text('jobTitle', 'title'),
    birthDate: text('birthDate', 'birthday', 'dateofbirth', 'dob'),
    createdAt: text('createdAt', 'created', 'createddate', 'signupdate'),
    tags: { path: 'tags', type: 'list', aliases: ['tag', 'customertags'] },
    'address.label': text('addresses.0.label', 'addresslabel'),
    'address.name': text('addresses.0.name', 'addressname', 'addressee'),
    'address.phone': text('addresses.0.phone', 'addressphone'),
    'address.line1': text('addresses.0.line1', 'address', 'address1', 'addressline1', 'street'),
    'address.line2': text('addresses.0.line2', 'address2', 'addressline2'),
    'address.city': text('addresses.0.city', 'city', 'town'),
    'address.region': text('addresses.0.region', 'region', 'state', 'province', 'stateprovince', 'county'),
    'address.postalCode': text('addresses.0.postalCode', 'postalcode', 'zip', 'zipcode', 'postcode'),
    'address.countryCode': text('addresses.0.countryCode', 'country', 'countrycode'),
  },
  schema: ImportedCustomer,
  complete(record) {
    const address = (record.addresses as Record<string, unknown>[] | undefined)?.[0]
    if (!address) return
    address.label ??= 'billing'
    address.name ??= [record.firstName, record.lastName].filter(Boolean).join(' ')
  },
  apply: importCustomer,
}

const giftCards: KindSpec<ImportedGiftCardInput> = {
  fields: {
    id: text('id'),
    code: {
      path: 'code',
      type: 'text',
      aliases: ['cardcode', 'cardnumber', 'giftcardcode', 'giftcardnumber', 'number'],
      digitsAllowed: true,
    },
    balance: { path: 'balance', type: 'integer', aliases: ['currentbalance', 'balancecents', 'amount'] },
    title: text('title', 'name'),
    type: text('type', 'cardtype'),
    recipientName: text('recipientName', 'recipient'),
    recipientEmail: text('recipientEmail', 'email'),
    notes: text('notes', 'note'),
    expiryDate: text('expiryDate', 'expiry', 'expires', 'expirationdate'),
    createdAt: text('createdAt', 'created', 'issued', 'issuedat', 'issuedate'),
  },
  schema: ImportedGiftCard,
  apply: importGiftCard,
}

// Each spec's record type is its own; the worker hands it what the spec's schema has checked.
export const kindSpecs = {
  customers,
  'gift-cards': giftCards,
  'club-memberships': clubMemberships,
  products,
  orders,
} as unknown as Record<ImportKind, KindSpec<never>>
