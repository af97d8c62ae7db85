// The first start of a new user: `serve` on an empty data directory with the demo seed (made by a
// child process while the server listens). /health/live is asked every 20 ms from the start until
// 1.5 s after /health/ready says 200, beside a bare Bun.serve (bench/baseline.ts) asked at the
// same moment: the bare server's times are what the machine gives any server then. The goal
// (issue "Holes found from outside"): every liveness answer within 100 ms.
// Usage: bun bench/first-start.ts [--compiled] [--runs N]
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { compiledCommand, root, sourceCommand, startListening, startServer } from '../tests/e2e/cli'
import { makeTestDir, removeTestDir } from '../tests/temp-dirs'
import { percentile } from './lib'

const { values } = parseArgs({
  options: { compiled: { type: 'boolean', default: false }, runs: { type: 'string', default: '3' } },
})
const command = values.compiled ? compiledCommand() : sourceCommand

const timed = async (url: string) => {
  const sent = performance.now()
  await (await fetch(url)).arrayBuffer()
  return performance.now() - sent
}

for (let run = 1; run <= Number(values.runs); run++) {
  const bare = await startListening([process.execPath, join(root, 'bench', 'baseline.ts')], {})
  const dataDir = makeTestDir('bench')
  const server = await startServer(command, {
    DATA_DIR: dataDir,
    DEFAULT_TENANT_SEED: 'demo',
    LOG_LEVEL: 'error',
  })
  const live: number[] = []
  const control: number[] = []
  let whileMaking = 0
  try {
    let readySince: number | undefined
    while (readySince === undefined || performance.now() - readySince < 1500) {
      const [ms, bareMs] = await Promise.all([timed(`${server.url}/health/live`), timed(bare.url)])
      live.push(ms)
      control.push(bareMs)
      if (readySince === undefined) {
        if ((await fetch(`${server.url}/health/ready`)).status === 200) readySince = performance.now()
        else whileMaking++
      }
      await Bun.sleep(20)
    }
  } finally {
    await Promise.all([server.stop(), bare.stop()])
    removeTestDir(dataDir)
  }
  const row = (xs: number[]) =>
    `p50 ${percentile(xs, 50).toFixed(1)} p99 ${percentile(xs, 99).toFixed(1)} max ${Math.max(...xs).toFixed(1)} ms`
  console.log(
    `run ${run}: ${live.length} probes (${whileMaking} while the demo was made); service ${row(live)}; bare ${row(control)}`,
  )
}
