// Builds the benchmark data directories in-process, through the same services the API uses:
// one tenant with a customer and ORDER_COUNT orders, and TENANT_COUNT tenants with a customer each.

import { configFor } from '../src/config'
import { accessSources } from '../src/modules/access'
import { createCustomer } from '../src/modules/customers/service'
import { createLocation } from '../src/modules/locations/service'
import { createStaffUser } from '../src/modules/staff/service'
import { systemActor } from '../src/platform/auth/actor'
import { openPlatform, type Platform } from '../src/platform/platform'
import { createTenant } from '../src/platform/tenancy/tenants'
import { createApp } from '../src/server'

export const OWNER_SUBJECT = 'bench-owner'

function seedTenant(platform: Platform, slug: string) {
  const tenant = createTenant(platform.control.db, {
    slug,
    name: `Bench ${slug}`,
    timezone: 'America/Los_Angeles',
  })
  const { db } = platform.pool.get(tenant.id)
  const actor = systemActor(tenant.id, 'bench')
  const location = createLocation(db, actor, { name: 'Main', timezone: 'America/Los_Angeles' })
  createStaffUser(db, actor, {
    email: `owner@${slug}.test`,
    firstName: 'Bench',
    lastName: 'Owner',
    subject: OWNER_SUBJECT,
    role: 'owner',
  })
  const customer = createCustomer(db, actor, {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: `ada@${slug}.test`,
  })
  return { tenant, db, locationId: location.id, customerId: customer.id }
}

/** One tenant `bench` with a customer and `orderCount` orders (one created by the API, cloned in SQL). */
export async function prepareSingleTenant(dataDir: string, orderCount: number) {
  const { app, platform } = await createApp({ config: configFor({ dataDir }) })
  try {
    const seeded = seedTenant(platform, 'bench')
    const token = await platform.devIssuer!.mint({ subject: OWNER_SUBJECT, ttlSeconds: 86_400 })
    const headers = {
      authorization: `Bearer ${token}`,
      'x-tenant-id': seeded.tenant.id,
      'x-location-id': seeded.locationId,
      'content-type': 'application/json',
    }
    const body = {
      guestName: 'Walk-in',
      lineItems: [
        {
          lineType: 'open_item',
          openItemScope: 'food',
          title: 'Oysters',
          unitPrice: 1800,
          quantity: 2,
          taxCode: 'food',
        },
        {
          lineType: 'open_item',
          openItemScope: 'food',
          title: 'Bread',
          unitPrice: 600,
          quantity: 1,
          taxCode: 'food',
        },
      ],
    }
    const res = await app.handle(
      new Request('http://localhost/order', { method: 'POST', headers, body: JSON.stringify(body) }),
    )
    if (res.status !== 201) throw new Error(`order create failed: ${res.status} ${await res.text()}`)
    const template = (await res.json()) as { id: string }
    cloneOrders(seeded.db.$client, template.id, orderCount - 1)
    return { tenantId: seeded.tenant.id, customerId: seeded.customerId, locationId: seeded.locationId }
  } finally {
    platform.close()
  }
}

/** Copies an order (and its lines) `copies` times with new ids, numbers and spread-out creation times. */
function cloneOrders(sqlite: Platform['control']['sqlite'], templateId: string, copies: number) {
  const orderColumns = columnsOf(sqlite, 'orders').filter(
    (c) => !['id', 'order_number', 'created_at', 'updated_at'].includes(c),
  )
  const lineColumns = columnsOf(sqlite, 'order_lines').filter((c) => !['id', 'order_id'].includes(c))
  sqlite.transaction(() => {
    sqlite.exec('CREATE TEMP TABLE seq(n INTEGER PRIMARY KEY)')
    sqlite
      .query(
        'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?) INSERT INTO seq SELECT n FROM c',
      )
      .run(copies)
    sqlite
      .query(
        `INSERT INTO orders (id, order_number, created_at, updated_at, ${orderColumns.join(', ')})
       SELECT printf('00000000-0000-7000-8000-%012d', seq.n), seq.n + 1,
              strftime('%Y-%m-%dT%H:%M:%fZ', 'now', printf('-%d minutes', seq.n)),
              strftime('%Y-%m-%dT%H:%M:%fZ', 'now', printf('-%d minutes', seq.n)),
              ${orderColumns.map((c) => `o.${c}`).join(', ')}
       FROM seq, orders o WHERE o.id = ?`,
      )
      .run(templateId)
    sqlite
      .query(
        `INSERT INTO order_lines (id, order_id, ${lineColumns.join(', ')})
       SELECT printf('00000000-%04x-7000-9000-%012d', l.position, seq.n), printf('00000000-0000-7000-8000-%012d', seq.n), ${lineColumns.map((c) => `l.${c}`).join(', ')}
       FROM seq, order_lines l WHERE l.order_id = ?`,
      )
      .run(templateId)
    sqlite.query("UPDATE order_sequences SET last_value = ? WHERE name = 'order'").run(copies + 1)
    sqlite.exec('DROP TABLE seq')
  })()
}

const columnsOf = (sqlite: Platform['control']['sqlite'], table: string) =>
  (sqlite.query(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name)

/** `count` tenants, each with an owner mapped to OWNER_SUBJECT and one customer. */
export async function prepareManyTenants(dataDir: string, count: number) {
  const platform = await openPlatform(configFor({ dataDir, tenantPoolSize: 64 }), { access: accessSources })
  try {
    const tenants: { tenantId: string; customerId: string }[] = []
    for (let i = 0; i < count; i++) {
      const seeded = seedTenant(platform, `t${String(i).padStart(4, '0')}`)
      tenants.push({ tenantId: seeded.tenant.id, customerId: seeded.customerId })
    }
    return tenants
  } finally {
    platform.close()
  }
}
