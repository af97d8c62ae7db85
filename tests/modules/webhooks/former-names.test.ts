// Event names are snake_case; the kebab-case names some events had (`cash-drawer`, `clock-in`)
// stay valid for one release: a subscription made with one still receives the event, under that
// name, and the log's filters answer to either (docs/events.md, "Former names").
import { afterEach, expect, test } from 'bun:test'
import { registerFamilies } from '../../../src/modules'
import { recordWrite } from '../../../src/platform/audit/record-write'
import { currentName, namesOfAction, namesOfObject, spellingsOf } from '../../../src/platform/events/names'
import { systemActor } from '../../../src/platform/foundation/actor'
import { inWriteTransaction } from '../../../src/platform/tenancy/transaction'
import { createTestApp, type TestApp } from '../../harness'
import { openDrawer } from '../cash/helpers'
import { fastDelivery, type Receiver, startReceiver, waitFor } from './receiver'

let t: TestApp
let receivers: Receiver[] = []

afterEach(async () => {
  await t?.platform.jobs.stop()
  t?.close()
  for (const r of receivers) r.stop()
  receivers = []
})

async function subscribedReceiver(object: string, action: string) {
  const receiver = startReceiver()
  receivers.push(receiver)
  const res = await t.request('POST', '/web-hook', { body: { object, action, url: receiver.url } })
  expect(res.status).toBe(201)
  return receiver
}

const names = (r: Receiver) => r.received.map((got) => `${got.json.object}.${got.json.action}`)

test('the catalogue maps each former name to the current one, and back', () => {
  // The names are the families' (their manifests' events), registered as any process starts.
  registerFamilies()
  expect(currentName({ object: 'labor-shift', action: 'clock-in' })).toEqual({
    object: 'labor_shift',
    action: 'clock_in',
  })
  expect(currentName({ object: 'Cash-Drawer', action: 'close' })).toEqual({
    object: 'cash_drawer',
    action: 'close',
  })
  expect(currentName({ object: 'vendor', action: 'create' })).toEqual({ object: 'vendor', action: 'create' })
  expect(spellingsOf({ object: 'club_release', action: 'run_start' })).toEqual([
    { object: 'club_release', action: 'run_start' },
    { object: 'club-release', action: 'run-start' },
  ])
  expect(spellingsOf({ object: 'vendor', action: 'create' })).toEqual([
    { object: 'vendor', action: 'create' },
  ])
  expect(namesOfObject('MEDIA-ASSET').sort()).toEqual(['media-asset', 'media_asset'])
  expect(namesOfAction('clock_out').sort()).toEqual(['clock-out', 'clock_out'])
  expect(namesOfObject('vendor')).toEqual(['vendor'])
})

test('a subscription made with a former name receives the event under it; a current one under the current name', async () => {
  t = await createTestApp({ config: fastDelivery })
  const former = await subscribedReceiver('cash-drawer', 'create')
  const current = await subscribedReceiver('cash_drawer', 'create')
  const unrelated = await subscribedReceiver('cash-drawer', 'close')
  t.platform.jobs.start()

  const drawer = await openDrawer(t)
  await waitFor(() => former.received.length === 1 && current.received.length === 1, 'both deliveries')
  expect(names(former)).toEqual(['cash-drawer.create'])
  expect(names(current)).toEqual(['cash_drawer.create'])
  expect(former.received[0]!.json.payload.id).toBe(drawer.id)
  expect(unrelated.received).toEqual([])

  // The log's filters answer to either name of the object, and show the event as it was written.
  await waitFor(async () => (await t.request('GET', '/web-hook-log')).body.total === 2, 'two logged attempts')
  for (const query of ['object=cash-drawer', 'object=CASH_DRAWER&action=create', 'object=cash_drawer']) {
    const log = await t.request('GET', `/web-hook-log?${query}`)
    expect(log.status).toBe(200)
    expect(log.body.webHookLogs.map((e: { object: string }) => e.object)).toEqual([
      'cash_drawer',
      'cash_drawer',
    ])
    expect(log.body.total).toBe(2)
  }
  expect((await t.request('GET', '/web-hook-log?object=cash-drawer&action=close')).body.total).toBe(0)
})

test('an event written under a former name (before the upgrade) still reaches current-name subscriptions', async () => {
  t = await createTestApp({ config: fastDelivery })
  const current = await subscribedReceiver('labor_shift', 'clock_in')
  const former = await subscribedReceiver('labor-shift', 'clock-in')
  t.platform.jobs.start()
  // An outbox row as the service wrote it before the rename.
  inWriteTransaction(t.tenant.db, (tx) =>
    recordWrite(tx, systemActor(t.tenant.id, 'test'), {
      action: 'labor.shift.clock_in',
      entityType: 'labor_shift',
      entityId: 'shift-1',
      events: [
        { object: 'labor-shift', action: 'clock-in', aggregateId: 'shift-1', payload: { id: 'shift-1' } },
      ],
    }),
  )
  await waitFor(() => current.received.length === 1 && former.received.length === 1, 'both deliveries')
  expect(names(current)).toEqual(['labor_shift.clock_in'])
  expect(names(former)).toEqual(['labor-shift.clock-in'])
  // The service itself no longer writes former names (the harness checks every event it wrote
  // against the catalogue at close): take the simulated row out before that check.
  await t.platform.jobs.stop()
  t.tenant.db.$client.run("DELETE FROM outbox_events WHERE object = 'labor-shift'")
})
