// Both subscription APIs: legacy `/web-hook` and the tables API's webhook subscriptions.
import { describe, expect, test } from 'bun:test'
import type { Db } from '../../../src/platform/tenancy/databases'
import {
  countRows,
  createTestApp,
  runScenarios,
  type ScenarioContext,
  type TestResponse,
} from '../../harness'

const allow = { config: { webhookAllowPrivateTargets: true } }
const hook = { object: 'customer', action: 'create', url: 'https://hooks.example.com/c7' }

const createHook = async (ctx: ScenarioContext, body: Record<string, unknown> = hook) => {
  const res = await ctx.t.request('POST', '/web-hook', { body })
  expect(res.status).toBe(201)
  ctx.vars.id = res.body.id
  return res.body
}

/** A webhook of another tenant, whose id every route of this tenant must answer 404. */
const createOtherTenantsHook = async (ctx: ScenarioContext) => {
  const other = await ctx.t.addTenant('other')
  const res = await ctx.t.request('POST', '/web-hook', { tenant: other, as: other.owner, body: hook })
  expect(res.status).toBe(201)
  ctx.vars.id = res.body.id
}

const key = (k = 'create-key-0001') => ({ 'idempotency-key': k })

describe('legacy /web-hook', () => {
  runScenarios([
    {
      name: 'create answers 201 with the secret, enabled by default',
      method: 'POST',
      url: '/web-hook',
      body: { ...hook, headers: { 'X-Api-Key': 'abc' } },
      status: 201,
      expectBody: { ...hook, enabled: true, headers: { 'x-api-key': 'abc' } },
      check: (res, ctx) => {
        expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
        const audit = ctx.t.tenant.db.$client
          .query("SELECT metadata FROM audit_entries WHERE action = 'webhook.create'")
          .get() as { metadata: string }
        expect(audit.metadata).not.toContain(res.body.secret)
        expect(audit.metadata).not.toContain('abc')
      },
    },
    {
      name: 'the secret is never shown again',
      method: 'GET',
      url: (ctx) => `/web-hook/${ctx.vars.id}`,
      setup: (ctx) => createHook(ctx).then(() => {}),
      status: 200,
      check: (res) => {
        expect(res.body).toMatchObject(hook)
        expect(res.body.secret).toBeUndefined()
      },
    },
    {
      name: 'list pages with {webhooks, page}',
      method: 'GET',
      url: '/web-hook?page=2&limit=1',
      setup: async (ctx) => {
        await createHook(ctx)
        await createHook(ctx, { ...hook, action: 'update' })
      },
      status: 200,
      check: (res) => {
        expect(res.body.page).toEqual({ total: 2, page: 2, limit: 1 })
        expect(res.body.webhooks).toHaveLength(1)
        expect(res.body.webhooks[0].action).toBe('update')
        expect(res.body.webhooks[0].secret).toBeUndefined()
      },
    },
    {
      name: 'limit 101 is 400',
      method: 'GET',
      url: '/web-hook?limit=101',
      status: 400,
      code: 'validation_failed',
    },
    { name: 'page 0 is 400', method: 'GET', url: '/web-hook?page=0', status: 400, code: 'validation_failed' },
    {
      name: 'create without url is 400 and writes nothing',
      method: 'POST',
      url: '/web-hook',
      body: { object: 'customer', action: 'create' },
      status: 400,
      code: 'validation_failed',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'webhook_subscriptions')).toBe(0),
    },
    {
      name: 'a non-http url is 400',
      method: 'POST',
      url: '/web-hook',
      body: { ...hook, url: 'ftp://files.example.com/x' },
      status: 400,
      code: 'validation_failed',
      check: (res) => expect(res.body.errors[0].path).toBe('body/url'),
    },
    {
      name: 'an object no event has is 400 naming object, and writes nothing',
      method: 'POST',
      url: '/web-hook',
      body: { ...hook, object: 'custmer' },
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        expect(res.body.errors).toEqual([
          { path: 'body/object', message: expect.stringContaining('custmer') },
        ])
        expect(countRows(ctx.t.tenant.db, 'webhook_subscriptions')).toBe(0)
      },
    },
    {
      name: 'an action its object has no event for is 400 naming action and the actions it has',
      method: 'POST',
      url: '/web-hook',
      body: { ...hook, object: 'customer', action: 'craete' },
      status: 400,
      code: 'validation_failed',
      check: (res) =>
        expect(res.body.errors).toEqual([
          { path: 'body/action', message: expect.stringContaining('create, delete') },
        ]),
    },
    {
      name: 'event names match either way: case, and a former spelling',
      method: 'POST',
      url: '/web-hook',
      body: { ...hook, object: 'Cash-Drawer', action: 'Close' },
      status: 201,
    },
    {
      name: 'a relative url is 400',
      method: 'POST',
      url: '/web-hook',
      body: { ...hook, url: '/hook' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown field is 400',
      method: 'POST',
      url: '/web-hook',
      body: { ...hook, secret: 'mine' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a reserved custom header is 400',
      method: 'POST',
      url: '/web-hook',
      body: { ...hook, headers: { 'Webhook-Signature': 'forged' } },
      status: 400,
      code: 'validation_failed',
      check: (res) => expect(res.body.errors[0].path).toBe('body/headers/Webhook-Signature'),
    },
    {
      name: 'a custom header with a line break is 400',
      method: 'POST',
      url: '/web-hook',
      body: { ...hook, headers: { 'x-a': 'one\r\nx-b: two' } },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an object with spaces is 400',
      method: 'POST',
      url: '/web-hook',
      body: { ...hook, object: 'a customer' },
      status: 400,
      code: 'validation_failed',
    },
    ...[
      'http://127.0.0.1:8080/x',
      'http://localhost/x',
      'http://10.1.2.3/x',
      'http://[::1]/x',
      'http://169.254.169.254/latest',
      'http://192.168.1.20/x',
      'http://2130706433/x',
    ].map((url) => ({
      name: `a private target (${url}) is refused without WEBHOOK_ALLOW_PRIVATE_TARGETS`,
      method: 'POST',
      url: '/web-hook',
      body: { ...hook, url },
      status: 400,
      code: 'validation_failed',
      check: (res: any, ctx: ScenarioContext) => {
        expect(res.body.detail).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS')
        expect(countRows(ctx.t.tenant.db, 'webhook_subscriptions')).toBe(0)
      },
    })),
    {
      name: 'update changes only what is sent and can disable and re-enable',
      method: 'PUT',
      url: (ctx) => `/web-hook/${ctx.vars.id}`,
      setup: (ctx) => createHook(ctx).then(() => {}),
      body: { enabled: false, headers: { 'x-token': 't' } },
      status: 200,
      expectBody: { ...hook, enabled: false, headers: { 'x-token': 't' } },
    },
    {
      name: 'update to a private url is 400',
      method: 'PUT',
      url: (ctx) => `/web-hook/${ctx.vars.id}`,
      setup: (ctx) => createHook(ctx).then(() => {}),
      body: { url: 'http://127.0.0.1/x' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'update to an action the subscribed object has no event for is 400 and changes nothing',
      method: 'PUT',
      url: (ctx) => `/web-hook/${ctx.vars.id}`,
      setup: (ctx) => createHook(ctx).then(() => {}),
      body: { action: 'refund' },
      status: 400,
      code: 'validation_failed',
      check: async (res, ctx) => {
        expect(res.body.errors[0].path).toBe('body/action')
        expect((await ctx.t.request('GET', `/web-hook/${ctx.vars.id}`)).body.action).toBe('create')
      },
    },
    {
      name: 'delete answers 204 with no body, then the webhook is gone',
      method: 'DELETE',
      url: (ctx) => `/web-hook/${ctx.vars.id}`,
      setup: (ctx) => createHook(ctx).then(() => {}),
      status: 204,
      check: async (res, ctx) => {
        expect(res.text).toBe('')
        expect((await ctx.t.request('GET', `/web-hook/${ctx.vars.id}`)).status).toBe(404)
      },
    },
    { name: 'an unknown id is 404', method: 'GET', url: '/web-hook/nope', status: 404, code: 'not_found' },
    {
      name: 'delete of an unknown id is 404',
      method: 'DELETE',
      url: '/web-hook/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a tables subscription is not a legacy webhook (404)',
      method: 'GET',
      url: (ctx) => `/web-hook/${ctx.vars.id}`,
      setup: async (ctx) => {
        const res = await ctx.t.request('POST', '/tables-api/v1/webhook-subscriptions', {
          headers: key(),
          body: hook,
        })
        ctx.vars.id = res.body.data.id
      },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'another tenant’s webhook is 404',
      method: 'GET',
      url: (ctx) => `/web-hook/${ctx.vars.id}`,
      setup: createOtherTenantsHook,
      status: 404,
      code: 'not_found',
    },
    {
      name: 'another tenant’s webhook cannot be deleted (404)',
      method: 'DELETE',
      url: (ctx) => `/web-hook/${ctx.vars.id}`,
      setup: createOtherTenantsHook,
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a manager may read webhooks',
      method: 'GET',
      url: '/web-hook',
      as: (ctx) => ctx.t.tenant.manager,
      status: 200,
    },
    {
      name: 'a manager may not create one (403 without webhooks:manage)',
      method: 'POST',
      url: '/web-hook',
      as: (ctx) => ctx.t.tenant.manager,
      body: hook,
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('webhooks:manage')
        expect(countRows(ctx.t.tenant.db, 'webhook_subscriptions')).toBe(0)
      },
    },
    {
      name: 'staff may not read webhooks (403 without webhooks:read)',
      method: 'GET',
      url: '/web-hook',
      as: (ctx) => ctx.t.tenant.staff,
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'no token is 401',
      method: 'GET',
      url: '/web-hook',
      as: () => null,
      status: 401,
      code: 'unauthenticated',
    },
  ])
})

