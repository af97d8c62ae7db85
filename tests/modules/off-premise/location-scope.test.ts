// Off-premise orders and settings live at their location: a caller confined to location A (a
// manager whose only role is there, a vps_ session there) cannot move an order at B through its
// fulfilment flow, nor read or change B's settings and channels, nor take a takeout order at B.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../../harness'
import { ok } from '../orders/helpers'
import { callers, refusedUnwritten, type ScopeFixture, scopeFixture } from '../orders/scope'

const water = { lineType: 'open_item', title: 'Water', unitPrice: 300, openItemScope: 'food' }
const takeout = { fulfillmentMode: 'takeout', lineItems: [water] }

let t: TestApp
let scope: ScopeFixture
let orderB: any
let channelB: any
beforeAll(async () => {
  t = await createTestApp()
  scope = await scopeFixture(t)
  const settingsB = await ok(
    t.request('PUT', `/shipping/off-premise/settings?locationId=${scope.B}`, {
      body: { thirdPartyChannels: [{ title: 'Courier app', provider: 'courier' }] },
    }),
  )
  channelB = settingsB.thirdPartyChannels[0]
  orderB = await ok(t.request('POST', '/order', { body: { ...takeout, locationId: scope.B } }), 201)
  await ok(t.request('POST', `/order/${orderB.id}/submit`))
})
afterAll(() => t.close())

describe('off-premise at a location out of reach', () => {
  for (const caller of callers) {
    const as = () => scope.tokens[caller]

    test(`${caller}: every step of B’s order’s flow is 404 and writes nothing`, async () => {
      const steps: [string, unknown][] = [
        ['stage', { stagingArea: 'Shelf' }],
        ['ready', {}],
        ['batch-ready', {}],
        ['arrive', {}],
        ['complete', {}],
        ['dispatch', { courierName: 'Bo' }],
        ['deliver', {}],
      ]
      for (const [step, body] of steps) {
        const path = `/order/${orderB.id}/off-premise/${step}`
        const res = await refusedUnwritten(t, 404, () => t.request('POST', path, { as: as(), body }))
        expect(`${step}: ${res.body.detail}`).toContain(`order ${orderB.id} not found`)
      }
    })

    test(`${caller}: B’s settings and channels are 403 to read or change, and nothing is written`, async () => {
      const at = `?locationId=${scope.B}`
      await refusedUnwritten(t, 403, () =>
        t.request('GET', `/shipping/off-premise/settings${at}`, { as: as() }),
      )
      await refusedUnwritten(t, 403, () =>
        t.request('PUT', `/shipping/off-premise/settings${at}`, { as: as(), body: { leadTimeHours: 2 } }),
      )
      await refusedUnwritten(t, 403, () =>
        t.request('POST', `/shipping/off-premise/channels/${channelB.id}/control${at}`, {
          as: as(),
          body: { action: 'ordering_off' },
        }),
      )
      await refusedUnwritten(t, 403, () =>
        t.request('POST', '/order', { as: as(), body: { ...takeout, locationId: scope.B } }),
      )
    })

    test(`${caller}: A’s settings and a takeout order at A go as usual`, async () => {
      const at = `?locationId=${scope.A}`
      const settings = await ok(
        t.request('PUT', `/shipping/off-premise/settings${at}`, {
          as: as(),
          body: { batchReadyEnabled: true },
        }),
      )
      expect(settings).toMatchObject({ locationId: scope.A, batchReadyEnabled: true })
      const order = await ok(t.request('POST', '/order', { as: as(), body: takeout }), 201)
      expect(order).toMatchObject({ locationId: scope.A, offPremise: { staging: { state: 'pending' } } })
      await ok(t.request('POST', `/order/${order.id}/submit`, { as: as() }))
      const staged = await ok(
        t.request('POST', `/order/${order.id}/off-premise/stage`, {
          as: as(),
          body: { stagingArea: 'Shelf' },
        }),
      )
      expect(staged.offPremise.staging).toMatchObject({ state: 'staged', stagingArea: 'Shelf' })
    })
  }
})
