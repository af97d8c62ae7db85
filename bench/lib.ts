// Shared pieces of the benchmarks: load generation with wrk (its own process, a Lua script per kind
// of scenario under bench/wrk/), the machine's load, and resident memory of a process.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface LoadResult {
  rps: number
  p50Ms: number
  p99Ms: number
  requests: number
  /** Answers >= 400 (wrk's count; none of the measured routes answers 3xx). */
  non2xx: number
  /** Connect, read, write errors and timeouts. */
  socketErrors: number
  /** 1-minute load average when the run started: the machine is shared. */
  load: number
}

/** fixed: one request, method GET, path from the URL; create: POST /customers; spread, spread-create: those over tenants. */
export type ScriptKind = 'fixed' | 'create' | 'spread' | 'spread-create'

export interface WrkRun {
  url: string
  script: ScriptKind
  /** The script's own arguments (after `--`). */
  args: string[]
  seconds: number
  threads: number
  connections: number
  /** Requests a second in all, paced (bench/wrk/paced.lua); unset: as fast as the answers come. */
  rate?: number
}

export function requireWrk(): string {
  const path = Bun.which('wrk')
  if (!path) throw new Error('wrk is not installed: apt-get install wrk (Debian package)')
  return path
}

const lua = (name: string) => readFileSync(join(import.meta.dir, 'wrk', `${name}.lua`), 'utf8')

export const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])

export async function wrk(run: WrkRun): Promise<LoadResult> {
  const load = loadAverage()
  // wrk takes one script: the scenario's, after the thread ids and before the JSON report.
  const scriptDir = mkdtempSync(join(tmpdir(), 'restaurant-ops-wrk-'))
  const script = join(scriptDir, `${run.script}.lua`)
  const paced = run.rate ? `${lua('paced')}\n` : ''
  writeFileSync(script, `${lua('thread-id')}\n${lua(run.script)}\n${paced}${lua('report')}`)
  const proc = Bun.spawn(
    [
      requireWrk(),
      `-t${run.threads}`,
      `-c${run.connections}`,
      `-d${run.seconds}s`,
      // A slow page (the order list under load) is a slow answer, not a timeout.
      '--timeout',
      '10s',
      '-s',
      script,
      run.url,
      '--',
      ...run.args,
    ],
    {
      stdout: 'pipe',
      stderr: 'pipe',
      env: run.rate ? { ...process.env, WRK_THREAD_RATE: String(run.rate / run.threads) } : process.env,
    },
  )
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  rmSync(scriptDir, { recursive: true })
  const line = out
    .trim()
    .split('\n')
    .findLast((l) => l.startsWith('{'))
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}): ${err}${out}`)
  const r = JSON.parse(line)
  const ms = (us: number) => Math.round(us / 10) / 100
  return {
    rps: Math.round(r.requests / (r.durationUs / 1e6)),
    p50Ms: ms(r.p50Us),
    p99Ms: ms(r.p99Us),
    requests: r.requests,
    non2xx: r.status,
    socketErrors: r.socketErrors,
    load,
  }
}

/** The process and its descendants (a `serve` with WORKERS > 1: the primary and its workers). */
export function processTree(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
  return [pid, ...children.flatMap((child) => processTree(Number(child)))]
}

/** User and system CPU a process and its descendants have used, in seconds. */
export function cpuSeconds(pid: number): number {
  return processTree(pid).reduce((sum, member) => sum + processCpuSeconds(member), 0)
}

/** User and system CPU one process has used, in seconds (Linux, ticks of 1/100 s). */
export function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/**
 * Resident set size of a process and its descendants, in MB (Linux), summed: pages they share (the
 * runtime's code, mapped files) count once per process, so it is an upper bound for several.
 */
export function rssMb(pid: number): number {
  return processTree(pid).reduce((sum, member) => sum + processRssMb(member), 0)
}

/** Resident set size of one process, in MB (Linux). */
export function processRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
}

/** The p-th percentile (0-100) of some samples, nearest rank. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0
}
