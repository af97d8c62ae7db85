import { made, type WalkFamily } from '../family'

export const coupons: WalkFamily = {
  name: 'coupons',
  prefixes: ['/coupon', '/coupons'],
  located: false,
  async create(t, tenant) {
    const coupon = await made(t, tenant, 'POST', '/coupon', { title: 'Ten off' })
    return { id: coupon.id }
  },
}
