// Builds the benchmark data directories in-process, through the same services the API uses:
// one tenant `bench` with a customer and `orderCount` orders, and directories of many tenants with
// an owner and a customer each. Every tenant's owner has a subject of its own and a token for it.
import { Database } from 'bun:sqlite'
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { configFor } from '../src/config'
import { dueWorkSources } from '../src/modules'
import { accessSources } from '../src/modules/access'
import { createCustomer } from '../src/modules/customers/service'
import { createLocation } from '../src/modules/locations/service'
import { createStaffUser } from '../src/modules/staff/service'
import { createTag } from '../src/modules/tags/service'
import { systemActor } from '../src/platform/foundation/actor'
import { newId } from '../src/platform/foundation/ids'
import { openPlatform, type Platform } from '../src/platform/platform'
import { tenantDatabasePath } from '../src/platform/tenancy/databases'
import { createTenant, newTenantRow, registerTenant } from '../src/platform/tenancy/tenants'
import { commitsPending } from '../src/platform/tenancy/transaction'
import { createApp } from '../src/server'

/** The tenant a benchmark request addresses: its id, its owner's token, and its customer. */
export interface BenchTenant {
  tenantId: string
  token: string
  customerId: string
}

const ownerSubject = (slug: string) => `bench-owner-${slug}`

/**
 * A location, an owner mapped to the tenant's own subject, two Manual customer tags, and a
 * customer carrying both tags and two addresses, so a customer read joins real rows.
 */
async function seedTenant(platform: Platform, tenantId: string, slug: string) {
  const { db } = platform.pool.get(tenantId)
  const actor = systemActor(tenantId, 'bench')
  const location = createLocation(db, actor, { name: 'Main', timezone: 'America/Los_Angeles' })
  createStaffUser(db, actor, {
    email: `owner@${slug}.test`,
    firstName: 'Bench',
    lastName: 'Owner',
    subject: ownerSubject(slug),
    role: 'owner',
  })
  const tags = ['VIP', 'Wine Club'].map((title) => createTag(db, actor, 'customer', { title }).id)
  const address = {
    name: 'Ada Lovelace',
    line1: '1 Vineyard Road',
    city: 'Napa',
    region: 'CA',
    postalCode: '94558',
    countryCode: 'US',
  }
  const customer = createCustomer(db, actor, {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: `ada@${slug}.test`,
    tags,
    addresses: [
      { ...address, label: 'billing' },
      { ...address, label: 'shipping', line1: '2 Cellar Lane' },
    ],
  })
  const token = await platform.devIssuer!.mint({ subject: ownerSubject(slug), ttlSeconds: 86_400 })
  return { db, locationId: location.id, bench: { tenantId, token, customerId: customer.id } }
}

const newTenant = (platform: Platform, slug: string) =>
  createTenant(platform.control.db, platform.pool, {
    slug,
    name: `Bench ${slug}`,
    timezone: 'America/Los_Angeles',
  })

/** One tenant `bench` with a customer and `orderCount` orders (one created by the API, cloned in SQL). */
/** Writes the tenants for bench/wrk/spread.lua and spread-create.lua: "tenant id<TAB>token<TAB>customer id" lines. */
export function writeTargets(path: string, tenants: BenchTenant[]): string {
  writeFileSync(path, tenants.map((t) => `${t.tenantId}\t${t.token}\t${t.customerId}\n`).join(''))
  return path
}

