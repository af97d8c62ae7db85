// A separate process booking one start time on a tenant file: for the capacity concurrency tests.
// Usage: bun book-worker.ts <databasePath> <tenantId> <claims JSON> <attempts> [pauseMs]
// Prints {"booked": n, "full": m}; `full` counts 409 option_unavailable refusals.
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { createTablesReservation } from '../../../src/modules/tables-reservations/service'
import { systemActor } from '../../../src/platform/foundation/actor'
import { ApiError } from '../../../src/platform/foundation/problem'
import type { Db } from '../../../src/platform/tenancy/databases'
import { openSqlite } from '../../../src/platform/tenancy/sqlite'

const [path, tenantId, claimsJson, attempts, pauseMs = '0'] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string?,
]
const claims = JSON.parse(claimsJson)
const sqlite = openSqlite(path, { synchronous: 'NORMAL', busyTimeoutMs: 30_000 })
const db = drizzle({ client: sqlite }) as Db
let booked = 0
let full = 0
for (let i = 0; i < Number(attempts); i++) {
  if (i > 0) Bun.sleepSync(Number(pauseMs))
  try {
    createTablesReservation(db, systemActor(tenantId, 'worker'), claims.locationId, claims, {
      name: `Worker ${process.pid}`,
      email: `w${process.pid}@example.test`,
    })
    booked++
  } catch (error) {
    if (error instanceof ApiError && error.code === 'option_unavailable') full++
    else throw error
  }
}
sqlite.close()
process.stdout.write(JSON.stringify({ booked, full }))
