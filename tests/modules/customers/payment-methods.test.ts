// Stored cards: sandbox and Stripe providers, the references we keep, and proof that no card
// number reaches the data directory (database, WAL, anything else) or the log.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../../../src/config'
import { looksLikeCardNumber } from '../../../src/platform/payments/provider'
import { sandboxProvider } from '../../../src/platform/payments/sandbox'
import { stripeProvider } from '../../../src/platform/payments/stripe'
import { countRows, createTestApp, runScenarios, type TestApp } from '../../harness'
import { type FakeStripe, startFakeStripe } from './fake-stripe'
import { addCard, makeClub, makeCustomer } from './helpers'

/** Every file under a directory, recursively, as raw bytes (SQLite files, -wal, -shm, keys...). */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, bytes: readFileSync(path) }]
  })
}

/** The files holding any of the spellings (plain, spaced, dashed; UTF-8 and UTF-16) of a value. */
function filesContaining(dir: string, value: string): string[] {
  const digits = value.replace(/\D/g, '')
  const spellings = [
    value,
    digits,
    digits.replace(/(\d{4})(?=\d)/g, '$1 '),
    digits.replace(/(\d{4})(?=\d)/g, '$1-'),
  ]
  const needles = spellings.flatMap((s) => [Buffer.from(s, 'utf8'), Buffer.from(s, 'utf16le')])
  return filesUnder(dir)
    .filter(({ bytes }) => needles.some((needle) => bytes.includes(needle)))
    .map(({ path }) => path)
}

