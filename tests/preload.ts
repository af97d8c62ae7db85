// Preloaded by `bun test` (bunfig.toml): runs once around the whole test run, every test file in
// this one process.
import { afterAll } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { removeCompiledBinary } from './e2e/cli'
import { machineTempDir } from './temp-dirs'

// The run's own temporary folder (tests/temp-dirs.ts): what is left in it at the end was left by
// this run, whatever else shares the machine's. Processes started with process.env inherit it.
const runDir = mkdtempSync(join(machineTempDir, 'restaurant-ops-test-run-'))
process.env.TMPDIR = runDir

afterAll(() => {
  removeCompiledBinary()
  // Each with what it holds: what wrote it after its maker removed it, or why it was not removed.
  const left = readdirSync(runDir).map((name) => {
    const path = join(runDir, name)
    const held = statSync(path).isDirectory() ? readdirSync(path, { recursive: true }) : []
    const shown = held.length > 10 ? [...held.slice(0, 10), `${held.length - 10} more`] : held
    return `${name}${held.length > 0 ? ` (holding ${shown.join(', ')})` : ''}`
  })
  rmSync(runDir, { recursive: true, force: true })
  if (left.length > 0)
    throw new Error(
      `the tests left ${left.length} temporary entries, now removed (restaurant-ops-test-<test file>-...: made by that test file):\n  ${left.join('\n  ')}`,
    )
})