describe('tables-api webhook subscriptions', () => {
  const path = '/tables-api/v1/webhook-subscriptions'
  const sub = { object: 'reservation', action: 'create', url: 'https://hooks.example.com/tables' }
  runScenarios(
    [
      {
        name: 'create answers {data} with the signingSecret',
        method: 'POST',
        url: path,
        headers: key(),
        body: sub,
        status: 201,
        check: (res) => {
          expect(res.body.data).toMatchObject({ ...sub, enabled: true })
          expect(res.body.data.signingSecret).toStartWith('whsec_')
          expect(res.body.data.headers).toBeUndefined()
        },
      },
      {
        name: 'the same key and body replays the first response: one subscription, one secret',
        method: 'POST',
        url: path,
        headers: key(),
        body: sub,
        setup: async (ctx) => {
          ctx.vars.first = (await ctx.t.request('POST', path, { headers: key(), body: sub })).body
        },
        status: 201,
        check: (res, ctx) => {
          expect(res.body).toEqual(ctx.vars.first)
          expect(res.headers.get('idempotent-replayed')).toBe('true')
          expect(countRows(ctx.t.tenant.db, 'webhook_subscriptions')).toBe(1)
        },
      },
      {
        name: 'the same key with another body is 422',
        method: 'POST',
        url: path,
        headers: key(),
        body: { ...sub, action: 'cancel' },
        setup: async (ctx) => {
          await ctx.t.request('POST', path, { headers: key(), body: sub })
        },
        status: 422,
        code: 'idempotency_key_reused',
        check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'webhook_subscriptions')).toBe(1),
      },
      {
        name: 'another key creates another subscription',
        method: 'POST',
        url: path,
        headers: key('create-key-0002'),
        body: sub,
        setup: async (ctx) => {
          await ctx.t.request('POST', path, { headers: key(), body: sub })
        },
        status: 201,
        check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'webhook_subscriptions')).toBe(2),
      },
      {
        name: 'create without an idempotency-key is 400',
        method: 'POST',
        url: path,
        body: sub,
        status: 400,
        code: 'validation_failed',
        check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'webhook_subscriptions')).toBe(0),
      },
      {
        name: 'a 7-character idempotency-key is 400',
        method: 'POST',
        url: path,
        headers: key('1234567'),
        body: sub,
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'a 181-character idempotency-key is 400',
        method: 'POST',
        url: path,
        headers: key('k'.repeat(181)),
        body: sub,
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'a failed create stores no key, so the key can be used again',
        method: 'POST',
        url: path,
        headers: key(),
        body: sub,
        setup: async (ctx) => {
          const bad = await ctx.t.request('POST', path, { headers: key(), body: { ...sub, url: 'ftp://x' } })
          expect(bad.status).toBe(400)
        },
        status: 201,
      },
      {
        name: 'list answers {data} with tables subscriptions only',
        method: 'GET',
        url: path,
        setup: async (ctx) => {
          await ctx.t.request('POST', path, { headers: key(), body: sub })
          await ctx.t.request('POST', '/web-hook', { body: hook })
        },
        status: 200,
        check: (res) => {
          expect(res.body.data).toHaveLength(1)
          expect(res.body.data[0]).toMatchObject(sub)
          expect(res.body.data[0].signingSecret).toBeUndefined()
        },
      },
      {
        name: 'delete answers 204; the same key replays 204; the subscription is gone',
        method: 'DELETE',
        url: (ctx) => `${path}/${ctx.vars.id}`,
        headers: key('delete-key-01'),
        setup: async (ctx) => {
          ctx.vars.id = (await ctx.t.request('POST', path, { headers: key(), body: sub })).body.data.id
          const first = await ctx.t.request('DELETE', `${path}/${ctx.vars.id}`, {
            headers: key('delete-key-01'),
          })
          expect(first.status).toBe(204)
        },
        status: 204,
        check: async (res, ctx) => {
          expect(res.text).toBe('')
          expect(countRows(ctx.t.tenant.db, 'webhook_subscriptions')).toBe(0)
          const fresh = await ctx.t.request('DELETE', `${path}/${ctx.vars.id}`, {
            headers: key('delete-key-02'),
          })
          expect(fresh.status).toBe(404)
        },
      },
      {
        name: 'delete without an idempotency-key is 400',
        method: 'DELETE',
        url: `${path}/some-id`,
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'delete with an id over 200 characters is 400',
        method: 'DELETE',
        url: `${path}/${'x'.repeat(201)}`,
        headers: key(),
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'a legacy webhook cannot be deleted here (404)',
        method: 'DELETE',
        url: (ctx) => `${path}/${ctx.vars.id}`,
        headers: key(),
        setup: (ctx) => createHook(ctx).then(() => {}),
        status: 404,
        code: 'not_found',
      },
      {
        name: 'another tenant’s subscription is 404',
        method: 'DELETE',
        url: (ctx) => `${path}/${ctx.vars.id}`,
        headers: key(),
        setup: async (ctx) => {
          const other = await ctx.t.addTenant('other')
          const res = await ctx.t.request('POST', path, {
            tenant: other,
            as: other.owner,
            headers: key(),
            body: sub,
          })
          ctx.vars.id = res.body.data.id
        },
        status: 404,
        code: 'not_found',
      },
      {
        name: 'a manager may not create (403 without webhooks:manage)',
        method: 'POST',
        url: path,
        as: (ctx) => ctx.t.tenant.manager,
        headers: key(),
        body: sub,
        status: 403,
        code: 'forbidden',
      },
      {
        name: 'read_only may list',
        method: 'GET',
        url: path,
        as: (ctx) => ctx.t.tenant.readOnly,
        status: 200,
      },
    ],
    allow,
  )

  runScenarios([
    {
      name: 'a loopback target is refused without WEBHOOK_ALLOW_PRIVATE_TARGETS',
      method: 'POST',
      url: path,
      headers: key(),
      body: { ...sub, url: 'http://127.0.0.1:9/x' },
      status: 400,
      code: 'validation_failed',
    },
  ])
})

