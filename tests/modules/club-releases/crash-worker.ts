// A separate process running a club release run over a tenant file, killed by the test mid-run:
// its provider approves the first charge, and never answers the second (the test kills it there).
// Every idempotency key it is asked to charge with is appended to <keyLog> first.
// Usage: bun crash-worker.ts <databasePath> <tenantId> <runId> <keyLog>
import { appendFileSync } from 'node:fs'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { registerFamilies } from '../../../src/modules'
import { executeRun } from '../../../src/modules/club-releases/processing'
import type { PaymentProvider } from '../../../src/platform/payments/provider'
import { sandboxProvider } from '../../../src/platform/payments/sandbox'
import type { Db } from '../../../src/platform/tenancy/databases'
import { openSqlite } from '../../../src/platform/tenancy/sqlite'

// Member orders ask shipping and off-premise for their parts: what registerFamilies lends orders.
registerFamilies()
const [path, tenantId, runId, keyLog] = process.argv.slice(2) as [string, string, string, string]
const sqlite = openSqlite(path, { synchronous: 'NORMAL', busyTimeoutMs: 30_000 })
const db = drizzle({ client: sqlite }) as Db
let charges = 0
const provider: PaymentProvider = {
  ...sandboxProvider(),
  authorizePayment(input) {
    appendFileSync(keyLog, `${input.idempotencyKey}\n`)
    if (++charges > 1) return new Promise(() => {})
    return Promise.resolve({
      providerPaymentId: `crash_pi_${charges}`,
      status: 'captured' as const,
      brand: 'visa',
      last4: '4242',
    })
  },
}
await executeRun(db, tenantId, { provider }, runId)
