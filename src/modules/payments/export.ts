// The payments export (`GET /exports/payments`): one row per payment, by creation time, at the
// caller's locations. Money in minor units.
import { scopeCondition } from '../../platform/auth/location-scope'
import { tableExport } from '../../platform/http/export-stream'
import { paymentIntents } from './schema'

const columns = [
  'id',
  'orderId',
  'locationId',
  'tender',
  'status',
  'amount',
  'tipAmount',
  'capturedAmount',
  'refundedAmount',
  'refundedTipAmount',
  'cardBrand',
  'cardLast4',
  'provider',
  'providerPaymentId',
  'giftCardId',
  'drawerId',
  'createdByStaffUserId',
  'createdAt',
  'capturedAt',
  'voidedAt',
  'refundedAt',
] as const

export const paymentExport = tableExport(paymentIntents, 'createdAt', columns, (locations) =>
  scopeCondition(locations, paymentIntents.locationId),
)
