import { DELIVERY_JOB } from '../../../../src/platform/events/worker'
import type { TenantFixture, TestApp } from '../../../harness'
import { made, type WalkFamily } from '../family'

const subscribed = (t: TestApp, tenant: TenantFixture) =>
  made(t, tenant, 'POST', '/web-hook', { object: 'vendor', action: 'create', url: 'http://127.0.0.1:9/hook' })

export const webhooks: WalkFamily = {
  name: 'webhooks',
  prefixes: ['/web-hook'],
  located: false,
  create: async (t, tenant) => ({ id: (await subscribed(t, tenant)).id }),
}

/**
 * A vendor created while a subscription points at a closed port: its delivery fails at once and,
 * with no retries configured (the walk's app), the event is a dead letter.
 */
export const webhookDeadLetters: WalkFamily = {
  name: 'webhook dead letters',
  prefixes: ['/web-hook-dead-letters'],
  located: false,
  async create(t, tenant) {
    await subscribed(t, tenant)
    const vendor = await made(t, tenant, 'POST', '/vendor', { name: 'Dead letter glassworks' })
    await t.platform.jobs.runNow(DELIVERY_JOB)
    const letters = await made(t, tenant, 'GET', '/web-hook-dead-letters?limit=100')
    const letter = letters.deadLetters.find((l: { aggregateId: string }) => l.aggregateId === vendor.id)
    if (!letter) throw new Error(`no dead letter for vendor ${vendor.id}: ${JSON.stringify(letters)}`)
    return { id: letter.id }
  },
}
