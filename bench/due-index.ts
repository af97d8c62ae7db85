// What the due index costs a written tenant (platform/jobs/due-index.ts): every job's answer for
// it, computed a second after its writes, on the request thread of a single process and in the
// primary for its workers. N tenants (default 200) are prepared as the many-tenant scenarios
// prepare them, each is marked written, and one flush computes and stores their answers; six rounds.
//
//   bun bench/due-index.ts [tenants=200]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { configFor } from '../src/config'
import { createApp } from '../src/server'
import { prepareManyTenants } from './prepare'

const count = Number(process.argv[2] ?? 200)
const dataDir = mkdtempSync(join(tmpdir(), 'ro-due-index-'))
try {
  const tenants = await prepareManyTenants(dataDir, count)
  const { platform } = await createApp({
    config: configFor({ dataDir, logLevel: 'error', backupIntervalSeconds: 0, tenantPoolSize: count }),
  })
  // Every tenant open and every answer stored once, as on a server that has been up.
  for (const { tenantId } of tenants) platform.pool.release(platform.pool.hold(tenantId))
  await platform.dueIndex.due('webhooks.deliver')
  for (let round = 1; round <= 6; round++) {
    for (const { tenantId } of tenants) platform.dueIndex.committed(tenantId)
    const started = performance.now()
    platform.dueIndex.flush()
    const ms = performance.now() - started
    console.log(
      `round ${round}: ${count} tenants in ${ms.toFixed(1)} ms, ${(ms / count).toFixed(3)} ms a tenant`,
    )
  }
  platform.close()
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
