// Over a real process: allowing webhooks to call private addresses is warned about at start-up.
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { makeTestDir, removeTestDir } from '../temp-dirs'

const main = join(import.meta.dir, '..', '..', 'src', 'main.ts')

/** Starts `serve` with `env`, waits until it listens, stops it and answers what it logged. */
async function startupLog(env: Record<string, string>): Promise<string> {
  const dataDir = makeTestDir('data')
  const proc = Bun.spawn([process.execPath, main, 'serve'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DEFAULT_TENANT_SEED: 'empty',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  try {
    const reader = proc.stdout.getReader()
    let out = ''
    while (!out.includes('listening')) {
      const { value, done } = await reader.read()
      if (done) break
      out += new TextDecoder().decode(value)
    }
    expect(out).toContain('listening')
  } finally {
    proc.kill()
    await proc.exited
    removeTestDir(dataDir)
  }
  return new Response(proc.stderr).text()
}

test('serve warns when WEBHOOK_ALLOW_PRIVATE_TARGETS=true, and only then', async () => {
  const allowed = await startupLog({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
  expect(allowed).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhooks may call private')
  expect(allowed).toContain('"level":"warn"')
  const refused = await startupLog({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' })
  expect(refused).not.toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS')
})
