import { CRUD } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import { registerCouponsHooks } from './hooks'
import * as model from './model'
import { Coupon } from './model'
import { couponRoutes } from './routes'

export const couponsFamily = family({
  name: 'coupons',
  tags: {
    Coupons: 'Coupons and their rules (`/coupon` and `/coupons` are the same).',
  },
  models: { coupons: model },
  events: [
    {
      object: 'coupon',
      readPermission: 'coupons:read',
      actions: CRUD,
      emittedBy: '`/coupon`, `/coupons`',
      payload: 'the coupon',
      schema: Coupon,
    },
  ],
  hooks: registerCouponsHooks,
  routes: (platform) => [couponRoutes(platform.auth, '/coupon'), couponRoutes(platform.auth, '/coupons')],
})

// What the other families may use.
export {
  allocate,
  applyCoupon,
  type CartSummary,
  type CouponAmountTerms,
  type CouponTerms,
  couponDiscount,
} from './apply'
export type { CouponRow } from './schema'
export { clubCouponCodes, createCoupon, findCouponByCode } from './service'
