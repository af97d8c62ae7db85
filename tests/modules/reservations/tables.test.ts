import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { signOptionToken } from '../../../src/modules/tables-reservations/tokens'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { book, inDays, newKey, options, publishedExperience, tablesPath } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const reservations = (rest = '') => tablesPath(t.tenant.locationId, `/reservations${rest}`)
const guest = { name: 'Grace Hopper', email: 'Grace@Example.test' }

function events(action: string) {
  return t.tenant.db.$client
    .query("SELECT payload FROM outbox_events WHERE object = 'reservation' AND action = ?")
    .all(action)
    .map((r) => JSON.parse((r as { payload: string }).payload))
}

async function cancel(id: string, version: string | null, reason = 'guest called', key = newKey()) {
  const headers: Record<string, string> = { 'idempotency-key': key }
  if (version !== null) headers['if-match'] = version
  return t.request('POST', reservations(`/${id}/cancel`), { headers, body: { reason } })
}

describe('availability', () => {
  test('offers start times within party limits, before the cutoff, with a signed token each', async () => {
    const { id, versionId } = await publishedExperience(t, {
      partyMin: 2,
      partyMax: 6,
      slots: [{ priceAmount: 2500, paymentOption: 'pay_at_venue' }],
    })
    const res = await options(t, { date: inDays(5), partySize: 4 })
    expect(res.status).toBe(200)
    expect(res.body.timeZone).toBe('America/Los_Angeles')
    expect(res.body.data).toHaveLength(2)
    const [first, second] = res.body.data
    expect(first).toMatchObject({
      experienceId: id,
      experienceVersionId: versionId,
      businessDate: inDays(5),
      partySize: 4,
      remainingCapacity: 10,
      paymentOption: 'pay_at_venue',
      paymentRequired: false,
      booking: {
        method: 'pay_at_venue',
        currency: 'USD',
        subtotalAmount: 10_000,
        taxAmount: 0,
        totalAmount: 10_000,
      },
    })
    expect(first.startsAt < second.startsAt).toBe(true)
    expect(first.optionToken.split('.')).toHaveLength(3)
    // Outside the party limits: nothing.
    expect((await options(t, { date: inDays(5), partySize: 1 })).body.data).toEqual([])
    expect((await options(t, { date: inDays(5), partySize: 7 })).body.data).toEqual([])
  })

  test('local wall-clock times: 18:00 in Los Angeles is 01:00 or 02:00 UTC the next day', async () => {
    await publishedExperience(t, { slots: [{ times: ['18:00'] }] })
    const res = await options(t, { date: inDays(5), partySize: 2 })
    const utc = new Date(res.body.data[0].startsAt).getUTCHours()
    expect([1, 2]).toContain(utc)
  })

  test('a start time past its cutoff is not offered; only the listed weekdays are', async () => {
    const tomorrow = inDays(1)
    const weekday = new Date(`${tomorrow}T12:00:00Z`).getUTCDay()
    await publishedExperience(t, { slots: [{ daysOfWeek: [weekday] }], cutoffMinutes: 60 * 24 * 30 })
    expect((await options(t, { date: tomorrow, partySize: 2 })).body.data).toEqual([])
    await publishedExperience(t, { name: 'Lunch', slots: [{ daysOfWeek: [(weekday + 1) % 7] }] })
    expect((await options(t, { date: tomorrow, partySize: 2 })).body.data).toEqual([])
    expect((await options(t, { date: inDays(2), partySize: 2 })).body.data).toHaveLength(2)
  })

  test('bad query: impossible date, missing party size, non-uuid location', async () => {
    expect((await options(t, { date: '2027-02-30', partySize: 2 })).status).toBe(400)
    const missing = await t.request('GET', tablesPath(t.tenant.locationId, `/availability?date=${inDays(3)}`))
    expect(missing.status).toBe(400)
    const notUuid = await t.request(
      'GET',
      `/tables-api/v1/locations/nope/availability?date=${inDays(3)}&partySize=2`,
    )
    expect(notUuid.status).toBeOneOf([400, 404])
  })
})