describe('payment methods: sandbox provider (the default)', () => {
  runScenarios([
    {
      name: 'a test token stores the provider references, brand, last four and expiry',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/payment-methods`,
      setup: async (ctx) => {
        ctx.vars.customer = await makeCustomer(ctx.t)
      },
      body: { providerToken: 'tok_mastercard' },
      status: 201,
      expectBody: { provider: 'sandbox', brand: 'mastercard', last4: '4444', expMonth: 12 },
      check: (res, ctx) => {
        expect(res.body.providerCustomerId).toStartWith('sandbox_cus_')
        expect(res.body.providerPaymentMethodId).toStartWith('sandbox_pm_')
        expect(res.body.customerId).toBe(ctx.vars.customer.id)
        expect(Object.keys(res.body).sort()).toEqual(
          [
            'id',
            'customerId',
            'provider',
            'providerCustomerId',
            'providerPaymentMethodId',
            'brand',
            'last4',
            'expMonth',
            'expYear',
            'createdAt',
          ].sort(),
        )
      },
    },
    {
      name: 'a card number as the token is 400 and stores nothing',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/payment-methods`,
      setup: async (ctx) => {
        ctx.vars.customer = await makeCustomer(ctx.t)
      },
      body: { providerToken: '4111-1111-1111-1111' },
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'body/providerToken' })])
        expect(res.text).not.toContain('4111')
        expect(countRows(ctx.t.tenant.db, 'customer_payment_methods')).toBe(0)
        expect(countRows(ctx.t.tenant.db, 'payment_provider_customers')).toBe(0)
      },
    },
    {
      name: 'card fields beside the token are 400',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/payment-methods`,
      setup: async (ctx) => {
        ctx.vars.customer = await makeCustomer(ctx.t)
      },
      body: { providerToken: 'tok_visa', number: '4242424242424242', cvc: '123' },
      status: 400,
      code: 'validation_failed',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'customer_payment_methods')).toBe(0),
    },
    {
      name: 'an unknown token is 400 naming the token field',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/payment-methods`,
      setup: async (ctx) => {
        ctx.vars.customer = await makeCustomer(ctx.t)
      },
      body: { providerToken: 'tok_nonsense' },
      status: 400,
      code: 'validation_failed',
      check: (res) => expect(res.body.errors[0].path).toBe('body/providerToken'),
    },
    {
      name: 'a declined card is 402 and stores no card',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/payment-methods`,
      setup: async (ctx) => {
        ctx.vars.customer = await makeCustomer(ctx.t)
      },
      body: { providerToken: 'tok_chargeDeclined' },
      status: 402,
      code: 'payment_required',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'customer_payment_methods')).toBe(0),
    },
    {
      name: 'the staff role may store a card; read_only may not (403)',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/payment-methods`,
      setup: async (ctx) => {
        ctx.vars.customer = await makeCustomer(ctx.t)
      },
      as: (ctx) => ctx.t.tenant.readOnly,
      body: { providerToken: 'tok_visa' },
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'read_only may list stored cards',
      method: 'GET',
      url: (ctx) => `/customer/${ctx.vars.customer.id}/payment-methods`,
      setup: async (ctx) => {
        ctx.vars.customer = await makeCustomer(ctx.t)
        ctx.vars.card = await addCard(ctx.t, ctx.vars.customer.id)
      },
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      check: (res, ctx) => expect(res.body).toEqual({ paymentMethods: [ctx.vars.card], total: 1 }),
    },
  ])

  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('one provider customer per customer; remove detaches; a card a live membership charges cannot go', async () => {
    const customer = await makeCustomer(t)
    const visa = await addCard(t, customer.id, 'tok_visa')
    const amex = await addCard(t, customer.id, 'pm_card_amex')
    expect(amex.providerCustomerId).toBe(visa.providerCustomerId)
    expect(countRows(t.tenant.db, 'payment_provider_customers')).toBe(1)
    expect(await t.platform.payments.listPaymentMethods(visa.providerCustomerId)).toHaveLength(2)

    const club = await makeClub(t)
    const membership = await t.request('POST', '/club-membership', {
      body: {
        customerId: customer.id,
        clubId: club.id,
        orderDeliveryMethod: 'Pickup',
        customerCreditCardId: visa.id,
      },
    })
    const refused = await t.request('DELETE', `/customers/${customer.id}/payment-methods/${visa.id}`)
    expect(refused.status).toBe(409)
    expect(refused.body.uses).toEqual({ clubMemberships: 1 })
    expect(await t.platform.payments.listPaymentMethods(visa.providerCustomerId)).toHaveLength(2)

    await t.request('POST', `/club-membership/${membership.body.id}/cancel`, { body: {} })
    const removed = await t.request('DELETE', `/customers/${customer.id}/payment-methods/${visa.id}`)
    expect(removed.status).toBe(200)
    expect(removed.body).toEqual(visa)
    expect((await t.request('GET', `/customers/${customer.id}/payment-methods`)).body.paymentMethods).toEqual(
      [amex],
    )
    const remaining = await t.platform.payments.listPaymentMethods(visa.providerCustomerId)
    expect(remaining.map((c) => c.providerPaymentMethodId)).toEqual([amex.providerPaymentMethodId])
    // The cancelled membership keeps the provider references as history; its card link is cleared.
    const history = (await t.request('GET', `/club-membership/${membership.body.id}`)).body
    expect(history).toMatchObject({
      customerCreditCardId: null,
      providerPaymentMethodId: visa.providerPaymentMethodId,
    })
    expect((await t.request('DELETE', `/customers/${customer.id}/payment-methods/${visa.id}`)).status).toBe(
      404,
    )

    const actions = t.tenant.db.$client
      .query("SELECT action, metadata FROM audit_entries WHERE action LIKE 'customer.p%' ORDER BY seq")
      .all() as { action: string; metadata: string }[]
    expect(actions.map((a) => a.action)).toEqual([
      'customer.provider-customer.create',
      'customer.payment-method.create',
      'customer.payment-method.create',
      'customer.payment-method.delete',
    ])
    expect(actions.map((a) => a.metadata).join()).not.toContain('tok_')
    const sent = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'customer_payment_method' ORDER BY seq")
      .all()
    expect(sent).toEqual([{ action: 'create' }, { action: 'create' }, { action: 'delete' }])
  })

  test('an idempotency key replays the stored card instead of storing it twice', async () => {
    const customer = await makeCustomer(t)
    const send = () =>
      t.request('POST', `/customers/${customer.id}/payment-methods`, {
        headers: { 'idempotency-key': 'card-key-0001' },
        body: { providerToken: 'tok_visa' },
      })
    const first = await send()
    const again = await send()
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    expect(countRows(t.tenant.db, 'customer_payment_methods')).toBe(1)
  })

  test("another tenant's card is 404 to remove", async () => {
    const other = await t.addTenant('other')
    const theirs = await makeCustomer(t, {}, { tenant: other })
    const card = await t.request('POST', `/customers/${theirs.id}/payment-methods`, {
      as: other.owner,
      tenant: other,
      body: { providerToken: 'tok_visa' },
    })
    const mine = await makeCustomer(t)
    for (const path of [
      `/customers/${theirs.id}/payment-methods/${card.body.id}`,
      `/customers/${mine.id}/payment-methods/${card.body.id}`,
    ]) {
      expect((await t.request('DELETE', path)).status).toBe(404)
    }
    expect(countRows(other.db, 'customer_payment_methods')).toBe(1)
  })

  test('deleting a customer detaches its cards at the provider', async () => {
    const customer = await makeCustomer(t)
    const card = await addCard(t, customer.id)
    expect((await t.request('DELETE', `/customers/${customer.id}`)).status).toBe(200)
    expect(await t.platform.payments.listPaymentMethods(card.providerCustomerId)).toEqual([])
    expect(countRows(t.tenant.db, 'customer_payment_methods')).toBe(0)
  })
})

