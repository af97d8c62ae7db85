// A winery for club release tests: two wines with weights, taxes in CA (the location) and WA,
// ground shipping to both, a club with a 15% member coupon on its wines, and members made
// through the API.
import { PROCESS_RELEASES_JOB } from '../../../src/modules/club-releases/jobs'
import { newId } from '../../../src/platform/foundation/ids'
import type { TenantFixture, TestApp } from '../../harness'

export async function ok(t: TestApp, method: string, path: string, body?: unknown, tenant?: TenantFixture) {
  const res = await t.request(method, path, { body, tenant, as: tenant?.owner })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
  return res.body
}

export interface Winery {
  clubId: string
  /** Variant ids. */
  pinotId: string
  chardId: string
  productIds: string[]
}

const tax = (stateCode: string, rate: number, freight: number) => ({
  title: stateCode,
  countryCode: 'US',
  stateCode,
  freight,
  food: rate,
  generalMerchandise: rate,
  wine: rate,
  taxCalculation: 'Added',
})

export async function winery(t: TestApp, tenant: TenantFixture = t.tenant): Promise<Winery> {
  const call = (method: string, path: string, body?: unknown) => ok(t, method, path, body, tenant)
  await call('POST', '/tax', tax('CA', 875, 0))
  await call('POST', '/tax', tax('WA', 650, 650))
  await call('PUT', `/order/settings/locations/${tenant.locationId}`, { countryCode: 'US', stateCode: 'CA' })
  await call('POST', '/shipping', {
    title: 'Domestic',
    regions: [
      { countryCode: 'US', stateCode: 'CA' },
      { countryCode: 'US', stateCode: 'WA' },
    ],
    services: [
      {
        title: 'Ground',
        code: 'GND',
        isDefault: true,
        rates: [
          { toWeight: 5, price: 1200 },
          { toWeight: 10, price: 1850 },
        ],
        topRate: { isWrapShipping: true },
      },
    ],
  })
  const pinot = await call('POST', '/product', {
    title: 'Pinot Noir 2022',
    type: 'Wine',
    variants: [{ title: '750ml', sku: 'PINOT-22', price: 4500, weight: 3 }],
  })
  const chard = await call('POST', '/product', {
    title: 'Chardonnay 2023',
    type: 'Wine',
    variants: [{ title: '750ml', sku: 'CHARD-23', price: 3800, weight: 3 }],
  })
  const wines = {
    pinotId: pinot.variants[0].id,
    chardId: chard.variants[0].id,
    productIds: [pinot.id, chard.id],
  }
  return anotherClub(t, { clubId: '', ...wines }, tenant)
}

/** A new club of the winery, with its 15% member coupon on the two wines. */
export async function anotherClub(t: TestApp, w: Winery, tenant: TenantFixture = t.tenant): Promise<Winery> {
  const call = (method: string, path: string, body?: unknown) => ok(t, method, path, body, tenant)
  const club = await call('POST', '/club', { title: 'Cellar club', slug: `cellar-${newId()}` })
  await call('POST', '/coupon', {
    title: 'Member 15%',
    code: `MEMBER15-${newId()}`,
    appliesTo: 'Product',
    appliesToObjectIds: w.productIds,
    productDiscountType: 'Percentage Off',
    productDiscount: 1500,
    availableTo: 'Club',
    availableToObjectIds: [club.id],
  })
  return { ...w, clubId: club.id }
}

export interface MemberSpec {
  method: 'Ship' | 'Pickup'
  state?: string
  /** A sandbox test token for the saved card; null: no card. */
  token?: string | null
  /** Default 2026-10-01: before every release these tests process, so the member is due for it. */
  signupDate?: string
}

/** A customer with an address and (unless token is null) a saved card, signed up to the club. */
export async function member(t: TestApp, clubId: string, spec: MemberSpec, tenant: TenantFixture = t.tenant) {
  const call = (method: string, path: string, body?: unknown) => ok(t, method, path, body, tenant)
  const customer = await call('POST', '/customers', {
    firstName: 'Member',
    lastName: spec.method,
    email: `${newId()}@example.test`,
    addresses: [
      {
        label: 'home',
        name: 'Member',
        line1: '1 Vine St',
        city: 'Somewhere',
        region: spec.state ?? 'CA',
        postalCode: '90000',
        countryCode: 'US',
      },
    ],
  })
  const token = spec.token === undefined ? 'tok_visa' : spec.token
  const card = token
    ? await call('POST', `/customers/${customer.id}/payment-methods`, { providerToken: token })
    : null
  const membership = await t.request('POST', '/club-membership', {
    tenant,
    as: tenant.owner,
    body: {
      customerId: customer.id,
      clubId,
      orderDeliveryMethod: spec.method,
      shipToCustomerAddressId: spec.method === 'Ship' ? customer.addresses[0].id : undefined,
      customerCreditCardId: card?.id,
      signupDate: spec.signupDate ?? '2026-10-01',
    },
    headers: { 'x-location-id': tenant.locationId },
  })
  if (membership.status !== 201) throw new Error(`membership: ${membership.text}`)
  return { customerId: customer.id as string, membershipId: membership.body.id as string }
}

export const releaseBody = (w: Winery, over: Record<string, unknown> = {}) => ({
  title: 'Autumn release',
  processDate: '2026-11-01',
  items: [
    { productVariantId: w.pinotId, quantity: 2 },
    { sku: 'CHARD-23', quantity: 1, price: 3200 },
  ],
  ...over,
})

/** An Active release of the club. */
export async function activeRelease(t: TestApp, w: Winery, over: Record<string, unknown> = {}) {
  const release = await ok(t, 'POST', `/club/${w.clubId}/releases`, releaseBody(w, over))
  await ok(t, 'POST', `/club/${w.clubId}/releases/${release.id}/activate`)
  return release.id as string
}

/** Requests a run and waits for the job to finish it. */
export async function processNow(t: TestApp, clubId: string, releaseId: string, what = 'process') {
  const res = await t.request('POST', `/club/${clubId}/releases/${releaseId}/${what}`)
  if (res.status !== 202) throw new Error(`${what}: ${res.status} ${res.text}`)
  await t.platform.jobs.runNow(PROCESS_RELEASES_JOB)
  return res.body.runId as string
}
