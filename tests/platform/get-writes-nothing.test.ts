// A GET never writes. Builds a tenant with real records in every family (through the API), lets
// time pass for the ones a background job moves on (a club hold that has ended, a channel snooze
// that has run out, an abandoned upload, a gift card delivery that is due, an idempotency key
// that has expired, a pending ERA report, a queued import), then calls every GET route of the route table as the
// owner, path parameters filled with real ids, and checks after each call that no table of the
// tenant or control database gained or lost a row (in particular no audit entry and no outbox
// event) and that no row was updated either (SQLite's total_changes() on each connection counts
// every row inserted, updated or deleted through it).
//
// A new GET route with a path parameter needs a real id in `ids` below (the first test says
// which), so the walk reads real records rather than stopping at a 404.
import { afterAll, describe, expect, test } from 'bun:test'
import { markDead } from '../../src/platform/events/dead-letter-state'
import { fanOut } from '../../src/platform/events/delivery'
import { webhookDeliveries } from '../../src/platform/events/schema'
import { zonedInstant } from '../../src/platform/foundation/dates'
import { newId, nowIso } from '../../src/platform/foundation/ids'
import { systemOperator } from '../../src/platform/operator/audit'
import { createOperatorKey } from '../../src/platform/operator/keys'
import { inWriteTransaction } from '../../src/platform/tenancy/transaction'
import { changedCounts, createTestApp, type TestResponse, tableCounter } from '../harness'
import { openDrawer } from '../modules/cash/helpers'
import { addAddress, makeClub, makeCustomer, makeTag } from '../modules/customers/helpers'
import { issueCard } from '../modules/gift-cards/helpers'
import { upload } from '../modules/imports/helpers'
import { addLocation, makeIngredient, makeProduct } from '../modules/inventory/helpers'
import { jobFor } from '../modules/labor/helpers'
import { png } from '../modules/media/files'
import { readyAsset, startUpload } from '../modules/media/helpers'
import { newKey, orderOf, pay } from '../modules/payments/helpers'
import { book, inDays, publishedExperience } from '../modules/reservations/helpers'

const t = await createTestApp()
afterAll(() => t.close())
const operatorKey = createOperatorKey(t.platform.control.db, systemOperator('test'), { name: 'walk' }).token
const { tenant } = t
const client = tenant.db.$client

/** The body of a successful (2xx) response. */
async function ok(res: Promise<TestResponse>) {
  const r = await res
  if (r.status >= 300) throw new Error(`${r.status}: ${r.text}`)
  return r.body
}
const post = (path: string, body: unknown, headers?: Record<string, string>) =>
  ok(t.request('POST', path, { body, headers }))

// ---------------------------------------------------------------------------------------------
// The tenant's records, and the id each path parameter gets, by the route path up to it.

