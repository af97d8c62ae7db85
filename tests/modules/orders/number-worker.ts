// A separate process creating orders on a tenant file: for the order-number concurrency test.
// Usage: bun number-worker.ts <databasePath> <tenantId> <locationId> <count>
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { registerFamilies } from '../../../src/modules'
import { createOrder } from '../../../src/modules/orders/orders'
import { systemActor } from '../../../src/platform/foundation/actor'
import type { Db } from '../../../src/platform/tenancy/databases'
import { openSqlite } from '../../../src/platform/tenancy/sqlite'

// A create asks off-premise for its step: what registerFamilies lends orders, as a server does.
registerFamilies()
const [path, tenantId, locationId, count] = process.argv.slice(2) as [string, string, string, string]
const sqlite = openSqlite(path, { synchronous: 'NORMAL', busyTimeoutMs: 30_000 })
const db = drizzle({ client: sqlite }) as Db
const numbers: number[] = []
for (let i = 0; i < Number(count); i++)
  numbers.push(createOrder(db, systemActor(tenantId, 'worker'), { locationId }).orderNumber)
sqlite.close()
process.stdout.write(JSON.stringify(numbers))
