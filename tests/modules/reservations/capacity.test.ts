// No overbooking: the covers of a start time are counted against the capacity published now and
// the booking inserted in one BEGIN IMMEDIATE transaction, so concurrent creates in one process
// (interleaved requests) and across processes writing the same tenant file never exceed the
// capacity, also when the experience is republished with another capacity while they run.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { join } from 'node:path'
import { tenantDatabasePath } from '../../../src/platform/tenancy/databases'
import { createTestApp, type TestApp } from '../../harness'
import { book, inDays, options, publish, publishedExperience } from './helpers'

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

/**
 * Replays the audit log in commit order (`seq`): each booking of `startsAt` saw every cover booked
 * before it, was counted against the capacity of the version published when it committed, and
 * left the start within that capacity. Answers the covers booked.
 */
function replayBookings(startsAt: string): number {
  const entries = t.tenant.db.$client
    .query(
      "SELECT action, metadata FROM audit_entries WHERE action IN ('experience.publish', 'reservation.create') ORDER BY seq",
    )
    .all() as { action: string; metadata: string }[]
  let published = { id: '', capacity: 0 }
  let covers = 0
  for (const entry of entries) {
    const metadata = JSON.parse(entry.metadata)
    if (entry.action === 'experience.publish') {
      published = { id: metadata.version.id, capacity: metadata.version.schedule[0].capacity }
      continue
    }
    if (metadata.reservation.startsAt !== startsAt) continue
    expect(metadata).toMatchObject({
      coversBefore: covers,
      capacity: published.capacity,
      capacityVersionId: published.id,
    })
    covers += metadata.reservation.partySize
    expect(covers).toBeLessThanOrEqual(published.capacity)
  }
  return covers
}

const at1900 = { slots: [{ times: ['19:00'], capacity: 8 }] }

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

test('concurrent requests with tokens issued before a republish fill only the capacity published now', async () => {
  const { id } = await publishedExperience(t, at1900)
  const offered = (await options(t, { date: inDays(6), partySize: 2 })).body.data[0]
  expect((await book(t, { date: inDays(6), token: offered.optionToken })).status).toBe(201)
  await publish(t, id, { slots: [{ times: ['19:00'], capacity: 5 }] })
  const all = await Promise.all(
    Array.from({ length: 8 }, () => book(t, { date: inDays(6), token: offered.optionToken })),
  )
  expect(all.filter((r) => r.status === 201)).toHaveLength(1)
  const refused = all.filter((r) => r.status === 409)
  expect(refused).toHaveLength(7)
  for (const r of refused)
    expect(r.body).toMatchObject({ code: 'option_unavailable', reason: 'capacity', remainingCapacity: 1 })
  expect(replayBookings(offered.startsAt)).toBe(4)
  expect(coversAt(offered.startsAt)).toBe(4)
})

test('a republish racing concurrent requests: each booking is held to the capacity published when it commits', async () => {
  const { id } = await publishedExperience(t, at1900)
  const offered = (await options(t, { date: inDays(6), partySize: 1 })).body.data[0]
  const bookOne = () => book(t, { date: inDays(6), token: offered.optionToken })
  const all = await Promise.all([
    ...Array.from({ length: 5 }, bookOne),
    publish(t, id, { slots: [{ times: ['19:00'], capacity: 3 }] }),
    ...Array.from({ length: 7 }, bookOne),
  ])
  const answers = all.filter((r) => typeof r !== 'string')
  expect(answers.every((r) => r.status === 201 || r.status === 409)).toBe(true)
  const covers = replayBookings(offered.startsAt)
  expect(covers).toBe(answers.filter((r) => r.status === 201).length)
  expect(coversAt(offered.startsAt)).toBe(covers)
  expect(covers).toBeLessThanOrEqual(8)
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

test('several processes booking with tokens from before a republish, while it happens, stay within the capacity published', async () => {
  const { id, versionId } = await publishedExperience(t, { slots: [{ times: ['20:00'], capacity: 20 }] })
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
  // Five attempts each, 15 ms apart, so the republish lands while they book.
  const workers = Array.from({ length: 4 }, () =>
    Bun.spawn([process.execPath, worker, path, t.tenant.id, JSON.stringify(claims), '5', '15'], {
      stdout: 'pipe',
      stderr: 'pipe',
    }),
  )
  while (coversAt(offered.startsAt) < 2) await Bun.sleep(2)
  await publish(t, id, { slots: [{ times: ['20:00'], capacity: 6 }] })
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
  expect(here.every((r) => r.status === 201 || r.status === 409)).toBe(true)
  const booked = results.reduce((n, r) => n + r.booked, 0) + here.filter((r) => r.status === 201).length
  const refused = results.reduce((n, r) => n + r.full, 0) + here.filter((r) => r.status === 409).length
  expect(booked + refused).toBe(26)
  // Every booking after the republish was held to 6: the start ends at 6, or at what it held then.
  const covers = replayBookings(offered.startsAt)
  expect(covers).toBe(booked)
  expect(coversAt(offered.startsAt)).toBe(covers)
})