const customer = await makeCustomer(t)
const address = await addAddress(t, customer.id)
const club = await makeClub(t)
const membership = await post('/club-membership', {
  customerId: customer.id,
  clubId: club.id,
  orderDeliveryMethod: 'Pickup',
  billToCustomerAddressId: address.id,
})
await ok(t.request('POST', `/club-membership/${membership.id}/hold`, { body: { holdUntil: inDays(30) } }))
const product = await makeProduct(t, 'Margherita')
const release = await post(`/club/${club.id}/releases`, {
  title: 'Spring release',
  processDate: '2026-03-01',
  items: [
    { productVariantId: (await ok(t.request('GET', `/product/${product}`))).variants[0].id, quantity: 1 },
  ],
})
const ingredient = await makeIngredient(t)
const recipe = await post('/inventory/recipes', {
  kind: 'menu_item',
  title: 'Margherita',
  productId: product,
  yieldQuantity: 1,
  components: [{ ingredientId: ingredient.id, quantity: 100 }],
})
const tag = await makeTag(t, 'Regular')
const collection = await post('/collections', { title: 'Reds' })
const coupon = await post('/coupons', { title: 'Welcome' })
const tax = await post('/tax', {
  title: 'California',
  countryCode: 'US',
  stateCode: 'CA',
  freight: 0,
  food: 875,
  generalMerchandise: 725,
  wine: 1000,
  taxCalculation: 'Added',
})
const vendor = await post('/vendor', { name: 'Vineyard supply' })
const note = await post('/note', { content: 'Prefers reds', noteDate: inDays(0), customerId: customer.id })
const drawer = await openDrawer(t)
const order = await orderOf(t, 2_000)
const payment = await ok(pay(t, order.id, { tender: 'cash', amount: 2_000, amountTendered: 2_000 }))
const shipping = await post('/shipping', {
  title: 'Domestic',
  regions: [{ countryCode: 'US', stateCode: 'CA' }],
  services: [
    { title: 'Ground', code: 'GND', rates: [{ toWeight: 5, price: 800 }], topRate: { isWrapShipping: true } },
  ],
})
const giftCard = await issueCard(t, 5_000, {
  body: { recipientEmail: 'rosa@example.test', deliveryChannel: 'email' }, // due now
})
const app = await post('/apps', { slug: 'shipcompliant', name: 'ShipCompliant' })
await ok(
  t.request('POST', '/app-sync', {
    body: { appId: app.id, objectType: 'Order', objectId: order.id, status: 'Success' },
  }),
)
const asset = await readyAsset(t, png(2, 2))
const abandonedUpload = await startUpload(t, { kind: 'logo' })
const webhook = await post('/web-hook', {
  object: 'customer',
  action: 'update',
  url: 'https://hooks.example.com/customers',
})
await post(
  '/tables-api/v1/webhook-subscriptions',
  { object: 'reservation', action: 'create', url: 'https://hooks.example.com/tables' },
  { 'idempotency-key': newKey() },
)
const experience = await publishedExperience(t)
await ok(
  t.request('PUT', '/tables/v1/settings/location-mapping', {
    body: { tenantLocationCode: 'main', publicSlug: 'acme', publicName: 'Acme', isPublic: true },
  }),
)
const reservation = (await ok(book(t, { date: inDays(3) }))).data
const reservationType = await post('/reservation-type', {
  title: 'Estate Tasting',
  minGuestCount: 1,
  maxGuestCount: 6,
  reservationLocationIds: [tenant.locationId],
  options: [{ title: 'Classic flight', sku: 'TAST-1', price: 3500 }],
  timeSlots: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'].map(
    (dayOfWeek) => ({ dayOfWeek, times: [{ time: '11:00' }] }),
  ),
})
const legacyReservation = await post('/reservation', {
  reservationTypeId: reservationType.id,
  reservationDate: zonedInstant(inDays(5), '11:00', 'America/Los_Angeles').toISOString(),
  guestCount: 2,
  reservationLocationId: tenant.locationId,
  inventoryLocationId: tenant.locationId,
})
const { job, assignment } = await jobFor(t, tenant.staff)
const shift = await ok(
  t.request('POST', '/labor/shifts/clock-in', {
    as: tenant.staff,
    headers: { 'x-location-id': tenant.locationId },
    body: { laborJobId: job.id },
  }),
)
const reports = Object.fromEntries(
  await Promise.all(
    (['metrics', 'check', 'labor', 'menu'] as const).map(async (kind) => [
      kind,
      await ok(
        t.request('POST', `/era/v1/${kind}/day`, {
          body: { startBusinessDate: inDays(-7), endBusinessDate: inDays(0) },
        }),
      ),
    ]),
  ),
) as Record<string, string>

// An import queued and not worked yet: reading it leaves it to the job.
const pendingImport = (
  await upload(t, 'External ID,First Name,Last Name,Email\nc-1,A,B,a@example.com\n', {
    kind: 'customers',
    mode: 'apply',
  })
).body

// A delivery of the customer webhook that gave up: a dead letter.
await ok(t.request('PUT', `/customers/${customer.id}`, { body: { firstName: 'Anna' } }))
fanOut(tenant.db)
const delivery = tenant.db.select().from(webhookDeliveries).get()!
inWriteTransaction(tenant.db, (tx) => markDead(tx, delivery, 'receiver refused', nowIso()))
const deadLetter = (await ok(t.request('GET', '/web-hook-dead-letters'))).deadLetters[0]

// A second location whose DoorDash channel is snoozed (the first location keeps no settings).
const secondLocation = addLocation(tenant)
const channelSettings = await ok(
  t.request('PUT', `/shipping/off-premise/settings?locationId=${secondLocation}`, {
    body: { thirdPartyChannels: [{ title: 'DoorDash', provider: 'doordash' }] },
  }),
)
const channel = channelSettings.thirdPartyChannels[0]
await ok(
  t.request('POST', `/shipping/off-premise/channels/${channel.id}/control?locationId=${secondLocation}`, {
    body: { action: 'snooze', snoozeUntil: new Date(Date.now() + 3_600_000).toISOString() },
  }),
)

