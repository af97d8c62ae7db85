// What each kind of import reads and which family applies it: its fields (with the column names
// other platforms export them under), the owning family's schema of one record, and the owner's
// upsert, called through its front door.
import type { TSchema } from '@sinclair/typebox'
import type { ImportedRow, ImportOutcome } from '../../platform/bulk-import'
import type { Actor } from '../../platform/foundation/actor'
import type { Db } from '../../platform/tenancy/databases'
import {
  ImportedClubMembership,
  type ImportedClubMembershipInput,
  importClubMembership,
} from '../club-memberships'
import { ImportedCustomer, type ImportedCustomerInput, importCustomer } from '../customers'
import { ImportedGiftCard, type ImportedGiftCardInput, importGiftCard } from '../gift-cards'
import { ImportedProductVariant, type ImportedProductVariantInput, importProductVariant } from '../products'
import type { FieldSpec } from './fields'
import type { ImportKind } from './schema'

export interface KindSpec<T> {
  fields: Readonly<Record<string, FieldSpec>>
  schema: TSchema
  /** Fills what a row leaves to be derived (an address's addressee from the customer's name). */
  complete?(record: Record<string, unknown>): void
  apply(db: Db, actor: Actor, record: T, row: ImportedRow): ImportOutcome
  /**
   * Rows that are parts of one record (a product's variants): consecutive rows with the same
   * values in these fields are applied together, all or none, and fail together, as `noun`.
   */
  group?: { fields: readonly string[]; noun: string }
}

const text = (path: string, ...aliases: string[]): FieldSpec => ({ path, type: 'text', aliases })

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

const integer = (path: string, ...aliases: string[]): FieldSpec => ({ path, type: 'integer', aliases })

const clubMemberships: KindSpec<ImportedClubMembershipInput> = {
  fields: {
    id: text('id'),
    // The membership's id in the system the file comes from.
    externalRef: text(
      'externalRef',
      'externalid',
      'membershipid',
      'clubmembershipid',
      'membershipnumber',
      'ref',
    ),
    customer: text(
      'customer',
      'customerid',
      'customerexternalid',
      'customerref',
      'customernumber',
      'memberid',
    ),
    club: text('club', 'clubid', 'clubslug', 'clubtitle', 'clubname'),
    status: text('status', 'membershipstatus', 'clubstatus'),
    orderDeliveryMethod: text('orderDeliveryMethod', 'deliverymethod', 'delivery', 'fulfillment'),
    signupDate: text('signupDate', 'joindate', 'joined', 'startdate', 'membersince'),
    cancelDate: text('cancelDate', 'cancelleddate', 'canceldate', 'cancellationdate', 'enddate'),
    cancelReason: text('cancelReason', 'cancellationreason'),
    holdUntil: text('holdUntil', 'onholduntil', 'holdenddate'),
    holdReason: text('holdReason', 'onholdreason'),
    lastProcessedDate: text('lastProcessedDate', 'lastprocessed', 'lastshipmentdate'),
    currentNumberOfShipments: integer(
      'currentNumberOfShipments',
      'shipments',
      'numberofshipments',
      'shipmentcount',
    ),
    providerCustomerId: text(
      'providerCustomerId',
      'stripecustomerid',
      'paymentcustomerid',
      'gatewaycustomerid',
    ),
    providerPaymentMethodId: text(
      'providerPaymentMethodId',
      'stripepaymentmethodid',
      'paymentmethodid',
      'stripecardid',
      'gatewaytoken',
      'cardtoken',
    ),
    cardBrand: text('cardBrand', 'cardtype', 'creditcardtype', 'brand'),
    cardLast4: text('cardLast4', 'last4', 'lastfour', 'cardlastfour', 'maskedcardnumber', 'maskedcard'),
    cardExpMonth: integer('cardExpMonth', 'expmonth', 'expirymonth', 'expirationmonth', 'cardexpirymonth'),
    cardExpYear: integer('cardExpYear', 'expyear', 'expiryyear', 'expirationyear', 'cardexpiryyear'),
    createdAt: text('createdAt', 'created', 'createddate'),
  },
  schema: ImportedClubMembership,
  complete(record) {
    // A masked number (`************4242`, `xxxx-4242`) gives its last four.
    const last4 = /^[*xX•#\s-]*(\d{4})$/.exec(String(record.cardLast4 ?? ''))
    if (last4) record.cardLast4 = last4[1]
  },
  apply: importClubMembership,
}

// One row per variant, the product's columns beside it (as Shopify and Commerce7 export them); the
// rows of one product, one after another, are applied as one. Barcodes and SKUs are often long
// digit strings that pass the Luhn check.
const products: KindSpec<ImportedProductVariantInput> = {
  fields: {
    productId: text('productId'),
    slug: text('slug', 'handle', 'urlhandle', 'productslug', 'producthandle'),
    title: text('title', 'producttitle', 'productname', 'name'),
    type: text('type', 'producttype'),
    subTitle: text('subTitle', 'subheading'),
    image: text('image', 'imagesrc', 'imageurl', 'productimage'),
    teaser: text('teaser', 'shortdescription', 'summary'),
    content: text('content', 'description', 'bodyhtml', 'body', 'longdescription'),
    webStatus: text('webStatus'),
    adminStatus: text('adminStatus'),
    variantId: text('variantId'),
    sku: { path: 'sku', type: 'text', aliases: ['variantsku'], digitsAllowed: true },
    variantTitle: text('variantTitle', 'variant', 'variantname', 'option1value'),
    price: integer('price', 'variantprice', 'pricecents'),
    comparePrice: integer('comparePrice', 'compareatprice', 'variantcompareatprice'),
    costOfGood: integer('costOfGood', 'costofgoods', 'cost', 'costperitem', 'variantcost'),
    bottleDeposit: integer('bottleDeposit', 'deposit'),
    upcCode: {
      path: 'upcCode',
      type: 'text',
      aliases: ['upc', 'barcode', 'variantbarcode', 'gtin', 'ean'],
      digitsAllowed: true,
    },
    volumeInML: integer('volumeInML', 'volume', 'volumeml', 'bottlesize', 'sizeml'),
    sortOrder: integer('sortOrder', 'position', 'variantposition'),
    hasInventory: { path: 'hasInventory', type: 'boolean', aliases: ['trackinventory', 'inventorytracked'] },
    hasShipping: {
      path: 'hasShipping',
      type: 'boolean',
      aliases: ['requiresshipping', 'variantrequiresshipping'],
    },
    taxType: text('taxType', 'taxcategory'),
    inventoryPolicy: text('inventoryPolicy', 'variantinventorypolicy'),
    createdAt: text('createdAt', 'created', 'createddate'),
  },
  schema: ImportedProductVariant,
  group: { fields: ['productId', 'slug'], noun: 'product' },
  complete(record) {
    // Handles are matched case-insensitively; a slug is stored lower case.
    if (typeof record.slug === 'string') record.slug = record.slug.toLowerCase()
  },
  apply: importProductVariant,
}

// Each spec's record type is its own; the worker hands it what the spec's schema has checked.
export const kindSpecs = {
  customers,
  'gift-cards': giftCards,
  'club-memberships': clubMemberships,
  products,
} as unknown as Record<ImportKind, KindSpec<never>>
