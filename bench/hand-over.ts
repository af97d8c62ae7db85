// New connections during a start of `serve` with two workers: how many are reset as the primary
// hands the port over to its workers (src/cli/serve.ts, `handOver`).
//
//   bun bench/hand-over.ts [starts=5]
//
// Sixteen clients open a new connection for every `GET /health/live` from the moment the process
// is spawned, for 4 s. Refused connections (before anything listens) are retried; a reset is a
// connection the kernel queued on a listener that then closed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const starts = Number(process.argv[2] ?? 5)
const CLIENTS = 16
const WINDOW_MS = 4000
const main = join(import.meta.dir, '../src/main.ts')

async function oneStart() {
  const dataDir = mkdtempSync(join(tmpdir(), 'restaurant-ops-hand-over-'))
  const port = 19000 + Math.floor(Math.random() * 1000)
  const server = Bun.spawn([process.execPath, main, 'serve'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      WORKERS: '2',
      LOG_LEVEL: 'error',
      BACKUP_INTERVAL: '0',
      DEFAULT_TENANT_SEED: 'empty',
    },
    stdout: 'ignore',
    stderr: 'ignore',
  })
  const counts = { answered: 0, refused: 0, reset: 0, other: 0 }
  const until = Date.now() + WINDOW_MS
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < until) {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/health/live`, {
            headers: { connection: 'close' },
          })
          await response.arrayBuffer()
          counts.answered++
        } catch (error) {
          const code = String((error as { code?: string }).code ?? error)
          if (code === 'ECONNREFUSED') {
            counts.refused++
            await Bun.sleep(5)
          } else if (code === 'ECONNRESET') counts.reset++
          else counts.other++
        }
      }
    }),
  )
  server.kill('SIGTERM')
  await server.exited
  rmSync(dataDir, { recursive: true, force: true })
  return counts
}

let migrate = 'absent'
try {
  migrate = readFileSync('/proc/sys/net/ipv4/tcp_migrate_req', 'utf8').trim()
} catch {}
console.log(`net.ipv4.tcp_migrate_req: ${migrate}`)
for (let i = 0; i < starts; i++) console.log(JSON.stringify(await oneStart()))
