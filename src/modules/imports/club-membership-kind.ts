// The `club-memberships` kind: a row per membership, the member by the customer's id or
// externalRef, the club by id, slug or title, and the saved card as the payment provider's
// references (never a card number): club-memberships' importClubMembership applies it.
import {
  ImportedClubMembership,
  type ImportedClubMembershipInput,
  importClubMembership,
} from '../club-memberships'
import { integerField as integer, textField as text } from './fields'
import type { KindSpec } from './kind-spec'

export const clubMemberships: KindSpec<ImportedClubMembershipInput> = {
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