describe('option tokens', () => {
  test('a tampered token is 400 and books nothing', async () => {
    await publishedExperience(t)
    const offered = await options(t, { date: inDays(3), partySize: 2 })
    const [header, payload, signature] = offered.body.data[0].optionToken.split('.')
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    claims.partySize = 1
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`
    const res = await book(t, { date: inDays(3), token: forged })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('validation_failed')
    expect(res.body.errors[0].path).toBe('body/optionToken')
    expect(res.body.detail).toContain('not valid')
    expect((await book(t, { date: inDays(3), token: 'not-a-token' })).status).toBe(400)
    expect(countRows(t.tenant.db, 'tables_reservations')).toBe(0)
    expect(countRows(t.tenant.db, 'idempotency_keys')).toBe(0)
  })

  test('an expired token is 400 with a clear problem', async () => {
    const { id, versionId } = await publishedExperience(t)
    const offered = await options(t, { date: inDays(3), partySize: 2 })
    const option = offered.body.data[0]
    const stale = await signOptionToken(
      t.tenant.db,
      {
        experienceId: id,
        experienceVersionId: versionId,
        locationId: t.tenant.locationId,
        startsAt: option.startsAt,
        partySize: 2,
        currency: 'USD',
        subtotalAmount: 0,
        taxAmount: 0,
        totalAmount: 0,
        paymentOption: 'none',
      },
      new Date(Date.now() - 16 * 60_000),
    )
    const res = await book(t, { date: inDays(3), token: stale.token })
    expect(res.status).toBe(400)
    expect(res.body.detail).toContain('expired')
    expect(countRows(t.tenant.db, 'tables_reservations')).toBe(0)
  })

  test('another tenant’s token is refused (per-tenant secrets)', async () => {
    const other = await t.addTenant('other')
    await publishedExperience(t, { tenant: other })
    const theirs = await options(t, { date: inDays(3), partySize: 2 }, other.owner, other)
    await publishedExperience(t)
    const res = await book(t, { date: inDays(3), token: theirs.body.data[0].optionToken })
    expect(res.status).toBe(400)
  })
})

describe('create', () => {
  test('books the option: confirmed, version 1, confirmation code, audit and event', async () => {
    const { versionId } = await publishedExperience(t, {
      slots: [{ priceAmount: 1500, paymentOption: 'pay_at_venue' }],
    })
    const res = await book(t, { date: inDays(3), partySize: 3 })
    expect(res.status).toBe(201)
    const r = res.body.data
    expect(r).toMatchObject({
      locationId: t.tenant.locationId,
      experienceVersionId: versionId,
      lifecycle: 'confirmed',
      version: 1,
      source: 'staff',
      businessDate: inDays(3),
      partySize: 3,
      guest: { name: 'Ada Lovelace', email: 'ada@example.test', phone: null },
      booking: { method: 'pay_at_venue', subtotalAmount: 4500, totalAmount: 4500 },
      cancelledAt: null,
    })
    expect(r.confirmationCode).toMatch(/^[A-Z2-9]{8}$/)
    expect(r.publicId).not.toBe(r.id)
    expect(events('create').map((e) => e.id)).toEqual([r.id])
    const audit = t.tenant.db.$client
      .query("SELECT count(*) AS n FROM audit_entries WHERE action = 'reservation.create' AND entity_id = ?")
      .get(r.id) as { n: number }
    expect(audit.n).toBe(1)
    const got = await t.request('GET', reservations(`/${r.id}`))
    expect(got.body.data).toEqual(r)
  })

  test.each([
    'paid',
    'prepaid',
    'deposit',
    'card_hold',
  ])('a %s option is 402 payment_required', async (option) => {
    await publishedExperience(t, { slots: [{ priceAmount: 5000, paymentOption: option }] })
    const offered = await options(t, { date: inDays(3), partySize: 2 })
    expect(offered.body.data[0].paymentRequired).toBe(true)
    const res = await book(t, { date: inDays(3), token: offered.body.data[0].optionToken })
    expect(res.status).toBe(402)
    expect(res.body).toMatchObject({ code: 'payment_required', paymentOption: option, totalAmount: 10_000 })
    expect(countRows(t.tenant.db, 'tables_reservations')).toBe(0)
    expect(events('create')).toEqual([])
  })

  test('validation: missing guest, bad email, unknown field, short or missing idempotency key', async () => {
    await publishedExperience(t)
    const token = (await options(t, { date: inDays(3), partySize: 2 })).body.data[0].optionToken
    const post = (body: unknown, key: string | null = newKey()) =>
      t.request('POST', reservations(), { body, headers: key ? { 'idempotency-key': key } : {} })
    expect((await post({ optionToken: token })).status).toBe(400)
    expect((await post({ optionToken: token, guest: { name: 'A', email: 'nope' } })).status).toBe(400)
    expect((await post({ optionToken: token, guest, extra: 1 })).status).toBe(400)
    expect((await post({ optionToken: token, guest }, 'short')).status).toBe(400)
    expect((await post({ optionToken: token, guest }, 'k'.repeat(181))).status).toBe(400)
    expect((await post({ optionToken: token, guest }, null)).status).toBe(400)
    expect(countRows(t.tenant.db, 'tables_reservations')).toBe(0)
  })

  test('a token of another location of the tenant is 400', async () => {
    await publishedExperience(t)
    const token = (await options(t, { date: inDays(3), partySize: 2 })).body.data[0].optionToken
    const { id } = t.addLocation(t.tenant, {
      name: 'Annex',
      timezone: 'UTC',
    })
    const res = await t.request('POST', tablesPath(id, '/reservations'), {
      headers: { 'idempotency-key': newKey() },
      body: { optionToken: token, guest },
    })
    expect(res.status).toBe(400)
    expect(res.body.detail).toContain('another location')
  })

  test('an archived experience is no longer bookable with a token issued before', async () => {
    const { id } = await publishedExperience(t)
    const token = (await options(t, { date: inDays(3), partySize: 2 })).body.data[0].optionToken
    await t.request('POST', `/tables/v1/experiences/${id}/archive`)
    const res = await book(t, { date: inDays(3), token })
    expect(res.status).toBe(409)
  })
})

describe('idempotency', () => {
  test('same key and body replays the first reservation; one row', async () => {
    await publishedExperience(t)
    const token = (await options(t, { date: inDays(3), partySize: 2 })).body.data[0].optionToken
    const key = newKey()
    const first = await book(t, { date: inDays(3), token, key })
    const second = await book(t, { date: inDays(3), token, key })
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    expect(second.body).toEqual(first.body)
    expect(countRows(t.tenant.db, 'tables_reservations')).toBe(1)
    expect(events('create')).toHaveLength(1)
  })

  test('same key with another body is 422', async () => {
    await publishedExperience(t)
    const offered = (await options(t, { date: inDays(3), partySize: 2 })).body.data
    const key = newKey()
    expect((await book(t, { date: inDays(3), token: offered[0].optionToken, key })).status).toBe(201)
    const other = await book(t, { date: inDays(3), token: offered[1].optionToken, key })
    expect(other.status).toBe(422)
    expect(other.body.code).toBe('idempotency_key_reused')
    expect(countRows(t.tenant.db, 'tables_reservations')).toBe(1)
  })

  test('concurrent requests with the same key make one reservation and all answer it', async () => {
    await publishedExperience(t)
    const token = (await options(t, { date: inDays(3), partySize: 2 })).body.data[0].optionToken
    const key = newKey()
    const all = await Promise.all(Array.from({ length: 6 }, () => book(t, { date: inDays(3), token, key })))
    for (const res of all) expect(res.status).toBeOneOf([201, 409])
    const created = all.filter((r) => r.status === 201)
    expect(new Set(created.map((r) => r.body.data.id)).size).toBe(1)
    for (const res of all.filter((r) => r.status === 409))
      expect(res.body.code).toBe('idempotency_key_in_use')
    expect(countRows(t.tenant.db, 'tables_reservations')).toBe(1)
  })

  test('a replay still answers after the token has expired', async () => {
    const { id, versionId } = await publishedExperience(t)
    const offered = (await options(t, { date: inDays(3), partySize: 2 })).body.data[0]
    // Signed 14 minutes ago: valid now, redeemed once, then we replay with the same token string.
    const token = (
      await signOptionToken(
        t.tenant.db,
        {
          experienceId: id,
          experienceVersionId: versionId,
          locationId: t.tenant.locationId,
          startsAt: offered.startsAt,
          partySize: 2,
          currency: 'USD',
          subtotalAmount: 0,
          taxAmount: 0,
          totalAmount: 0,
          paymentOption: 'none',
        },
        new Date(Date.now() - 14 * 60_000 - 58_000),
      )
    ).token
    const key = newKey()
    const first = await book(t, { date: inDays(3), token, key })
    expect(first.status).toBe(201)
    await Bun.sleep(2100)
    const replay = await book(t, { date: inDays(3), token, key })
    expect(replay.status).toBe(201)
    expect(replay.body).toEqual(first.body)
  })
})

describe('cancel and if-match', () => {
  test('matching version cancels: cancelledAt, version 2, reason, event; capacity is freed', async () => {
    await publishedExperience(t, { slots: [{ times: ['19:00'], capacity: 2 }] })
    const made = (await book(t, { date: inDays(4), partySize: 2 })).body.data
    expect((await options(t, { date: inDays(4), partySize: 1 })).body.data).toEqual([])
    const res = await cancel(made.id, '1')
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ lifecycle: 'cancelled', version: 2, cancelReason: 'guest called' })
    expect(res.body.data.cancelledAt).toBeString()
    expect(events('cancel').map((e) => e.version)).toEqual([2])
    expect((await options(t, { date: inDays(4), partySize: 2 })).body.data).toHaveLength(1)
  })

  test('ETag answers the version as if-match takes it: on create, read and cancel; Location names it', async () => {
    await publishedExperience(t)
    const made = await book(t, { date: inDays(4) })
    expect(made.headers.get('location')).toBe(reservations(`/${made.body.data.id}`))
    expect(made.headers.get('etag')).toBe('1')
    const read = await t.request('GET', made.headers.get('location')!)
    expect(read.headers.get('etag')).toBe('1')
    const res = await cancel(made.body.data.id, read.headers.get('etag'))
    expect(res.status).toBe(200)
    expect(res.headers.get('etag')).toBe(String(res.body.data.version))
  })

  test('mismatch is 412 with the current version; missing 428; malformed 400; nothing changes', async () => {
    await publishedExperience(t)
    const made = (await book(t, { date: inDays(4) })).body.data
    const mismatch = await cancel(made.id, '2')
    expect(mismatch.status).toBe(412)
    expect(mismatch.body).toMatchObject({ code: 'precondition_failed', currentVersion: 1 })
    const missing = await cancel(made.id, null)
    expect(missing.status).toBe(428)
    expect(missing.body.code).toBe('precondition_required')
    for (const bad of ['01', '0', '-1', 'abc', '1.0', '"1"', 'W/"1"', '1,2', '+1']) {
      const res = await cancel(made.id, bad)
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 })
    }
    const after = await t.request('GET', reservations(`/${made.id}`))
    expect(after.body.data).toMatchObject({ lifecycle: 'confirmed', version: 1 })
    expect(events('cancel')).toEqual([])
  })

  test('cancelling again with the new version is 409; replaying the first cancel replays it', async () => {
    await publishedExperience(t)
    const made = (await book(t, { date: inDays(4) })).body.data
    const key = newKey()
    const first = await cancel(made.id, '1', 'no show', key)
    const replay = await cancel(made.id, '1', 'no show', key)
    expect(replay.status).toBe(200)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.body).toEqual(first.body)
    const otherReason = await cancel(made.id, '1', 'changed mind', key)
    expect(otherReason.status).toBe(422)
    const again = await cancel(made.id, '2')
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ lifecycle: 'cancelled' })
    expect(events('cancel')).toHaveLength(1)
  })

  test('a reservation that took a payment not yet resolved cannot be cancelled', async () => {
    await publishedExperience(t)
    const made = (await book(t, { date: inDays(4) })).body.data
    // As the dashboard books prepaid reservations (the tables API refuses them), mark this one so.
    t.tenant.db.$client.run(
      "UPDATE tables_reservations SET booking_method = 'prepaid', total_amount = 5000 WHERE id = ?",
      [made.id],
    )
    const refused = await cancel(made.id, '1')
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ paymentStatus: 'unresolved', bookingMethod: 'prepaid' })
    t.tenant.db.$client.run('UPDATE tables_reservations SET payment_resolved_at = ? WHERE id = ?', [
      new Date().toISOString(),
      made.id,
    ])
    expect((await cancel(made.id, '1')).status).toBe(200)
  })

  test('missing reason is 400; unknown reservation 404', async () => {
    await publishedExperience(t)
    const made = (await book(t, { date: inDays(4) })).body.data
    const res = await t.request('POST', reservations(`/${made.id}/cancel`), {
      headers: { 'idempotency-key': newKey(), 'if-match': '1' },
      body: {},
    })
    expect(res.status).toBe(400)
    expect((await cancel(crypto.randomUUID(), '1')).status).toBe(404)
  })
})

describe('list', () => {
  test('by business date range, inclusive; dateFrom after dateTo is 400; both required', async () => {
    await publishedExperience(t)
    const a = (await book(t, { date: inDays(2) })).body.data
    const b = (await book(t, { date: inDays(4) })).body.data
    const list = (from: string, to: string) =>
      t.request('GET', reservations(`?dateFrom=${from}&dateTo=${to}`))
    expect((await list(inDays(2), inDays(4))).body.data.map((r: { id: string }) => r.id)).toEqual([
      a.id,
      b.id,
    ])
    expect((await list(inDays(3), inDays(4))).body.data.map((r: { id: string }) => r.id)).toEqual([b.id])
    expect((await list(inDays(3), inDays(4))).body.page.total).toBe(1)
    expect((await list(inDays(4), inDays(2))).status).toBe(400)
    expect((await list('2027-02-30', inDays(2))).status).toBe(400)
    expect((await t.request('GET', reservations(`?dateFrom=${inDays(2)}`))).status).toBe(400)
  })
})

describe('credentials, permissions and tenants', () => {
  test('a tpk_live_ credential books, reads and cancels at its allowlisted location', async () => {
    await publishedExperience(t)
    const { token } = t.addCredential(t.tenant)
    const res = await book(t, { date: inDays(3), as: token })
    expect(res.status).toBe(201)
    expect(res.body.data.source).toBe('api')
    const id = res.body.data.id
    expect((await t.request('GET', reservations(`/${id}`), { as: token })).status).toBe(200)
    const cancelled = await t.request('POST', reservations(`/${id}/cancel`), {
      as: token,
      headers: { 'idempotency-key': newKey(), 'if-match': '1' },
      body: { reason: 'partner cancelled' },
    })
    expect(cancelled.status).toBe(200)
    const audit = t.tenant.db.$client
      .query("SELECT subject FROM audit_entries WHERE action = 'reservation.cancel'")
      .get() as { subject: string } | null
    expect(audit?.subject ?? '').toContain('credential:')
  })

  test('a read-only credential cannot book; a credential cannot act outside its allowlist', async () => {
    await publishedExperience(t)
    const reader = t.addCredential(t.tenant, { scopes: ['reservations:read'] })
    expect((await options(t, { date: inDays(3), partySize: 2 }, reader.token)).status).toBe(200)
    const refused = await book(t, { date: inDays(3), as: reader.token })
    expect(refused.status).toBe(403)
    const writer = t.addCredential(t.tenant)
    const elsewhere = await t.request(
      'GET',
      tablesPath(crypto.randomUUID(), `/reservations?dateFrom=${inDays(1)}&dateTo=${inDays(2)}`),
      {
        as: writer.token,
      },
    )
    expect(elsewhere.status).toBe(403)
  })

  test('staff: read-only role cannot create or cancel (403)', async () => {
    await publishedExperience(t)
    const res = await book(t, { date: inDays(3), as: t.tenant.readOnly })
    expect(res.status).toBe(403)
    const made = (await book(t, { date: inDays(3) })).body.data
    const cancelRes = await t.request('POST', reservations(`/${made.id}/cancel`), {
      as: t.tenant.readOnly,
      headers: { 'idempotency-key': newKey(), 'if-match': '1' },
      body: { reason: 'x' },
    })
    expect(cancelRes.status).toBe(403)
    expect((await t.request('GET', reservations(`/${made.id}`), { as: t.tenant.readOnly })).status).toBe(200)
  })

  test('another tenant’s location and reservation are 404', async () => {
    await publishedExperience(t)
    const made = (await book(t, { date: inDays(3) })).body.data
    const other = await t.addTenant('other')
    const viaOther = await t.request('GET', reservations(`/${made.id}`), { as: other.owner, tenant: other })
    expect(viaOther.status).toBe(404)
    const theirLocation = await t.request('GET', tablesPath(other.locationId, `/reservations/${made.id}`))
    expect(theirLocation.status).toBe(404)
    const inTheirs = await t.request('GET', tablesPath(other.locationId, `/reservations/${made.id}`), {
      as: other.owner,
      tenant: other,
    })
    expect(inTheirs.status).toBe(404)
  })
})
