// The test kit (`restaurant-ops/testing`): the README's example is the file that runs, tokens of
// any role go through real authentication, and nothing outlives stop().
import { afterAll, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestServer } from 'restaurant-ops/testing'

const root = join(import.meta.dir, '..', '..')

test('the README shows exactly the example file that runs in this suite', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const example = readFileSync(join(import.meta.dir, 'readme-example.test.ts'), 'utf8')
  expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``)
})

const kitDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith('restaurant-ops-testkit-'))
const before = kitDirs()
const t = await startTestServer()
afterAll(() => t.stop())

test('serves the real API over HTTP with an owner client', async () => {
  const { data, response } = await t.client.GET('/locations')
  expect(response.status).toBe(200)
  expect(data?.locations.map((l) => l.id)).toEqual([t.tenant.locationId])
  expect(t.tenant.locationIds).toEqual([t.tenant.locationId])
  const created = await t.client.POST('/vendor', { body: { name: 'Glass Co' } })
  expect(created.response.status).toBe(201)
})

test('tokens carry the role asked for, tenant-wide or at one location', async () => {
  const second = await t.client.POST('/locations', { body: { name: 'Annex', timeZone: 'UTC' } })
  expect(second.response.status).toBe(201)
  const staff = t.clientFor(await t.token({ role: 'staff' }))
  const refused = await staff.POST('/locations', { body: { name: 'Nope', timeZone: 'UTC' } })
  expect(refused.response.status).toBe(403)
  const bound = t.clientFor(await t.token({ role: 'manager', locationId: t.tenant.locationId }))
  const { data } = await bound.GET('/locations')
  expect(data?.locations.map((l) => l.id)).toEqual([t.tenant.locationId])
  expect(await t.token({ role: 'staff' })).not.toBe('')
  const unsigned = t.clientFor('not-a-token')
  expect((await unsigned.GET('/locations')).response.status).toBe(401)
})

test('stop() closes the port and removes the data directory', async () => {
  const other = await startTestServer()
  expect(kitDirs().length).toBe(before.length + 2)
  await other.stop()
  expect(kitDirs().length).toBe(before.length + 1)
  await expect(fetch(`${other.baseUrl}/health`)).rejects.toThrow()
})
