// Filling a new tenant's database in a child process (the `fill-tenant` command), on a connection
// of its own and at the lowest scheduling priority, so that the server goes on answering while the
// demo is made (seconds). Not a worker thread: its loading, compiling and garbage collecting run on
// threads it shares with the request thread, at their priority, and on a busy two-core machine the
// request thread waited for them, up to a few hundred ms as it started.
import { fileURLToPath } from 'node:url'
import type { Config } from '../../config'
import type { OperatorActor } from '../../platform/operator/audit'
import type { Tenant } from '../../platform/tenancy/tenants'
import type { CreateTenantInput } from './model'

/** What a new tenant's database is filled with: its owner, and the seed's records. */
export type TenantFill = Pick<CreateTenantInput, 'owner' | 'seed'>

export interface FillRequest {
  /** Where the new database file goes: the tenant's path, which nothing else opens yet. */
  path: string
  tenant: Tenant
  operator: OperatorActor
  fill: TenantFill
  /** The server's: how its databases are opened. */
  config: Config
}

export interface FirstRecordIds {
  locationId: string
  ownerStaffUserId: string
}

/** This program's command line: the compiled binary (its files under /$bunfs/), or Bun on src/main.ts. */
const thisProgram = (): string[] =>
  import.meta.url.startsWith('file:///$bunfs/')
    ? [process.execPath]
    : [process.execPath, fileURLToPath(new URL('../../main.ts', import.meta.url))]

/** Through `nice` where there is one: each of the child's threads yields to the server's. */
function niced(command: string[]): string[] {
  const nice = Bun.which('nice')
  return nice ? [nice, '-n', '19', ...command] : command
}

/**
 * Makes and fills the database in a child process, which has closed it when this resolves.
 * `signal` kills the child (the caller removes the file).
 */
export async function fillInChildProcess(
  request: FillRequest,
  signal?: AbortSignal,
): Promise<FirstRecordIds> {
  signal?.throwIfAborted()
  const child = Bun.spawn(niced([...thisProgram(), 'fill-tenant']), {
    stdin: new Blob([JSON.stringify(request)]),
    stdout: 'pipe',
    stderr: 'pipe',
    // A session of its own: where Linux shares the CPU out by session (autogroups), the child's
    // time is not then counted against the server's. Niced in the server's session, it still made
    // the server wait for a core (polls of 100-170 ms against a machine's 5 ms, under load).
    detached: true,
  })
  const kill = () => child.kill('SIGKILL')
  signal?.addEventListener('abort', kill, { once: true })
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    signal?.throwIfAborted()
    if (code !== 0) throw new Error(`fill-tenant exited with ${code}: ${stderr.trim()}`)
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as FirstRecordIds
  } finally {
    signal?.removeEventListener('abort', kill)
  }
}
