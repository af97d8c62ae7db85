import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { Coupon, CouponList, CouponListQuery, CouponParams, CreateCoupon, UpdateCoupon } from './model'
import { createCoupon, deleteCoupon, getCoupon, listCoupons, updateCoupon } from './service'

/** One implementation, mounted at `/coupon` and at `/coupons`. */
export const couponRoutes = (auth: AuthPlugin, prefix: '/coupon' | '/coupons') =>
  new Elysia({ name: `coupons${prefix}`, prefix, detail: { tags: ['Coupons'] } })
    .use(auth)
    .get('', ({ db, query }) => listCoupons(db, { q: query.q, status: query.status, ...pageOf(query) }), {
      permission: 'coupons:read',
      query: CouponListQuery,
      response: CouponList,
      detail: {
        summary: 'List coupons',
        description: `Ordered by code; \`q\` matches code or title; \`status\` filters. Same as ${prefix === '/coupon' ? '/coupons' : '/coupon'}.`,
      },
    })
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createCoupon(db, actor, body)
      },
      {
        permission: 'coupons:write',
        body: CreateCoupon,
        response: { 201: Coupon },
        detail: {
          summary: 'Create a coupon',
          description:
            'Only `title` is required. Codes are unique case-insensitively (409); omitted, one is generated. Discount values: Percentage Off in basis points 1..10000 (1000 = 10%, above 100% is 400), Dollar Off and Set Price in cents, No Discount and Free without a value. `startDate` must not be after `endDate`. Product and Collection coupons need `appliesToObjectIds`, which must be products or collections of this tenant; Customer, Club and Customer Tag availability needs `availableToObjectIds`, which must be customers, clubs or customer tags of this tenant (400 naming each bad id by index; a merged-away customer id is stored as the primary). Money fields are cents.',
        },
      },
    )
    .get('/:id', ({ db, params }) => getCoupon(db, params.id), {
      permission: 'coupons:read',
      params: CouponParams,
      response: Coupon,
      detail: { summary: 'Get a coupon' },
    })
    .put('/:id', ({ db, actor, params, body }) => updateCoupon(db, actor, params.id, body), {
      permission: 'coupons:write',
      params: CouponParams,
      body: UpdateCoupon,
      response: Coupon,
      detail: {
        summary: 'Update a coupon',
        description:
          'Partial; the coupon that results must satisfy the same rules as a new one (400 otherwise, nothing changed). The ids in `appliesToObjectIds` and `availableToObjectIds` are checked against this tenant when the patch sends them or their `appliesTo`/`availableTo` (ids stored earlier are not re-checked otherwise). A code taken by another coupon is 409.',
      },
    })
    .delete(
      '/:id',
      ({ db, actor, params, set }) => {
        deleteCoupon(db, actor, params.id)
        set.status = 204
      },
      {
        permission: 'coupons:write',
        params: CouponParams,
        response: { 204: t.Void() },
        detail: { summary: 'Delete a coupon', description: 'Answers 204 with no body.' },
      },
    )
