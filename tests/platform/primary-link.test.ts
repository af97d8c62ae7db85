// A worker's line to its primary: what its commits ask of the primary goes in one message, the
// tenants written first, and no sooner than FLUSH_MS after the last one (primary-link.ts).
import { expect, test } from 'bun:test'
import { PrimaryLink, type ToPrimary } from '../../src/platform/primary-link'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

test("a turn's commits ask the primary in one message, the tenants written first; the next waits out the interval", async () => {
  const sent: { message: ToPrimary; at: number }[] = []
  const link = new PrimaryLink(1, (message) => sent.push({ message, at: performance.now() }))
  link.trigger('imports.run')
  link.tenantWritten('tenant-a')
  link.wake('tenant-a')
  link.committed('/data/tenant-a.sqlite')
  link.tenantWritten('tenant-a')
  await nextTurn()
  await Bun.sleep(0)
  expect(sent.map((s) => s.message)).toEqual([
    {
      type: 'after-commits',
      written: ['tenant-a'],
      triggers: ['imports.run'],
      wakes: ['tenant-a'],
      paths: ['/data/tenant-a.sqlite'],
    },
  ])

  // Written in later turns: sent once the interval since the last message is over, together
  // when they came within it.
  link.tenantWritten('tenant-b')
  await nextTurn()
  link.tenantWritten('tenant-c')
  const deadline = Date.now() + 2_000
  const written = () =>
    sent.slice(1).flatMap((s) => (s.message.type === 'after-commits' ? s.message.written : []))
  while (written().length < 2 && Date.now() < deadline) await Bun.sleep(5)
  expect(written()).toEqual(['tenant-b', 'tenant-c'])
  // FLUSH_MS is 20; a timer may fire a little early. Unthrottled, the gap was under a millisecond.
  expect(sent[1]!.at - sent[0]!.at).toBeGreaterThan(15)
})
