// A new user's first steps (issue 35): on an empty data directory `serve` listens at once while a
// child process makes the demo (src/modules/tenants/fill-process.ts), so /health/live answers all
// through the first start and /health/ready says 503 until the demo is in place; then the
// README's first example runs as written. How fast it answers meanwhile is the bench's to say,
// not a test's (bench/README.md).
import { describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeTestDir, removeTestDir } from '../temp-dirs'
import { freshDataDir, root, runtimes, sourceCommand, startServer, waitUntilReady } from './cli'

const demo = { DEFAULT_TENANT_SEED: 'demo' }

const POLL_EVERY_MS = 20
/** Polling goes on this long once ready: the jobs meet the new tenant then (webhooks: every second). */
const AFTER_READY_MS = 1500

for (const [runtime, command] of runtimes) {
  test(`${runtime}: /health/live answers all through a first start while a child process makes the demo`, async () => {
    const server = await startServer(command(), { DATA_DIR: freshDataDir(), ...demo })
    try {
      let pollsWhileMaking = 0
      let readySince: number | undefined
      while (readySince === undefined || performance.now() - readySince < AFTER_READY_MS) {
        const live = await fetch(`${server.url}/health/live`)
        expect({ status: live.status, body: await live.json() }).toEqual({
          status: 200,
          body: { status: 'ok' },
        })
        if (readySince === undefined) {
          const ready = await fetch(`${server.url}/health/ready`)
          const { checks } = (await ready.json()) as { checks: Record<string, string> }
          if (ready.status === 200) readySince = performance.now()
          else {
            expect({ status: ready.status, making: checks.defaultTenant }).toEqual({
              status: 503,
              making: 'pending',
            })
            pollsWhileMaking++
          }
        }
        await Bun.sleep(POLL_EVERY_MS)
      }
      // The demo was made while the server answered: the polls saw it under way.
      expect(pollsWhileMaking).toBeGreaterThanOrEqual(10)
    } finally {
      await server.stop()
    }
  })
}

/** Where the README tells a new user to try the API: the ```sh block after the marker. */
function readmeExample(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const marker = readme.indexOf('<!-- tests/e2e/first-start.test.ts runs this block')
  expect(marker).toBeGreaterThan(0)
  return /```sh\n([\s\S]*?)```/.exec(readme.slice(marker))![1]!
}

/** The block's commands: each line, with the lines after one ending in `\`. */
function commandsOf(block: string): string[] {
  const commands: string[] = []
  let current = ''
  for (const line of block.trimEnd().split('\n')) {
    current += current ? `\n${line}` : line
    if (!line.endsWith('\\')) {
      commands.push(current)
      current = ''
    }
  }
  return commands
}

const SEPARATOR = '--- restaurant-ops readme command done:'

describe('the README', () => {
  test('its first example runs as written against a fresh `npm start` with the demo', async () => {
    const commands = commandsOf(readmeExample())
    expect(commands.join('\n')).toContain('localhost:3000')
    const dataDir = freshDataDir()
    const server = await startServer(sourceCommand, { DATA_DIR: dataDir, ...demo })
    const curlHome = makeTestDir('curl')
    try {
      await waitUntilReady(server)
      // curl reads $CURL_HOME/.curlrc: each request's status goes to stderr, and what the
      // commands print is left as it is.
      writeFileSync(join(curlHome, '.curlrc'), 'write-out = "%{stderr}HTTP %{http_code}\\n"\n')
      // One shell, as in a terminal (TOKEN carries over); after each command, its exit status.
      const script = commands
        .map(
          (command) =>
            `${command.replaceAll('localhost:3000', `localhost:${server.port}`)}\n` +
            `status=$?; echo; echo "${SEPARATOR} $status"; echo "${SEPARATOR}" >&2\n`,
        )
        .join('')
      const shell = Bun.spawn(['bash', '-c', script], {
        cwd: root,
        env: { ...process.env, DATA_DIR: dataDir, CURL_HOME: curlHome, LOG_LEVEL: 'error' },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const [stdout, stderr] = await Promise.all([
        new Response(shell.stdout).text(),
        new Response(shell.stderr).text(),
      ])
      expect(await shell.exited).toBe(0)
      // [printed, status, printed, status, ..., '']
      const stdoutParts = stdout.split(new RegExp(`\\n${SEPARATOR} (\\d+)\\n`))
      const stderrParts = stderr.split(`${SEPARATOR}\n`)
      const ran = commands.map((command, i) => {
        const printed = stdoutParts[2 * i]!
        let json = false
        try {
          json = printed !== '' && JSON.parse(printed) !== null
        } catch {}
        const errors = stderrParts[i]!.split('\n').filter(Boolean)
        return {
          command,
          status: Number(stdoutParts[2 * i + 1]),
          requests: errors.filter((line) => line.startsWith('HTTP ')),
          stderr: errors.filter((line) => !line.startsWith('HTTP ')),
          printed: printed === '' ? 'nothing' : json ? 'JSON' : printed,
        }
      })
      // Each succeeds: exit 0, nothing on stderr; a curl makes one 2xx request and prints JSON.
      expect(ran).toEqual(
        commands.map((command) => ({
          command,
          status: 0,
          ...(command.includes('curl')
            ? { requests: [expect.stringMatching(/^HTTP 2\d\d$/)], printed: 'JSON' }
            : { requests: [], printed: 'nothing' }),
          stderr: [],
        })),
      )
    } finally {
      await server.stop()
      removeTestDir(curlHome)
    }
  })
})