describe('with WEBHOOK_ALLOW_PRIVATE_TARGETS=true', () => {
  runScenarios(
    [
      {
        name: 'a loopback target is accepted',
        method: 'POST',
        url: '/web-hook',
        body: { ...hook, url: 'http://127.0.0.1:8080/x' },
        status: 201,
      },
    ],
    allow,
  )
})

describe('tables-api webhook subscriptions with a tpk_live_ credential', () => {
  const path = '/tables-api/v1/webhook-subscriptions'
  const sub = { object: 'reservation', action: 'create', url: 'https://hooks.example.com/tables' }

  test('a credential with webhooks:manage creates, lists and deletes; audit names the credential', async () => {
    const t = await createTestApp()
    try {
      const credential = t.addCredential(t.tenant, { scopes: ['webhooks:manage'] })
      const created = await t.request('POST', path, {
        as: credential.token,
        tenant: null,
        headers: key(),
        body: sub,
      })
      expect(created.status).toBe(201)
      const listed = await t.request('GET', path, { as: credential.token, tenant: null })
      expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([created.body.data.id])
      const entry = t.tenant.db.$client
        .query("SELECT subject, staff_user_id FROM audit_entries WHERE entity_type = 'webhook_subscription'")
        .get()
      expect(entry).toEqual({ subject: `credential:${credential.id}`, staff_user_id: null })
      const deleted = await t.request('DELETE', `${path}/${created.body.data.id}`, {
        as: credential.token,
        tenant: null,
        headers: key(),
      })
      expect(deleted.status).toBe(204)
    } finally {
      t.close()
    }
  })

  test('a credential without webhooks:manage is 403 and writes nothing', async () => {
    const t = await createTestApp()
    try {
      const credential = t.addCredential(t.tenant, { scopes: ['reservations:read'] })
      const res = await t.request('POST', path, {
        as: credential.token,
        tenant: null,
        headers: key(),
        body: sub,
      })
      expect(res.status).toBe(403)
      expect(countRows(t.tenant.db, 'webhook_subscriptions')).toBe(0)
    } finally {
      t.close()
    }
  })
})

