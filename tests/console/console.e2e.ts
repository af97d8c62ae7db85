// The operator console in a real browser (Debian's chromium, driven by playwright-core) against the
// real server with the demo data: sign in, every page renders with data and no console errors, a
// dead letter is replayed from the page and reaches a local receiver, a credential is made and
// revoked, the audit page shows it, keyboard navigation works; screenshots go to docs/console/ with UPDATE_SCREENSHOTS=1.
// Run with `npm run test:e2e`.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { type RunningServer, root, runCli, sharedDataDir, sourceCommand, waitUntilReady } from '../e2e/cli'
import { makeTestDir, removeTestDir } from '../temp-dirs'

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
// The README's screenshots are rewritten only on request (`UPDATE_SCREENSHOTS=1 npm run
// test:e2e`); a plain run writes them to a temporary folder, so tests leave the tree clean.
const screenshots = process.env.UPDATE_SCREENSHOTS
  ? join(root, 'docs', 'console')
  : makeTestDir('screenshots')

/** A webhook receiver on loopback: answers 500 until told to accept, and keeps what it accepted. */
function startReceiver() {
  const received: { id: string | null; signature: string | null; body: any }[] = []
  let accepting = false
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      if (!accepting) return new Response('down for maintenance', { status: 500 })
      received.push({
        id: request.headers.get('webhook-id'),
        signature: request.headers.get('webhook-signature'),
        body: await request.json(),
      })
      return new Response(null, { status: 204 })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/hooks`,
    received,
    accept: () => {
      accepting = true
    },
    stop: () => server.stop(true),
  }
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await probe()
    if (value) return value
    await Bun.sleep(200)
  }
  throw new Error(`timed out waiting for ${what}`)
}

let server: RunningServer
let browser: Browser
let context: BrowserContext
let page: Page
let token: string
let operatorKey: string
const receiver = startReceiver()
const shared = sharedDataDir({
  DEFAULT_TENANT_SEED: 'demo',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  // One quick retry, then a dead letter.
  WEBHOOK_RETRY_SCHEDULE: '100ms',
  WEBHOOK_POLL_INTERVAL_MS: '200',
})
const { env } = shared
/** Errors the browser reported: failed requests and uncaught exceptions. None are expected. */
const browserErrors: string[] = []

const call = async (method: string, path: string, body?: unknown, bearer = token) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json().catch(() => null)) as any }
}

const visit = async (path: string, heading: string) => {
  await page.goto(`${server.url}/console#/${path}`)
  await page.getByRole('heading', { level: 1, name: heading }).waitFor()
}

const shoot = (name: string, fullPage = true) =>
  page.screenshot({ path: join(screenshots, `${name}.png`), fullPage })

const section = (name: string) => page.getByRole('region', { name })

beforeAll(async () => {
  server = await shared.startServer()
  await waitUntilReady(server)
  token = (
    await runCli(sourceCommand, ['token', '--tenant', 'default', '--subject', 'owner', '--ttl', '3600'], env)
  ).json.token
  operatorKey = (await runCli(sourceCommand, ['operator-key', 'create', '--name', 'console e2e'], env)).json
    .token
  expect((await runCli(sourceCommand, ['backup'], env)).code).toBe(0)
  // A subscription whose receiver is down: the vendor's event becomes a dead letter.
  expect(
    (await call('POST', '/web-hook', { object: 'vendor', action: 'create', url: receiver.url })).status,
  ).toBe(201)
  const vendor = await call('POST', '/vendor', { name: 'Dead Letter Glassworks' })
  expect(vendor.status).toBe(201)
  await until('the dead letter', async () => {
    const { body } = await call('GET', '/web-hook-dead-letters')
    return body.deadLetters.find((l: any) => l.aggregateId === vendor.body.id)
  })
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  page.on('console', (message) => {
    if (message.type() === 'error') browserErrors.push(message.text())
  })
  page.on('pageerror', (error) => browserErrors.push(String(error)))
}, 150_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  receiver.stop()
  if (!process.env.UPDATE_SCREENSHOTS) removeTestDir(screenshots)
})

