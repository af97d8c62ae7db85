// A separate process recording drawer entries on a tenant file through its own connection: for
// the lost-update test. Usage: bun entry-worker.ts <databasePath> <tenantId> <drawerId> <count>
// Prints the balanceDelta of every entry it wrote, as JSON.
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { registerFamilies } from '../../../src/modules'
import { addEntry } from '../../../src/modules/cash/entries'
import { systemActor } from '../../../src/platform/foundation/actor'
import type { Db } from '../../../src/platform/tenancy/databases'
import { openSqlite } from '../../../src/platform/tenancy/sqlite'

// The closeout that follows each entry asks payments, which lend it their part.
registerFamilies()
const [path, tenantId, drawerId, count] = process.argv.slice(2) as [string, string, string, string]
const sqlite = openSqlite(path, { synchronous: 'NORMAL', busyTimeoutMs: 30_000 })
const db = drizzle({ client: sqlite }) as Db
const deltas: number[] = []
for (let i = 0; i < Number(count); i++) {
  const entryType = i % 4 === 0 ? 'cash_drop' : 'cash_in'
  const amount = 1 + Math.floor(Math.random() * 5_000)
  const result = addEntry(
    db,
    systemActor(tenantId, 'worker'),
    drawerId,
    { entryType, amount },
    { canOverrideLock: true },
  )
  deltas.push(result.entry.balanceDelta)
}
sqlite.close()
process.stdout.write(JSON.stringify(deltas))
