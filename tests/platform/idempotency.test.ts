import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import type { Actor } from '../../src/platform/foundation/actor'
import { systemActor } from '../../src/platform/foundation/actor'
import { ApiError } from '../../src/platform/foundation/problem'
import {
  IDEMPOTENCY_TTL_MS,
  idempotentCall,
  idempotentWrite,
  purgeExpiredIdempotencyKeys,
} from '../../src/platform/http/idempotency'
import { countRows, createTestApp, type TestApp } from '../harness'

describe('idempotency keys', () => {
  let t: TestApp
  let actor: Actor
  beforeEach(async () => {
    t = await createTestApp()
    actor = { ...systemActor(t.tenant.id, 'test'), route: '/things' }
  })
  afterEach(() => t.close())

  const request = (body: unknown, key = 'key-12345678') => ({ key, method: 'POST', path: '/things', body })

  test('same key and body replays the first response without running the work again', () => {
    let runs = 0
    const work = () => ({ status: 201, body: { run: ++runs } })
    const first = idempotentWrite(t.tenant.db, actor, request({ a: 1 }), work)
    const second = idempotentWrite(t.tenant.db, actor, request({ a: 1 }), work)
    expect(first).toEqual({ status: 201, body: { run: 1 }, replayed: false })
    expect(second).toEqual({ status: 201, body: { run: 1 }, replayed: true })
    expect(runs).toBe(1)
  })

  test('same key with another body is 422 idempotency_key_reused', () => {
    idempotentWrite(t.tenant.db, actor, request({ a: 1 }), () => ({ status: 200, body: {} }))
    expect(() =>
      idempotentWrite(t.tenant.db, actor, request({ a: 2 }), () => ({ status: 200, body: {} })),
    ).toThrow(expect.objectContaining({ code: 'idempotency_key_reused', status: 422 }))
  })

  test('the same key from another subject is another request', () => {
    const other = { ...actor, subject: 'someone-else' }
    idempotentWrite(t.tenant.db, actor, request({ a: 1 }), () => ({ status: 200, body: { who: 1 } }))
    const theirs = idempotentWrite(t.tenant.db, other, request({ a: 1 }), () => ({
      status: 200,
      body: { who: 2 },
    }))
    expect(theirs.body).toEqual({ who: 2 })
  })

  test('a failed first request stores nothing, so a retry runs the work', () => {
    expect(() =>
      idempotentWrite(t.tenant.db, actor, request({ a: 1 }), () => {
        throw new ApiError('conflict', 'nope')
      }),
    ).toThrow(ApiError)
    expect(countRows(t.tenant.db, 'idempotency_keys')).toBe(0)
    const retry = idempotentWrite(t.tenant.db, actor, request({ a: 1 }), () => ({
      status: 201,
      body: { ok: true },
    }))
    expect(retry.replayed).toBe(false)
  })

  test('a concurrent request with a key in flight is 409; after completion it replays', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let runs = 0
    const slow = async () => {
      runs++
      await gate
      return { status: 201, body: { charged: true } }
    }
    const first = idempotentCall(t.tenant.db, actor, request({ amount: 500 }), slow)
    await expect(idempotentCall(t.tenant.db, actor, request({ amount: 500 }), slow)).rejects.toMatchObject({
      code: 'idempotency_key_in_use',
      status: 409,
    })
    release()
    expect(await first).toEqual({ status: 201, body: { charged: true }, replayed: false })
    expect(await idempotentCall(t.tenant.db, actor, request({ amount: 500 }), slow)).toMatchObject({
      replayed: true,
    })
    expect(runs).toBe(1)
  })

  test('expired keys are purged and then free again', () => {
    idempotentWrite(t.tenant.db, actor, request({ a: 1 }), () => ({ status: 200, body: { v: 1 } }))
    expect(purgeExpiredIdempotencyKeys(t.tenant.db)).toBe(0)
    expect(purgeExpiredIdempotencyKeys(t.tenant.db, new Date(Date.now() + IDEMPOTENCY_TTL_MS + 1000))).toBe(1)
    const again = idempotentWrite(t.tenant.db, actor, request({ a: 2 }), () => ({
      status: 200,
      body: { v: 2 },
    }))
    expect(again).toEqual({ status: 200, body: { v: 2 }, replayed: false })
  })
})