describe('payment methods: stripe provider against a local fake Stripe API', () => {
  let stripe: FakeStripe
  let t: TestApp
  const config = () => ({
    paymentGateway: 'stripe' as const,
    stripeSecretKey: 'sk_test_fake123',
    stripeApiUrl: stripe.url,
  })
  beforeAll(() => {
    stripe = startFakeStripe()
  })
  afterAll(() => stripe.stop())
  beforeEach(async () => {
    stripe.calls.length = 0
    t = await createTestApp({ config: config() })
  })
  afterEach(() => t.close())

  test('GET / reports the configured gateway', async () => {
    expect((await t.request('GET', '/', { as: null })).body.paymentGateway).toBe('stripe')
  })

  test('storing cards creates one Stripe customer and attaches each payment method to it', async () => {
    const customer = await makeCustomer(t, { firstName: 'Ann', lastName: 'Lee', email: 'ann@stripe.test' })
    const first = await t.request('POST', `/customers/${customer.id}/payment-methods`, {
      body: { providerToken: 'pm_card_one' },
    })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({
      provider: 'stripe',
      providerCustomerId: 'cus_fake1',
      providerPaymentMethodId: 'pm_card_one',
      brand: 'visa',
      last4: '4242',
      expMonth: 8,
      expYear: 2031,
    })
    const second = await t.request('POST', `/customers/${customer.id}/payment-methods`, {
      body: { providerToken: 'tok_abc' },
    })
    expect(second.body).toMatchObject({
      providerCustomerId: 'cus_fake1',
      providerPaymentMethodId: 'pm_from_tok_abc',
    })

    expect(stripe.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /v1/customers',
      'POST /v1/payment_methods/pm_card_one/attach',
      'POST /v1/payment_methods',
      'POST /v1/payment_methods/pm_from_tok_abc/attach',
    ])
    for (const call of stripe.calls) expect(call.authorization).toBe('Bearer sk_test_fake123')
    expect(stripe.calls[0]!.form).toMatchObject({
      name: 'Ann Lee',
      email: 'ann@stripe.test',
      'metadata[restaurantOpsCustomerId]': customer.id,
      'metadata[restaurantOpsTenantId]': t.tenant.id,
    })
    // The customer's first card asks for the Stripe customer with a key of the customer's own.
    expect(stripe.calls[0]!.idempotencyKey).toStartWith(`customer-${t.tenant.id}-${customer.id}-`)
    expect(stripe.calls[1]!.form).toEqual({ customer: 'cus_fake1' })
    expect(stripe.calls[2]!.form).toEqual({ type: 'card', 'card[token]': 'tok_abc' })

    const listed = await t.platform.payments.listPaymentMethods('cus_fake1')
    expect(listed.map((c) => c.providerPaymentMethodId).sort()).toEqual(['pm_card_one', 'pm_from_tok_abc'])

    const removed = await t.request('DELETE', `/customers/${customer.id}/payment-methods/${first.body.id}`)
    expect(removed.status).toBe(200)
    expect(stripe.calls.at(-1)).toMatchObject({
      method: 'POST',
      path: '/v1/payment_methods/pm_card_one/detach',
    })
    expect(countRows(t.tenant.db, 'customer_payment_methods')).toBe(1)
  })

  test('provider refusals: declined 402, unknown token 400, outage 503; nothing stored', async () => {
    const customer = await makeCustomer(t)
    const send = (providerToken: string) =>
      t.request('POST', `/customers/${customer.id}/payment-methods`, { body: { providerToken } })
    const declined = await send('pm_declined')
    expect(declined.status).toBe(402)
    expect(declined.body).toMatchObject({ code: 'payment_required', detail: 'Your card was declined.' })
    const missing = await send('pm_missing_1')
    expect(missing.status).toBe(400)
    expect(missing.body.errors[0].path).toBe('body/providerToken')
    const badToken = await send('tok_bad')
    expect(badToken.status).toBe(400)
    const outage = await send('pm_outage')
    expect(outage.status).toBe(503)
    expect(outage.body.code).toBe('unavailable')
    expect(countRows(t.tenant.db, 'customer_payment_methods')).toBe(0)
    // The Stripe customer was made once and is reused by every attempt.
    expect(stripe.calls.filter((c) => c.path === '/v1/customers')).toHaveLength(1)
    expect(countRows(t.tenant.db, 'payment_provider_customers')).toBe(1)
  })

  test('a card Stripe no longer knows is removed locally all the same', async () => {
    const customer = await makeCustomer(t)
    const card = await addCard(t, customer.id, 'pm_gone')
    await stripeProvider({ secretKey: 'sk_test_fake123', apiUrl: stripe.url }).detachPaymentMethod('pm_gone')
    const removed = await t.request('DELETE', `/customers/${customer.id}/payment-methods/${card.id}`)
    expect(removed.status).toBe(200)
    expect(countRows(t.tenant.db, 'customer_payment_methods')).toBe(0)
  })

  test('no card number sent in any request reaches the data directory, the log or Stripe', async () => {
    const pan = '4000056655665556'
    const logged: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    t.close()
    t = await createTestApp({ config: { ...config(), logLevel: 'debug' } })
    process.stderr.write = ((chunk: string | Uint8Array) => {
      logged.push(String(chunk))
      return true
    }) as typeof process.stderr.write
    try {
      const customer = await makeCustomer(t, { email: 'marker-customer@example.test' })
      const path = `/customers/${customer.id}/payment-methods`
      const attempts = [
        { providerToken: pan },
        { providerToken: '4000 0566 5566 5556' },
        { providerToken: '4000-0566-5566-5556' },
        { providerToken: 'pm_card_ok', cardNumber: pan },
        { providerToken: 'pm_card_ok', card: { number: pan, cvc: '123' } },
      ]
      for (const body of attempts) {
        expect((await t.request('POST', path, { body })).status).toBe(400)
        expect(
          (
            await t.request('POST', path, {
              body,
              headers: { 'idempotency-key': `pan-key-${attempts.indexOf(body)}-x` },
            })
          ).status,
        ).toBe(400)
      }
      // And a real card stored through a token leaves only references behind.
      const stored = await t.request('POST', path, {
        body: { providerToken: 'pm_card_ok' },
        headers: { 'idempotency-key': 'pan-key-stored' },
      })
      expect(stored.status).toBe(201)
    } finally {
      process.stderr.write = write
    }
    // The search sees the live files, WAL included: it finds what was written ...
    expect(filesContaining(t.dataDir, 'marker-customer@example.test').length).toBeGreaterThan(0)
    expect(filesContaining(t.dataDir, 'pm_card_ok').length).toBeGreaterThan(0)
    expect(filesUnder(t.dataDir).some((f) => f.path.endsWith('-wal'))).toBe(true)
    // ... and no spelling of the card number anywhere.
    expect(filesContaining(t.dataDir, pan)).toEqual([])
    expect(logged.join('')).not.toContain('0566')
    expect(stripe.calls.map((c) => c.raw + c.path).join()).not.toContain(pan)
  })
})