describe('operator console', () => {
  test('sign in with a JWT; the token stays out of the URL and lives in sessionStorage', async () => {
    await page.goto(`${server.url}/console`)
    await page.getByLabel('Token').fill(token)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    expect(page.url()).not.toContain(token)
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).toContain(token)
    expect(await page.evaluate<string[]>('Object.values(localStorage)')).toEqual([])
  })

  test('keyboard: Tab reaches the page links, Enter opens one', async () => {
    await visit('overview', 'Overview')
    await page.locator('body').focus()
    let focused = ''
    for (let i = 0; i < 10 && focused !== 'Webhooks'; i++) {
      await page.keyboard.press('Tab')
      focused = await page.evaluate<string>("document.activeElement?.textContent ?? ''")
    }
    expect(focused).toBe('Webhooks')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor()
    expect(page.url()).toEndWith('#/webhooks')
    expect(await page.getByRole('link', { name: 'Webhooks' }).getAttribute('aria-current')).toBe('page')
  })

  test('overview: readiness, the scheduler jobs and the backups', async () => {
    await visit('overview', 'Overview')
    await section('Health and readiness').getByText('ready', { exact: true }).waitFor()
    await section('Scheduler jobs').getByRole('cell', { name: 'webhooks.deliver' }).waitFor()
    await section('Backups at a glance').getByRole('cell', { name: 'default' }).waitFor()
    await shoot('overview')
  })

  test('overview: today’s orders arrive live through the browser’s EventSource', async () => {
    await visit('overview', 'Overview')
    const today = section('Today’s orders')
    await today.getByText('live', { exact: true }).waitFor()
    const locationId = (await call('GET', '/locations')).body.locations[0].id
    const order = await call('POST', '/order', { locationId, guestName: 'Live Stream Guest' })
    expect(order.status).toBe(201)
    const row = today.getByRole('row').filter({ hasText: 'Live Stream Guest' })
    await row.waitFor()
    expect(await row.innerText()).toContain(String(order.body.orderNumber))
    const closed = await call('POST', `/order/${order.body.id}/void`, { voidReasonName: 'e2e' })
    expect(closed.status).toBeLessThan(300)
    await row.getByText('voided').waitFor()
  })

  test('a bare EventSource in the page: events after their commit, and a resume from an id sends the rest once', async () => {
    await visit('overview', 'Overview')
    const locationId = (await call('GET', '/locations')).body.locations[0].id
    // The page's session already set the stream cookie: EventSource needs nothing else.
    await page.evaluate(`window.received = [];
      window.source = new EventSource('/events/stream?types=order.create');
      window.source.addEventListener('order.create', (e) => window.received.push({ id: e.lastEventId, order: JSON.parse(e.data).payload.id }));
      new Promise((resolve) => { window.source.onopen = resolve })`)
    const first = await call('POST', '/order', { locationId })
    expect(first.status).toBe(201)
    await until('the first event', async () => (await page.evaluate<number>('window.received.length')) === 1)
    const seen = await page.evaluate<{ id: string; order: string }[]>('window.received')
    expect(seen[0]!.order).toBe(first.body.id)
    await page.evaluate('window.source.close()')
    const second = await call('POST', '/order', { locationId })
    const third = await call('POST', '/order', { locationId })
    await page.evaluate(`window.received = [];
      window.source = new EventSource('/events/stream?types=order.create&since=${seen[0]!.id}');
      window.source.addEventListener('order.create', (e) => window.received.push({ id: e.lastEventId, order: JSON.parse(e.data).payload.id }))`)
    await until(
      'the two missed events',
      async () => (await page.evaluate<number>('window.received.length')) >= 2,
    )
    const fourth = await call('POST', '/order', { locationId })
    await until('the next event', async () => (await page.evaluate<number>('window.received.length')) >= 3)
    const resumed = await page.evaluate<{ id: string; order: string }[]>('window.received')
    expect(resumed.map((r) => r.order)).toEqual([second.body.id, third.body.id, fourth.body.id])
    await page.evaluate('window.source.close()')
  })

  test('sales and money: charts, payment mix, gift card liability and drawers', async () => {
    await visit('sales', 'Sales and money')
    await section('Orders and sales per day, last 28 days')
      .getByRole('cell', { name: 'Estate Tasting Room' })
      .waitFor()
    expect(await page.locator('.uplot').count()).toBe(3)
    await section('Payment mix').getByRole('cell', { name: 'cash' }).waitFor()
    await section('Gift card liability, week by week').getByText('Today:').waitFor()
    await section('Cash drawers')
      .getByRole('cell', { name: /^exact/ })
      .first()
      .waitFor()
    await shoot('sales')
  })

  test('webhooks: a dead letter replayed from the page reaches the receiver', async () => {
    await visit('webhooks', 'Webhooks')
    const letters = section('Dead letters')
    const row = letters.getByRole('row').filter({ hasText: 'vendor.create' })
    await row.waitFor()
    await section('Recent deliveries').getByRole('cell', { name: 'HTTP 500' }).first().waitFor()
    await shoot('webhooks')
    receiver.accept()
    await row.getByRole('button', { name: 'Replay' }).click()
    await letters.getByText('Replay of vendor.create started.').waitFor()
    const delivery = await until('the replayed delivery', async () =>
      receiver.received.find(
        (r) => r.body.object === 'vendor' && r.body.payload.name === 'Dead Letter Glassworks',
      ),
    )
    expect(delivery.id).toBeString()
    await until('the dead letter to be delivered', async () => {
      await letters.getByRole('button', { name: 'Refresh' }).click()
      return (await row.innerText()).includes('delivered')
    })
  })

  test('webhooks: the signing secret is rotated from the page; deliveries then carry both signatures', async () => {
    await visit('webhooks', 'Webhooks')
    const hook = section('Webhook subscriptions').getByRole('row').filter({ hasText: receiver.url })
    await hook.getByRole('button', { name: /^Rotate the secret of vendor\.create/ }).click()
    expect(await page.getByLabel('New signing secret').inputValue()).toStartWith('whsec_')
    await call('POST', '/vendor', { name: 'After Rotation Cellars' })
    const delivery = await until('a delivery after the rotation', async () =>
      receiver.received.find((r) => r.body.payload.name === 'After Rotation Cellars'),
    )
    expect(delivery.signature!.split(' ')).toHaveLength(2)
  })

  test('people: a credential is made (token shown once), works, and is revoked', async () => {
    await visit('people', 'People and access')
    await section('Staff users and roles').getByRole('cell', { name: 'Theo Brandt' }).waitFor()
    await section('Open passcode sessions').getByText('Nobody is signed in at a POS.').waitFor()
    await page.getByLabel('Name').fill('E2E booking partner')
    await page.getByRole('checkbox', { name: 'reservations:write' }).check()
    await page.getByRole('button', { name: 'Create credential' }).click()
    const secret = await page.getByLabel('New token').inputValue()
    expect(secret).toStartWith('tpk_live_')
    const locationId = (await call('GET', '/locations')).body.locations[0].id
    const availability = `/tables-api/v1/locations/${locationId}/availability?date=2030-01-01&partySize=2`
    expect((await call('GET', availability, undefined, secret)).status).not.toBe(401)
    await shoot('people')

    await page.reload()
    const row = section('Tables API credentials').getByRole('row').filter({ hasText: 'E2E booking partner' })
    await row.waitFor()
    expect(await row.innerText()).toContain(`tpk_live_…${secret.slice(-4)}`)
    expect(await page.content()).not.toContain(secret)
    await row.getByRole('button', { name: 'Revoke E2E booking partner' }).click()
    await page.getByText('Revoked E2E booking partner').waitFor()
    expect((await call('GET', availability, undefined, secret)).status).toBe(401)
  })

  test('audit: the credential change, its details, and the chain verified', async () => {
    await visit('audit', 'Audit')
    await page.getByLabel('Entity type').fill('api_credential')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    const entries = section('Audit entries')
    await entries.getByText('2 entries match.').waitFor()
    const actions = await entries.locator('tbody tr td[data-label="Action"]').allInnerTexts()
    expect(actions).toEqual(['credential.revoke', 'credential.create'])
    await entries.getByRole('button', { name: /^Show credential\.create/ }).click()
    await page.getByRole('heading', { name: /credential\.create on api_credential/ }).waitFor()
    await page.getByText('E2E booking partner').first().waitFor()
    await page.getByRole('button', { name: 'Verify the audit chain' }).click()
    await page.getByText(/^Chain verified: \d+ entries, none altered\.$/).waitFor()
    await shoot('audit')
  })

  test('backups: the mode, the window, the databases and the snapshot', async () => {
    await visit('backups', 'Backups')
    await section('Backup state').getByText('scheduled-snapshots').waitFor()
    await section('Databases').getByRole('cell', { name: 'default' }).waitFor()
    expect(await section('Snapshots').locator('tbody tr').count()).toBe(1)
    await section('Restoring')
      .getByText('restaurant-ops restore --tenant default --from snapshot', { exact: false })
      .waitFor()
    await shoot('backups')
  })

  test('imports: a file validated, its failed row shown, then applied with its progress', async () => {
    await visit('imports', 'Imports')
    const csv =
      'External ID,First Name,Last Name,Email\ne2e-1,Iris,Imported,iris.e2e@example.com\ne2e-2,Bad,Row,not-an-email\n'
    await page.getByLabel('Kind').selectOption('customers')
    await page
      .getByLabel('CSV or NDJSON file')
      .setInputFiles({ name: 'guests.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    await page.getByRole('button', { name: 'Validate' }).click()
    await page.getByText('2 rows read, 1 would apply, 0 unchanged, 1 failed').waitFor()
    const failed = page.getByRole('table', { name: 'Failed rows (the first 100)' })
    expect(await failed.locator('tbody tr td').allInnerTexts()).toEqual(['3', 'email', expect.any(String)])
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.getByText('2 rows read, 1 applied, 0 unchanged, 1 failed').waitFor()
    expect(await page.locator('progress').getAttribute('value')).toBe('100')
    const found = await call('GET', '/customers?q=iris.e2e')
    expect(found.body.customers.map((c: { externalRef: string }) => c.externalRef)).toEqual(['e2e-1'])
    await section('Recent imports').getByRole('cell', { name: 'guests.csv' }).first().waitFor()
    await shoot('imports')
  })

  test('no page logged an error', () => {
    expect(browserErrors).toEqual([])
  })

  test('on a phone: the pages stack and stay readable', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await visit('sales', 'Sales and money')
    await section('Payment mix').getByRole('cell', { name: 'cash' }).waitFor()
    await page.locator('.uplot').first().waitFor()
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')
    expect(overflow).toBeLessThanOrEqual(0)
    await shoot('phone-sales', false)
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  test('an operator key opens the operator pages: the tenant list and every database', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByLabel('Token').fill(operatorKey)
    const readinessAsked = page.waitForRequest((request) => request.url().endsWith('/health/ready'))
    await page.getByRole('button', { name: 'Sign in' }).click()
    await visit('overview', 'Overview')
    // Asked with the key: an operator is shown each failed check's and job's error text.
    expect((await readinessAsked).headers().authorization).toBe(`Bearer ${operatorKey}`)
    await section('Tenants').getByRole('cell', { name: 'default' }).waitFor()
    await section('Backups at a glance').getByRole('cell', { name: 'control' }).waitFor()
    await shoot('operator-overview')
  })

  test('a refused token gets a clear message', async () => {
    const fresh = await context.newPage()
    await fresh.goto(`${server.url}/console`)
    await fresh.getByLabel('Token').fill('eyJhbGciOiJub25lIn0.e30.invalid')
    await fresh.getByRole('button', { name: 'Sign in' }).click()
    await fresh
      .getByText(/Your token was refused \(401\)/)
      .first()
      .waitFor()
    await fresh.goto(`${server.url}/console#/people`)
    await fresh
      .getByText(/Your token was refused \(401\)/)
      .first()
      .waitFor()
    await fresh.close()
  })
})
