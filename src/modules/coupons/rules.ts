// The rules a whole coupon obeys, checked after a create's defaults or an update's merge, so a
// partial update cannot leave a coupon whose fields contradict each other.
import { isCalendarDate } from '../../platform/foundation/dates'
import type { FieldError } from '../../platform/foundation/problem'
import type { CouponRow, DiscountType } from './schema'

export type CouponFields = Omit<CouponRow, 'id' | 'createdAt' | 'updatedAt'>

function discountValueError(type: DiscountType, value: number | null): string | null {
  switch (type) {
    case 'No Discount':
    case 'Free':
      return value === null ? null : `${type} takes no value (null)`
    case 'Percentage Off':
      if (value === null) return 'Percentage Off needs a value in basis points, 1..10000'
      return value >= 1 && value <= 10_000
        ? null
        : 'Percentage Off is in basis points, 1..10000 (1000 = 10%); more than 100% is refused'
    case 'Dollar Off':
      return value !== null && value >= 1 ? null : 'Dollar Off needs an amount in cents, >= 1'
    case 'Set Price':
      return value !== null && value >= 0 ? null : 'Set Price needs a price in cents, >= 0'
  }
}

/** Every contradiction in a coupon, with `body/<field>` paths. */
export function couponErrors(c: CouponFields): FieldError[] {
  const errors: FieldError[] = []
  const add = (field: string, message: string) => errors.push({ path: `body/${field}`, message })

  const product = discountValueError(c.productDiscountType, c.productDiscount)
  if (product) add('productDiscount', product)
  const shipping = discountValueError(c.shippingDiscountType, c.shippingDiscount)
  if (shipping) add('shippingDiscount', shipping)

  if (c.appliesTo === 'Store' && c.appliesToObjectIds.length > 0)
    add('appliesToObjectIds', 'Store coupons apply to the whole cart: appliesToObjectIds must be empty')
  if (c.appliesTo !== 'Store' && c.appliesToObjectIds.length === 0)
    add(
      'appliesToObjectIds',
      `${c.appliesTo} coupons need the ${c.appliesTo.toLowerCase()} ids they apply to`,
    )

  if (c.availableTo === 'Everyone' && c.availableToObjectIds.length > 0)
    add('availableToObjectIds', 'coupons available to Everyone take no availableToObjectIds')
  if (c.availableTo !== 'Everyone' && c.availableToObjectIds.length === 0)
    add('availableToObjectIds', `coupons available to a ${c.availableTo} need the ids of who may use them`)

  if (c.usageLimitType === 'Unlimited' && c.usageLimit !== null)
    add('usageLimit', 'Unlimited coupons take no usageLimit (null)')
  if (c.usageLimitType !== 'Unlimited' && c.usageLimit === null)
    add('usageLimit', `${c.usageLimitType} usage needs a usageLimit >= 1`)

  if (c.startDate !== null && !isCalendarDate(c.startDate))
    add('startDate', `${c.startDate} is not a calendar date`)
  else if (c.endDate !== null && !isCalendarDate(c.endDate))
    add('endDate', `${c.endDate} is not a calendar date`)
  else if (c.startDate !== null && c.endDate !== null && c.startDate > c.endDate)
    add('endDate', `endDate ${c.endDate} is before startDate ${c.startDate}`)

  return errors
}