export async function prepareSingleTenant(dataDir: string, orderCount: number) {
  const { app, platform } = await createApp({ config: configFor({ dataDir }) })
  try {
    const seeded = await seedTenant(platform, newTenant(platform, 'bench').id, 'bench')
    const headers = {
      authorization: `Bearer ${seeded.bench.token}`,
      'x-tenant-id': seeded.bench.tenantId,
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
    return { ...seeded.bench, subject: ownerSubject('bench'), jwks: platform.devIssuer!.jwks }
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

/**
 * `count` tenants. The first is seeded through the services like `bench` (owner, tags, a customer
 * with addresses); every other one is a copy of its file with its own identity written in plain
 * SQL: the owner's subject and email, the customer's id (in its addresses and tag assignments too)
 * and email. Seeding each tenant through the services took ~50 ms (522 s for 10,000 tenants in the
 * seventh pass of issue 20). The copies keep the first tenant's other row ids (each tenant is a
 * database of its own), and their audit entries and events are the first tenant's, as an imported
 * tenant's name its origin (src/modules/tenants/transfer.ts): the chain still verifies.
 */
export async function prepareManyTenants(dataDir: string, count: number): Promise<BenchTenant[]> {
  // Without fsync: the servers measured later open the files with their own settings.
  const platform = await openPlatform(configFor({ dataDir, tenantPoolSize: 1, sqliteSynchronous: 'OFF' }), {
    access: accessSources,
    dueWork: dueWorkSources,
  })
  try {
    const slugOf = (i: number) => `t${String(i).padStart(5, '0')}`
    const first = newTenant(platform, slugOf(0))
    const seeded = await seedTenant(platform, first.id, slugOf(0))
    // Every job run once, as on a server that has been up: the seeding's events fanned out.
    for (const job of platform.jobs.status()) await platform.jobs.runNow(job.name)
    await commitsPending()
    platform.dueIndex.flush()
    // A snapshot to copy: the first tenant's own file may be mid-checkpoint (checkpoints run in a
    // worker thread), and a copy taken then was malformed.
    const template = join(mkdtempSync(join(tmpdir(), 'restaurant-ops-bench-template-')), 'tenant.sqlite')
    platform.pool.get(first.id).sqlite.query('VACUUM INTO ?').run(template)
    // In WAL mode, as the servers keep it: a copy they switched at its first open would look written
    // since its due work was indexed, and the primary's first sweep would visit every tenant.
    const snapshot = new Database(template)
    snapshot.exec('PRAGMA journal_mode = WAL')
    snapshot.close()
    const tenants = [seeded.bench]
    for (let i = 1; i < count; i++) {
      const slug = slugOf(i)
      const tenant = newTenantRow(platform.control.db, {
        slug,
        name: `Bench ${slug}`,
        timezone: 'America/Los_Angeles',
      })
      const path = tenantDatabasePath(dataDir, tenant.id)
      copyFileSync(template, path)
      const sqlite = new Database(path, { strict: true })
      sqlite.exec('PRAGMA synchronous = OFF')
      const customerId = newId()
      sqlite.transaction(() => {
        sqlite.query('UPDATE staff_identities SET subject = ?').run(ownerSubject(slug))
        sqlite.query('UPDATE staff_users SET email = ?').run(`owner@${slug}.test`)
        sqlite.query('UPDATE customers SET id = ?, email = ?').run(customerId, `ada@${slug}.test`)
        sqlite.query('UPDATE customer_addresses SET customer_id = ?').run(customerId)
        sqlite
          .query("UPDATE tag_assignments SET object_id = ? WHERE object_type = 'customer'")
          .run(customerId)
      })()
      sqlite.close(false)
      registerTenant(platform.control.db, tenant)
      // The jobs' answers are the first tenant's (the same rows), as of the copy's last write.
      platform.control.sqlite
        .query(
          'INSERT INTO tenant_due_work (tenant_id, job, due_at, indexed_at) SELECT ?, job, due_at, ? FROM tenant_due_work WHERE tenant_id = ?',
        )
        .run(tenant.id, Math.ceil(statSync(path).mtimeMs) + 1001, first.id)
      const token = await platform.devIssuer!.mint({ subject: ownerSubject(slug), ttlSeconds: 86_400 })
      tenants.push({ tenantId: tenant.id, token, customerId })
    }
    rmSync(dirname(template), { recursive: true, force: true })
    return tenants
  } finally {
    platform.close()
  }
}
