// The `orders` kind: closed orders with their lines and payments, as history. A CSV is one row
// per line item with the order's columns on its rows (as Shopify's and Commerce7's order exports
// are; the column names of this service's `GET /exports/orders`, `lineTitle`, `orderTotal`..., are
// understood too): consecutive rows with the same externalRef (or id) are one order, whose
// columns may be left empty after its first row, and its payments are
// columns of the order (`Payment 1 Tender`, `Payment 1 Amount`, ... up to five). An NDJSON line is
// one order nesting `lineItems` and `payments` (the ImportedOrder schema of the orders family).
import {
  ImportedOrder,
  type ImportedOrderInput,
  importOrder,
  MAX_IMPORTED_LINES,
  MAX_IMPORTED_PAYMENTS,
} from '../orders'
import { type FieldSpec, integerField as integer, textField as text } from './fields'
import type { KindSpec } from './kind-spec'

/** Payment n's columns (from 1); the first also answers to the usual single-payment names. */
function paymentFields(n: number): Record<string, FieldSpec> {
  const first = n === 1
  const at = (key: string) => `payments.${n - 1}.${key}`
  const also = (...aliases: string[]) => (first ? aliases : [])
  return {
    [`payment${n}.tender`]: text(
      at('tender'),
      ...also('paymentmethod', 'tender', 'paymenttype', 'paymenttender'),
    ),
    [`payment${n}.amount`]: integer(at('amount'), ...also('paymentamount')),
    [`payment${n}.tipAmount`]: integer(at('tipAmount'), ...also('paymenttip', 'paymenttipamount')),
    [`payment${n}.paidAt`]: text(at('paidAt'), ...also('paidat', 'paymentdate')),
    [`payment${n}.provider`]: text(at('provider'), ...also('paymentprovider', 'gateway', 'paymentgateway')),
    [`payment${n}.providerPaymentId`]: text(
      at('providerPaymentId'),
      ...also('paymentreference', 'transactionid', 'paymentid', 'providerpaymentid'),
    ),
    [`payment${n}.cardBrand`]: text(at('cardBrand'), ...also('cardbrand', 'cardtype')),
    [`payment${n}.cardLast4`]: text(at('cardLast4'), ...also('cardlast4', 'last4')),
  }
}

export const orders: KindSpec<ImportedOrderInput> = {
  fields: {
    id: text('id', 'orderid'),
    externalRef: text('externalRef', 'externalid', 'ordernumber', 'ordername', 'orderref', 'ref'),
    locationId: text('locationId', 'location'),
    customerId: text('customerId'),
    customerExternalRef: text('customerExternalRef', 'customernumber', 'customerref', 'customerexternalid'),
    customerName: text('customerName', 'billingname', 'customer'),
    guestName: text('guestName', 'guest'),
    source: text('source', 'channel', 'saleschannel'),
    fulfillmentMode: text('fulfillmentMode', 'fulfillment'),
    seatCount: integer('seatCount', 'guests', 'covers'),
    note: text('note', 'notes', 'ordernote'),
    createdAt: text('createdAt', 'created', 'orderdate', 'date', 'ordersubmissiondate'),
    closedAt: text('closedAt', 'closed', 'completedat', 'fulfilledat'),
    shippingTotal: integer('shippingTotal', 'shipping', 'ordershippingtotal'),
    shippingTaxAmount: integer('shippingTaxAmount', 'shippingtax'),
    subtotal: integer('subtotal', 'ordersubtotal'),
    discountTotal: integer('discountTotal', 'discountamount', 'discounts', 'orderdiscounttotal'),
    taxTotal: integer('taxTotal', 'taxes', 'tax', 'ordertaxtotal'),
    tipTotal: integer('tipTotal', 'tips', 'tip', 'ordertiptotal'),
    total: integer('total', 'ordertotal', 'grandtotal'),
    'line.title': text('lineItems.#.title', 'lineitemname', 'itemname', 'product', 'producttitle', 'item'),
    'line.sku': text('lineItems.#.sku', 'lineitemsku', 'sku'),
    'line.quantity': integer('lineItems.#.quantity', 'lineitemquantity', 'quantity', 'qty'),
    'line.unitPrice': integer('lineItems.#.unitPrice', 'lineitemprice', 'unitprice', 'price'),
    'line.discountAmount': integer('lineItems.#.discountAmount', 'lineitemdiscount', 'linediscount'),
    'line.taxAmount': integer('lineItems.#.taxAmount', 'lineitemtax', 'linetax'),
    'line.taxRateBps': integer('lineItems.#.taxRateBps', 'taxratebps'),
    'line.taxCalculation': text('lineItems.#.taxCalculation', 'taxcalculation'),
    'line.category': text('lineItems.#.category', 'category', 'productcategory'),
    'line.note': text('lineItems.#.note'),
    ...Object.assign({}, ...Array.from({ length: MAX_IMPORTED_PAYMENTS }, (_, i) => paymentFields(i + 1))),
  },
  schema: ImportedOrder,
  apply: importOrder,
  grouping: {
    key: ['externalRef', 'id'],
    maxRows: MAX_IMPORTED_LINES,
    nested: {
      lineItems: { prefix: () => 'line.', perRow: true, max: MAX_IMPORTED_LINES },
      payments: { prefix: (i) => `payment${i + 1}.`, perRow: false, max: MAX_IMPORTED_PAYMENTS },
    },
  },
}
