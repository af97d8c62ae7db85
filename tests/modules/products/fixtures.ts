// Shared product fixtures of the catalog tests.
import { expect } from 'bun:test'
import type { ScenarioContext, StaffFixture, TenantFixture, TestApp } from '../../harness'

let n = 0

export const wine = (overrides: Record<string, unknown> = {}) => ({
  title: `Estate Cabernet ${++n}`,
  type: 'Wine',
  variants: [{ title: '750ml', sku: `CAB-${n}`, price: 4500 }],
  ...overrides,
})

export async function createProduct(
  t: TestApp,
  body: Record<string, unknown> = wine(),
  opts: { as?: StaffFixture; tenant?: TenantFixture } = {},
) {
  const res = await t.request('POST', '/product', { body, ...opts })
  expect(res.status).toBe(201)
  return res.body
}

export const createProductIn = async (ctx: ScenarioContext, body?: Record<string, unknown>) => {
  ctx.vars.product = await createProduct(ctx.t, body)
  ctx.vars.productId = ctx.vars.product.id
}
