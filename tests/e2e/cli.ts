// Helpers for end-to-end tests: run the command line (source or compiled binary) and the server.
import { afterAll, onTestFinished } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { makeTestDir, removeTestDir } from '../temp-dirs'

export const root = join(import.meta.dir, '..', '..')

/**
 * The compiled binary (127 MB), built once per test process for every file that runs it: removed
 * after the run, by tests/preload.ts under `bun test` (which skips `exit` listeners), by the `exit`
 * listener under `bun run` (the bench).
 */
let compiled: string | undefined
export function removeCompiledBinary(): void {
  if (compiled) removeTestDir(dirname(compiled))
  compiled = undefined
}
process.on('exit', removeCompiledBinary)
export const sourceCommand = [process.execPath, join(root, 'src', 'main.ts')]

/**
 * The passcode exerciseCommandLine gives its staff user, looked for in the data files' bytes (it
 * must be stored only as a hash): eight digits, so that no id or hash in them holds it by chance,
 * as four digits (4821) did in a file once.
 */
export const CLI_PASSCODE = '48213907'

/** `npm run build`'s arguments after `bun`, writing to `out` instead of dist/. */
function buildArguments(out: string): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const [bun, ...args] = (scripts.build as string).split(/\s+/)
  if (bun !== 'bun' || !args.includes('--outfile'))
    throw new Error(`unexpected build script: ${scripts.build}`)
  args[args.indexOf('--outfile') + 1] = out
  return args
}

/** The compiled binary, built once per test process exactly as `npm run build` builds it. */
export function compiledCommand(): string[] {
  if (!compiled) {
    const out = join(makeTestDir('binary'), 'restaurant-ops')
    const build = Bun.spawnSync([process.execPath, ...buildArguments(out)], {
      cwd: root,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`)
    compiled = out
  }
  return [compiled]
}

/** Every end-to-end scenario runs against both: the source under Bun, and the compiled binary. */
export const runtimes: [name: string, command: () => string[]][] = [
  ['source', () => sourceCommand],
  ['compiled binary', compiledCommand],
]

/** A fresh data directory for one test, removed once the test is over (its servers stopped by then). */
export function freshDataDir(): string {
  const dir = makeTestDir('data')
  onTestFinished(() => removeTestDir(dir))
  return dir
}

/**
 * Errors only in the log, and an empty embedded default (one location, its owner), in place when
 * the server listens: the demo takes seconds to make, so only the tests about it
 * (first-start.test.ts, the console's) ask for it, and wait until the server is ready.
 */
const quiet = { LOG_LEVEL: 'error', DEFAULT_TENANT_SEED: 'empty' }

export interface CommandResult {
  code: number
  stdout: string
  stderr: string
  /** The JSON object on the last line of stdout (every command prints one). */
  json: any
}

export async function runCli(
  command: string[],
  args: string[],
  env: Record<string, string>,
): Promise<CommandResult> {
  const proc = Bun.spawn([...command, ...args], {
    env: { ...process.env, ...quiet, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  const last = stdout.trim().split('\n').at(-1) ?? ''
  let json: unknown
  try {
    json = JSON.parse(last)
  } catch {}
  return { code, stdout, stderr, json }
}

export interface RunningServer {
  url: string
  port: number
  pid: number
  /** What the process wrote to stderr so far (also passed through to the test's stderr). */
  stderr(): string
  /** Sends SIGTERM at once, then resolves with the exit code. */
  stop(): Promise<number>
}

/** Starts `serve` on a free port and resolves once it prints where it listens. */
export const startServer = (command: string[], env: Record<string, string>, startTimeoutMs?: number) =>
  startListening([...command, 'serve'], env, startTimeoutMs)

/**
 * One fresh data directory for several processes, in a describe block (or a file): `cli` runs a
 * command on it (its JSON, or throws with its stderr), `startServer` starts a server on it. After
 * the block every server started stops, then the directory is removed.
 */
export function sharedDataDir(
  extraEnv: Record<string, string> = {},
  command: () => string[] = () => sourceCommand,
) {
  const env = { ...extraEnv, DATA_DIR: makeTestDir('data') }
  const servers: RunningServer[] = []
  afterAll(async () => {
    for (const server of servers.splice(0)) await server.stop()
    removeTestDir(env.DATA_DIR)
  })
  return {
    env,
    async cli(...args: string[]) {
      const result = await runCli(command(), args, env)
      if (result.code !== 0) throw new Error(result.stderr)
      return result.json
    },
    async startServer(startTimeoutMs?: number) {
      const server = await startServer(command(), env, startTimeoutMs)
      servers.push(server)
      return server
    },
  }
}

/** A tenant made with the command line, its owner, and a token of theirs. */
export async function tenantWithOwner(cli: ReturnType<typeof sharedDataDir>['cli'], slug: string) {
  const tenant = await cli('tenant', 'create', '--slug', slug, '--name', slug)
  const email = `owner@${slug}.test`
  const subject = `owner-${slug}`
  await cli(
    'staff',
    'create',
    '--tenant',
    slug,
    '--email',
    email,
    '--first-name',
    'O',
    '--last-name',
    'Wner',
    '--subject',
    subject,
    '--role',
    'owner',
  )
  const { token } = await cli('token', '--tenant', slug, '--subject', subject)
  return { tenant: tenant as { id: string }, token: token as string }
}

/** A JSON POST to a server as a tenant's staff (`tenantWithOwner`'s token), the tenant named by slug. */
export const postAs = (server: RunningServer, token: string, slug: string, path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'x-tenant-slug': slug, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

/** Starts a process that prints `{"listening": ..., "port": N}` once it accepts requests. */
export async function startListening(
  command: string[],
  env: Record<string, string>,
  /** Long enough for a loaded machine (the demo is made after `serve` listens). */
  startTimeoutMs = 20_000,
): Promise<RunningServer> {
  const proc = Bun.spawn(command, {
    env: { ...process.env, ...quiet, PORT: '0', HOST: '127.0.0.1', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let stderr = ''
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of proc.stderr) {
      stderr += decoder.decode(chunk, { stream: true })
      process.stderr.write(chunk)
    }
  })()
  const reader = proc.stdout.getReader()
  let buffered = ''
  const deadline = Date.now() + startTimeoutMs
  while (Date.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) break
    buffered += new TextDecoder().decode(value)
    const line = buffered.split('\n').find((l) => l.includes('"listening"'))
    if (line) {
      reader.releaseLock()
      const { port } = JSON.parse(line)
      return {
        url: `http://127.0.0.1:${port}`,
        port,
        pid: proc.pid,
        stderr: () => stderr,
        stop() {
          proc.kill('SIGTERM')
          return proc.exited
        },
      }
    }
  }
  proc.kill('SIGKILL')
  throw new Error(`server did not start: ${buffered}`)
}

