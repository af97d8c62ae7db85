import { expect, test } from 'bun:test'
import { startTestServer } from 'restaurant-ops/testing'

test('the demo tenant has two locations', async () => {
  const t = await startTestServer({ seed: 'demo' })
  const { data } = await t.client.GET('/locations')
  expect(data?.locations).toHaveLength(2)
  await t.stop()
})
