// A separate process writing receivings and waste into one tenant database file, for the
// concurrency tests: argv = dbPath tenantId ingredientId locationId operations seed barrierDir.
// It says it is ready (a file `ready-<seed>` in barrierDir), then starts once the file `go` is
// there: every writer starts within a millisecond of the others, however long each took to load.
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { receiveStock, wasteStock } from '../../../src/modules/inventory/stock'
import { everyLocation } from '../../../src/platform/auth/location-scope'
import { systemActor } from '../../../src/platform/foundation/actor'
import { ApiError } from '../../../src/platform/foundation/problem'
import type { Db } from '../../../src/platform/tenancy/databases'
import { openSqlite } from '../../../src/platform/tenancy/sqlite'

const [dbPath, tenantId, ingredientId, locationId, operations, seed, barrier] = process.argv.slice(
  2,
) as string[]
const sqlite = openSqlite(dbPath!, { synchronous: 'NORMAL', busyTimeoutMs: 30_000 })
const db = drizzle({ client: sqlite }) as Db
const actor = systemActor(tenantId!, `writer-${seed}`)

// A small deterministic generator, so a failing run can be repeated.
let state = Number(seed) * 7919 + 17
const next = (max: number) => {
  state = (state * 1_103_515_245 + 12_345) % 2 ** 31
  return 1 + (state % max)
}

writeFileSync(join(barrier!, `ready-${seed}`), '')
while (!existsSync(join(barrier!, 'go'))) await Bun.sleep(1)
const result = { received: 0, wasted: 0, refused: 0 }
for (let i = 0; i < Number(operations); i++) {
  // A short pause between transactions gives the other writers their turn at the lock.
  await Bun.sleep(next(4))
  if (next(3) === 1) {
    const quantity = next(10)
    try {
      wasteStock(db, actor, everyLocation, ingredientId!, { locationId: locationId!, quantity })
      result.wasted += quantity
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'conflict')) throw error
      result.refused++
    }
  } else {
    const quantity = next(20)
    receiveStock(db, actor, everyLocation, ingredientId!, {
      locationId: locationId!,
      quantity,
      unitCost: 50 + next(100),
    })
    result.received += quantity
  }
}
sqlite.close()
console.log(JSON.stringify(result))