// Time passes, before any job has run: the hold ended yesterday, the snooze a minute ago, the
// upload URL two days ago, and the idempotency keys have expired.
const aMinuteAgo = new Date(Date.now() - 60_000).toISOString()
client.run('UPDATE club_memberships SET hold_until = ? WHERE id = ?', [inDays(-1), membership.id])
client.run('UPDATE off_premise_channels SET snooze_until = ?, next_snooze_ends_at = ?', [
  aMinuteAgo,
  aMinuteAgo,
])
client.run('UPDATE media_assets SET upload_expires_at = ? WHERE id = ?', [
  new Date(Date.now() - 2 * 86_400_000).toISOString(),
  abandonedUpload.asset.id,
])
client.run('UPDATE idempotency_keys SET expires_at = ?', [aMinuteAgo])

const wineAppellation = (await ok(t.request('GET', '/wine-appellation?limit=1'))).wineAppellations[0]
const wineVarietal = (await ok(t.request('GET', '/wine-varietal?limit=1'))).wineVarietals[0]

/** Real ids by the route path up to (and including) the parameter; both spellings of aliases. */
const ids: Record<string, string> = {
  '/staff-users/:id': tenant.staff.id,
  '/tables/v1/experiences/:id': experience.id,
  '/tables-api/v1/locations/:locationId': tenant.locationId,
  '/tables-api/v1/locations/:locationId/reservations/:reservationId': reservation.id,
  '/reservation-type/:id': reservationType.id,
  '/reservation/:id': legacyReservation.id,
  '/vendor/:id': vendor.id,
  '/customers/:id': customer.id,
  '/customer/:id': customer.id,
  '/club/:id': club.id,
  '/clubs/:id': club.id,
  '/club/:id/releases/:releaseId': release.id,
  '/clubs/:id/releases/:releaseId': release.id,
  '/club-membership/:id': membership.id,
  '/product/:id': product,
  '/wine-appellation/:id': wineAppellation.id,
  '/wine-varietal/:id': wineVarietal.id,
  '/collection/:id': collection.id,
  '/collections/:id': collection.id,
  '/tag/:objectType': 'customer',
  '/tag/:objectType/:id': tag.id,
  '/note/:id': note.id,
  '/tax/:id': tax.id,
  '/coupon/:id': coupon.id,
  '/coupons/:id': coupon.id,
  '/inventory/ingredients/:id': ingredient.id,
  '/inventory/recipes/:id': recipe.id,
  '/order/settings/locations/:locationId': tenant.locationId,
  '/order/:id': order.id,
  '/order/:id/payments/:paymentId': payment.id,
  '/shipping/:id': shipping.id,
  '/gift-card/:id': giftCard.id,
  '/cash-management/drawers/:id': drawer.id,
  '/apps/:id': app.id,
  '/app-syncs/:objectId': order.id,
  '/media/files/:tenantId': tenant.id,
  '/problems/:slug': 'validation-failed',
  '/media/files/:tenantId/:objectId': new URL(asset.publicUrl).pathname.split('/').pop()!,
  '/web-hook/:id': webhook.id,
  '/web-hook-dead-letters/:id': deadLetter.id,
  '/labor/employees/:staffUserId': tenant.staff.id,
  '/labor/jobs/:id': job.id,
  '/labor/job-assignments/:id': assignment.id,
  '/labor/shifts/:id': shift.id,
  '/restaurants/v1/restaurants/:id': tenant.locationId,
  '/era/v1/metrics/:param': reports.metrics!,
  '/era/v1/check/:param': reports.check!,
  '/era/v1/labor/:param': reports.labor!,
  '/era/v1/menu/:param': reports.menu!,
  '/locations/:id': tenant.locationId,
  '/imports/:id': pendingImport.id,
  '/admin/v1/tenants/:id': tenant.id,
}

/** Query strings of the routes that require one (and a few that make a read do more). */
const queries: Record<string, string | string[]> = {
  '/club-membership': '?expand=customer,club',
  '/club-membership/:id': '?expand=customer,club',
  '/tables-api/v1/locations/:locationId/availability': `?date=${inDays(3)}&partySize=2`,
  '/tables-api/v1/locations/:locationId/reservations': `?dateFrom=${inDays(0)}&dateTo=${inDays(7)}`,
  '/shipping/rates': '?weight=3&countryCode=US&stateCode=CA',
  '/order/:id/shipping-rates': '?countryCode=US&stateCode=CA',
  '/shipping/off-premise/settings': [`?locationId=${tenant.locationId}`, `?locationId=${secondLocation}`],
  '/gift-card/reports/liability': `?from=${inDays(-7)}&to=${inDays(0)}`,
  '/gift-card/reports/transactions': `?from=${inDays(-7)}&to=${inDays(0)}`,
  '/gift-card/reports/liability-pooling': `?from=${inDays(-7)}&to=${inDays(0)}`,
  '/gift-card/reports/failed-deliveries': `?from=${inDays(-7)}&to=${inDays(0)}`,
  '/gift-card/lookup': `?code=${encodeURIComponent(giftCard.code)}`,
  '/gift-card/:id': '?expand=customer',
  // The stream sends what the outbox holds and ends, rather than staying open.
  '/events/stream': '?follow=false&since=0',
  '/tables-api/v1/events/stream': '?follow=false&since=0',
}

