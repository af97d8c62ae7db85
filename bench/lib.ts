// Shared pieces of the benchmarks: load generation (autocannon under Node, its own process),
// servers started from the source or the compiled binary, and resident memory of a process.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface LoadResult {
  rps: number
  p50: number
  p99: number
  requests: number
  non2xx: number
  errors: number
}

export interface LoadOptions {
  url: string
  connections: number
  duration: number
  method?: string
  headers?: Record<string, string>
  body?: string
  targets?: { path: string; headers: Record<string, string> }[]
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  // The config goes through a file: a thousand targets are too long for an argument list.
  const configFile = join(mkdtempSync(join(tmpdir(), 'restaurant-ops-load-')), 'config.json')
  writeFileSync(configFile, JSON.stringify(options))
  const proc = Bun.spawn(['node', join(import.meta.dir, 'load.cjs'), configFile], {
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const out = JSON.parse(await new Response(proc.stdout).text())
  await proc.exited
  return {
    rps: Math.round(out.requests.average),
    p50: out.latency.p50,
    p99: out.latency.p99,
    requests: out.requests.total,
    non2xx: out.non2xx,
    errors: out.errors,
  }
}

/** Resident set size of a process, in MB (Linux). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return Math.round(kb / 1024)
}
