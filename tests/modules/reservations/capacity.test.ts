// No overbooking: the covers of a start time are counted and the booking inserted in one
// BEGIN IMMEDIATE transaction, so concurrent creates in one process (interleaved requests) and
// across processes writing the same tenant file never exceed the capacity.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { join } from 'node:path'
import { tenantDatabasePath } from '../../../src/platform/tenancy/databases'
import { createTestApp, type TestApp } from '../../harness'
import { book, inDays, options, publishedExperience } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

function coversAt(startsAt: string): number {
  const row = t.tenant.db.$client
    .query(
      "SELECT coalesce(sum(party_size), 0) AS n FROM tables_reservations WHERE starts_at = ? AND lifecycle = 'confirmed'",
    )
    .get(startsAt) as { n: number }
  return row.n
}

test('concurrent requests: exactly the capacity is booked, the rest are 409 with what is left', async () => {
  await publishedExperience(t, { slots: [{ times: ['19:00'], capacity: 7 }] })
  const offered = (await options(t, { date: inDays(6), partySize: 2 })).body.data
  expect(offered).toHaveLength(1)
  const token = offered[0].optionToken
  const all = await Promise.all(Array.from({ length: 8 }, () => book(t, { date: inDays(6), token })))
  const booked = all.filter((r) => r.status === 201)
  const refused = all.filter((r) => r.status === 409)
  expect(booked).toHaveLength(3)
  expect(refused).toHaveLength(5)
  for (const r of refused) expect(r.body.remainingCapacity).toBe(1)
  expect(coversAt(offered[0].startsAt)).toBe(6)
  // One cover is left: a party of 1 is offered and books; then nothing is offered.
  const single = (await options(t, { date: inDays(6), partySize: 1 })).body.data
  expect(single[0].remainingCapacity).toBe(1)
  expect((await book(t, { date: inDays(6), token: single[0].optionToken })).status).toBe(201)
  expect((await options(t, { date: inDays(6), partySize: 1 })).body.data).toEqual([])
})

test('several processes and this one booking the same start time never exceed its capacity', async () => {
  const { id, versionId } = await publishedExperience(t, { slots: [{ times: ['20:00'], capacity: 12 }] })
  const offered = (await options(t, { date: inDays(6), partySize: 1 })).body.data[0]
  const claims = {
    experienceId: id,
    experienceVersionId: versionId,
    locationId: t.tenant.locationId,
    startsAt: offered.startsAt,
    partySize: 1,
    currency: 'USD',
    subtotalAmount: 0,
    taxAmount: 0,
    totalAmount: 0,
    paymentOption: 'none',
  }
  const path = tenantDatabasePath(t.dataDir, t.tenant.id)
  const worker = join(import.meta.dir, 'book-worker.ts')
  const workers = Array.from({ length: 4 }, () =>
    Bun.spawn([process.execPath, worker, path, t.tenant.id, JSON.stringify(claims), '5'], {
      stdout: 'pipe',
      stderr: 'pipe',
    }),
  )
  const here = await Promise.all(
    Array.from({ length: 6 }, () => book(t, { date: inDays(6), token: offered.optionToken })),
  )
  const results = await Promise.all(
    workers.map(async (w) => {
      const [out, err, code] = await Promise.all([
        new Response(w.stdout).text(),
        new Response(w.stderr).text(),
        w.exited,
      ])
      if (code !== 0) throw new Error(`worker failed (${code}): ${err}`)
      return JSON.parse(out) as { booked: number; full: number }
    }),
  )
  const bookedElsewhere = results.reduce((n, r) => n + r.booked, 0)
  const bookedHere = here.filter((r) => r.status === 201).length
  expect(here.every((r) => r.status === 201 || r.status === 409)).toBe(true)
  expect(bookedElsewhere + bookedHere).toBe(12)
  expect(results.reduce((n, r) => n + r.full, 0) + here.filter((r) => r.status === 409).length).toBe(26 - 12)
  expect(coversAt(offered.startsAt)).toBe(12)
})