/**
 * Resolves once the server's /health/ready answers 200: on a first start with the demo, once the
 * demo is made (the server listens before). Throws if the server goes away meanwhile.
 */
export async function waitUntilReady(server: RunningServer): Promise<void> {
  while ((await fetch(`${server.url}/health/ready`)).status !== 200) await Bun.sleep(50)
}

/** The command-line scenario both the source and the compiled binary must pass. */
export async function exerciseCommandLine(command: string[]) {
  const env = { DATA_DIR: freshDataDir() }
  const cli = (...args: string[]) => runCli(command, args, env)
  const tenant = await cli(
    'tenant',
    'create',
    '--slug',
    'napa',
    '--name',
    'Napa Cellars',
    '--timezone',
    'America/Los_Angeles',
  )
  const location = await cli('location', 'create', '--tenant', 'napa', '--name', 'Tasting Room')
  const staff = await cli(
    'staff',
    'create',
    '--tenant',
    'napa',
    '--email',
    'ana@napa.test',
    '--first-name',
    'Ana',
    '--last-name',
    'Reyes',
    '--subject',
    'auth0|ana',
    '--role',
    'manager',
    '--location',
    location.json?.id ?? 'missing',
    '--passcode',
    CLI_PASSCODE,
  )
  const token = await cli('token', '--tenant', 'napa', '--subject', 'auth0|ana', '--ttl', '600')
  const list = await cli('tenant', 'list')
  const migrate = await cli('migrate')
  return { env, cli, tenant, location, staff, token, list, migrate }
}
