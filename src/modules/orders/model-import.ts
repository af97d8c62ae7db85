// One closed order of a bulk import (the imports family's `orders` kind), as history: its lines
// and payments as the old system recorded them. Money in integer minor units.
import { t } from 'elysia'
import { int, money, oneOf } from '../../platform/foundation/types'
import { fulfillmentModes } from './model'
import { taxCalculations } from './schema'

/** Most lines and payments one imported order may hold. */
export const MAX_IMPORTED_LINES = 500
export const MAX_IMPORTED_PAYMENTS = 5

const text = (max: number) => t.String({ minLength: 1, maxLength: max })
const instant = (description: string) => t.String({ format: 'date-time', description })

export const ImportedOrderLine = t.Object(
  {
    title: text(200),
    sku: t.Optional(text(100)),
    quantity: int({ minimum: 1, maximum: 9999 }),
    unitPrice: money({ description: 'Per unit, minor units.' }),
    discountAmount: t.Optional(
      money({ description: 'What discounts took from the line, as the old system allocated them.' }),
    ),
    taxAmount: t.Optional(
      money({ description: 'The line’s tax as recorded; computed from `taxRateBps` when absent.' }),
    ),
    taxRateBps: t.Optional(int({ minimum: 0, maximum: 10_000 })),
    taxCalculation: t.Optional(oneOf(taxCalculations, { description: 'Default `Added`.' })),
    category: t.Optional(text(100)),
    note: t.Optional(t.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
)

export const ImportedOrderPayment = t.Object(
  {
    tender: oneOf(['cash', 'card', 'gift_card'] as const),
    amount: t.Optional(
      money({ description: 'Applied to the order, tip aside; the sole payment defaults to the whole.' }),
    ),
    tipAmount: t.Optional(money()),
    paidAt: t.Optional(instant('Default: the order’s closedAt.')),
    provider: t.Optional(text(50)),
    providerPaymentId: t.Optional(text(200)),
    cardBrand: t.Optional(text(50)),
    cardLast4: t.Optional(t.String({ pattern: '^[0-9]{4}$' })),
  },
  { additionalProperties: false },
)

export const ImportedOrder = t.Object(
  {
    id: t.Optional(t.String({ format: 'uuid' })),
    externalRef: t.Optional(text(200)),
    locationId: t.Optional(text(200)),
    customerId: t.Optional(text(200)),
    customerExternalRef: t.Optional(text(200)),
    customerName: t.Optional(text(200)),
    guestName: t.Optional(text(200)),
    source: t.Optional(text(50)),
    fulfillmentMode: t.Optional(oneOf(fulfillmentModes)),
    seatCount: t.Optional(int({ minimum: 0, maximum: 10_000 })),
    note: t.Optional(t.String({ maxLength: 10_000 })),
    createdAt: instant('When the order was opened: kept (history).'),
    closedAt: t.Optional(instant('Default: createdAt.')),
    shippingTotal: t.Optional(money()),
    shippingTaxAmount: t.Optional(money()),
    subtotal: t.Optional(money({ description: 'Checked against the lines when given.' })),
    discountTotal: t.Optional(money({ description: 'Checked against the lines when given.' })),
    taxTotal: t.Optional(money({ description: 'Checked against the lines and shipping when given.' })),
    tipTotal: t.Optional(money({ description: 'Checked against the payments when given.' })),
    total: t.Optional(money({ description: 'Checked when given.' })),
    lineItems: t.Array(ImportedOrderLine, { minItems: 1, maxItems: MAX_IMPORTED_LINES }),
    payments: t.Optional(t.Array(ImportedOrderPayment, { maxItems: MAX_IMPORTED_PAYMENTS })),
  },
  { additionalProperties: false },
)

export type ImportedOrderInput = typeof ImportedOrder.static
export type ImportedOrderPaymentInput = typeof ImportedOrderPayment.static
