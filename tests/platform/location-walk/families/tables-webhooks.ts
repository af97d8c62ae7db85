import { newId } from '../../../../src/platform/foundation/ids'
import { made, type WalkFamily } from '../family'

export const tablesWebhooks: WalkFamily = {
  name: 'tables-API webhook subscriptions',
  prefixes: ['/tables-api/v1/webhook-subscriptions'],
  located: false,
  async create(t, tenant) {
    const created = await made(
      t,
      tenant,
      'POST',
      '/tables-api/v1/webhook-subscriptions',
      { object: 'reservation', action: 'create', url: 'https://hooks.example.com/tables' },
      { 'idempotency-key': newId() },
    )
    return { id: created.data.id }
  },
}
