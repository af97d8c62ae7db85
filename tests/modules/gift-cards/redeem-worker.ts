// A separate process redeeming one card over its own SQLite connection, for the parallel
// redemption test. Args: dbPath tenantId cardId refPrefix count amount. Prints {ok, replayed, refused}.
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { redeemGiftCard } from '../../../src/modules/gift-cards/operations'
import { systemActor } from '../../../src/platform/foundation/actor'
import { ApiError } from '../../../src/platform/foundation/problem'
import type { Db } from '../../../src/platform/tenancy/databases'
import { openSqlite } from '../../../src/platform/tenancy/sqlite'
import { inWriteTransaction } from '../../../src/platform/tenancy/transaction'

const [dbPath, tenantId, cardId, refPrefix, count, amount] = process.argv.slice(2) as string[]
const sqlite = openSqlite(dbPath!, { synchronous: 'NORMAL', busyTimeoutMs: 30_000 })
const db = drizzle({ client: sqlite }) as Db
const actor = systemActor(tenantId!, `worker-${process.pid}`)
const tally = { ok: 0, replayed: 0, refused: 0 }
for (let i = 0; i < Number(count); i++) {
  try {
    const result = inWriteTransaction(db, (tx) =>
      redeemGiftCard(tx, actor, {
        id: cardId,
        amount: Number(amount),
        paymentReference: `${refPrefix}-${i}`,
      }),
    )
    if (result.replayed) tally.replayed++
    else tally.ok++
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) tally.refused++
    else throw error
  }
}
sqlite.close()
console.log(JSON.stringify(tally))