describe('non-public targets are refused when saved, in every address form', () => {
  // [url, what the problem names]; the unit table in tests/platform/webhook-targets.test.ts has more.
  const refused: [string, string][] = [
    ['http://0x7f.1/x', '127.0.0.1 is loopback'],
    ['http://0177.0.0.1/x', '127.0.0.1 is loopback'],
    ['http://127.1:8080/x', '127.0.0.1 is loopback'],
    ['http://[::ffff:7f00:1]/x', 'loopback (IPv4-mapped address of 127.0.0.1)'],
    ['http://[::ffff:0:a00:1]/x', 'private (IPv4-translated address of 10.0.0.1)'],
    ['http://[::127.0.0.1]/x', 'loopback (IPv4-compatible address of 127.0.0.1)'],
    ['http://[2002:c0a8:101::]/x', 'private (6to4 address of 192.168.1.1)'],
    ['http://[64:ff9b::169.254.169.254]/x', 'linkLocal (NAT64 address of 169.254.169.254)'],
    ['http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/x', 'private (Teredo address of 10.0.0.1)'],
    ['http://[fd00::1]/x', 'fd00::1 is uniqueLocal'],
    ['http://[fe80::1]/x', 'fe80::1 is linkLocal'],
    ['http://100.64.0.1/x', '100.64.0.1 is carrierGradeNat'],
    ['http://metadata.google.internal/x', 'metadata.google.internal is a local name'],
  ]

  const expectRefused = async (send: (url: string) => Promise<TestResponse>, db: Db) => {
    for (const [url, reason] of refused) {
      const res = await send(url)
      expect({ url, status: res.status, code: res.body.code }).toEqual({
        url,
        status: 400,
        code: 'validation_failed',
      })
      expect(res.body.errors).toEqual([{ path: 'body/url', message: expect.stringContaining(reason) }])
      expect(res.body.detail).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true')
    }
    expect(countRows(db, 'webhook_subscriptions')).toBe(0)
  }

  test('legacy /web-hook, create', async () => {
    const t = await createTestApp()
    try {
      await expectRefused((url) => t.request('POST', '/web-hook', { body: { ...hook, url } }), t.tenant.db)
    } finally {
      t.close()
    }
  })

  test('legacy /web-hook, update; the saved URL stays', async () => {
    const t = await createTestApp()
    try {
      const { id } = (await t.request('POST', '/web-hook', { body: hook })).body
      const update = (url: string) => t.request('PUT', `/web-hook/${id}`, { body: { url } })
      for (const [url, reason] of refused) {
        const res = await update(url)
        expect({ url, status: res.status }).toEqual({ url, status: 400 })
        expect(res.body.errors).toEqual([{ path: 'body/url', message: expect.stringContaining(reason) }])
      }
      expect((await t.request('GET', `/web-hook/${id}`)).body.url).toBe(hook.url)
    } finally {
      t.close()
    }
  })

  test('tables-api webhook subscriptions, create', async () => {
    const t = await createTestApp()
    const sub = { object: 'reservation', action: 'create', url: '' }
    try {
      let n = 0
      await expectRefused(
        (url) =>
          t.request('POST', '/tables-api/v1/webhook-subscriptions', {
            headers: key(`refused-key-${String(n++).padStart(4, '0')}`),
            body: { ...sub, url },
          }),
        t.tenant.db,
      )
    } finally {
      t.close()
    }
  })

  test('public addresses and names are accepted', async () => {
    const t = await createTestApp()
    try {
      for (const url of [
        'https://8.8.8.8/x',
        'https://[2606:4700:4700::1111]/x',
        'https://[2002:808:808::1]/x',
        'https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/x',
      ]) {
        const res = await t.request('POST', '/web-hook', { body: { ...hook, url } })
        expect({ url, status: res.status }).toEqual({ url, status: 201 })
      }
    } finally {
      t.close()
    }
  })
})
