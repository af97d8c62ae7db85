// A separate process clocking a staff user in on a tenant file: for the one-open-shift test.
// Usage: bun clock-worker.ts <databasePath> <tenantId> <staffUserId> <laborJobId> <locationId>
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { clockIn } from '../../../src/modules/labor/shifts'
import { everyLocation } from '../../../src/platform/auth/location-scope'
import { systemActor } from '../../../src/platform/foundation/actor'
import { ApiError } from '../../../src/platform/foundation/problem'
import type { Db } from '../../../src/platform/tenancy/databases'
import { openSqlite } from '../../../src/platform/tenancy/sqlite'

const [path, tenantId, staffUserId, laborJobId, locationId] = process.argv.slice(2) as string[]
const sqlite = openSqlite(path!, { synchronous: 'NORMAL', busyTimeoutMs: 30_000 })
const db = drizzle({ client: sqlite }) as Db
const actor = { ...systemActor(tenantId!, 'worker'), staffUserId: staffUserId! }
let outcome: string
try {
  clockIn(
    db,
    { actor, permissions: new Set(), locations: everyLocation },
    { laborJobId: laborJobId!, locationId },
  )
  outcome = 'created'
} catch (error) {
  outcome = error instanceof ApiError ? error.code : `error: ${String(error)}`
}
sqlite.close()
process.stdout.write(outcome)