/** The URLs the walk reads for a route, and the path parameters it has no real id for. */
function urlsOf(path: string): { urls: string[]; unknown: string[] } {
  const unknown: string[] = []
  const url = path.replace(/:(\w+)/g, (param, _name: string, offset: number) => {
    const id = ids[path.slice(0, offset + param.length)]
    if (id) return encodeURIComponent(id)
    unknown.push(param)
    return newId()
  })
  return { urls: [queries[path] ?? ''].flat().map((query) => url + query), unknown }
}

// ---------------------------------------------------------------------------------------------

const controlClient = t.platform.control.db.$client
const changes = () =>
  [client, controlClient].map(
    (connection) => (connection.query('SELECT total_changes() AS n').get() as { n: number }).n,
  )
const counts = tableCounter({ tenant: tenant.db, control: t.platform.control.db }, () =>
  t.platform.dueIndex.flush(),
)
const getRoutes = t.app.routes.filter((r) => r.method === 'GET')

describe('a GET never writes', () => {
  test('the walk covers the route table, with real ids for every path parameter', () => {
    expect(getRoutes.length).toBeGreaterThan(100)
    expect(getRoutes.flatMap((r) => urlsOf(r.path).unknown.map((p) => `${r.path} ${p}`))).toEqual([])
  })

  test('every GET route, as the owner, answers without writing a row', async () => {
    // The jobs' due work of the setup's writes (stored a second after them, not a GET's doing) is
    // flushed by `counts` before each reading.
    const failures: string[] = []
    for (const url of getRoutes.flatMap((r) => urlsOf(r.path).urls)) {
      const before = { counts: counts(), changes: changes() }
      // The operator API takes an operator key, every other route the owner.
      const operator = url.startsWith('/admin/') ? { as: operatorKey, tenant: null } : {}
      const response = await t.request('GET', url, operator)
      const grown = changedCounts(before.counts, counts())
      const changed = changes().some((n, i) => n !== before.changes[i])
      if (grown.length > 0 || changed)
        failures.push(`GET ${url} wrote: ${grown.join(', ') || 'updated rows'}`)
      if (response.status >= 400)
        failures.push(`GET ${url} answered ${response.status}: ${response.text.slice(0, 200)}`)
    }
    expect(failures).toEqual([])
  })

  test('the reads answered the truth as of now, and left the time-based work to the jobs', async () => {
    const held = await ok(t.request('GET', `/club-membership/${membership.id}`))
    expect(held).toMatchObject({ status: 'Active', holdUntil: null, holdReason: null })
    const never = await ok(t.request('GET', `/shipping/off-premise/settings?locationId=${tenant.locationId}`))
    expect(never).toMatchObject({ id: null, locationId: tenant.locationId, quoteTimeStrategy: 'manual' })
    const snoozed = await ok(t.request('GET', `/shipping/off-premise/settings?locationId=${secondLocation}`))
    expect(snoozed.thirdPartyChannels[0]).toMatchObject({ status: 'ordering_on', snoozeUntil: null })

    const stored = (sql: string) => client.query(sql).get()
    expect(stored('SELECT status FROM club_memberships')).toEqual({ status: 'On Hold' })
    expect(stored('SELECT status FROM off_premise_channels')).toEqual({ status: 'snoozed' })
    expect(stored('SELECT count(*) AS n FROM off_premise_settings')).toEqual({ n: 1 })
    expect(stored("SELECT count(*) AS n FROM media_assets WHERE status = 'draft'")).toEqual({ n: 1 })
    expect(stored('SELECT delivery_status AS s FROM gift_cards')).toEqual({ s: 'scheduled' })
    expect(stored("SELECT count(*) AS n FROM era_report_requests WHERE status = 'pending'")).toEqual({ n: 4 })
    expect(stored('SELECT count(*) > 0 AS any FROM idempotency_keys')).toEqual({ any: 1 })
  })
})