describe('payment provider units', () => {
  test('card-number detection: 13..19 Luhn-valid digits, spaces and dashes allowed', () => {
    for (const pan of ['4242424242424242', '4000 0566 5566 5556', '3782-822463-10005', '6011111111111117'])
      expect(looksLikeCardNumber(pan)).toBe(true)
    for (const text of [
      '4242424242424241',
      'tok_visa',
      'pm_1234567890123456',
      '123456789012',
      '42424242424242424242',
    ])
      expect(looksLikeCardNumber(text)).toBe(false)
  })

  test('the sandbox keeps only fake references and forgets detached cards', async () => {
    const sandbox = sandboxProvider()
    const { providerCustomerId } = await sandbox.createCustomer({
      customerId: 'c',
      tenantId: 't',
      email: null,
      name: 'A',
      idempotencyKey: 'customer-c',
    })
    const card = await sandbox.attachPaymentMethod(providerCustomerId, 'tok_amex')
    expect(card).toMatchObject({ brand: 'amex', last4: '8431' })
    expect(await sandbox.listPaymentMethods(providerCustomerId)).toEqual([card])
    await sandbox.detachPaymentMethod(card.providerPaymentMethodId)
    expect(await sandbox.listPaymentMethods(providerCustomerId)).toEqual([])
    await expect(sandbox.attachPaymentMethod(providerCustomerId, '4242424242424242')).rejects.toMatchObject({
      kind: 'invalid_token',
    })
  })

  test('configuration: stripe needs a secret key; the API URL is validated', () => {
    expect(loadConfig({})).toMatchObject({
      paymentGateway: 'sandbox',
      stripeApiUrl: 'https://api.stripe.com/',
    })
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'stripe' })).toThrow(ConfigError)
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'stripe' })).toThrow(/STRIPE_SECRET_KEY/)
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'pk_live_public' })).toThrow(/STRIPE_SECRET_KEY/)
    expect(() => loadConfig({ STRIPE_API_URL: 'ftp://x' })).toThrow(/STRIPE_API_URL/)
    expect(
      loadConfig({
        PAYMENT_PROVIDER: 'Stripe',
        STRIPE_SECRET_KEY: 'sk_test_1',
        STRIPE_API_URL: 'http://127.0.0.1:9',
      }),
    ).toMatchObject({
      paymentGateway: 'stripe',
      stripeSecretKey: 'sk_test_1',
      stripeApiUrl: 'http://127.0.0.1:9/',
    })
  })
})
