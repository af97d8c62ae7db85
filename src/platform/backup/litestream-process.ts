// One Litestream process replicating a share of the node's databases (litestream.ts runs several
// and decides which database goes where): its own config file, restarted with backoff when it
// dies, restarted cleanly when its databases change or one of their files is replaced (v0.3 reads
// its config once and holds each file open).
import { mkdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Subprocess } from 'bun'
import type { Logger } from '../foundation/log'

/** A Litestream log line, its `key=value` fields read. */
export interface LitestreamLine {
  level: keyof Logger
  msg: string
  detail: string
  fields: Record<string, string>
}

export interface ProcessOptions {
  binary: string
  configPath: string
  log: Logger
  /** Backoff after an unexpected exit: base * 2^n, capped. */
  backoffMs: { base: number; max: number }
  onLine: (line: LitestreamLine) => void
  /** After every exit, planned or not, once the process is gone and its log read to the end. */
  onExit: (exit: LitestreamExit) => void
}

export interface LitestreamExit {
  code: number | null
  /** We stopped or restarted it. */
  planned: boolean
  /**
   * When it was asked to stop, if it then shut down cleanly (not killed): its final sync copied
   * each database's WAL and uploaded it, so what was written before then is in the replica for
   * every database whose close it did not report failing.
   */
  cleanStopAskedAt: number | null
}

/**
 * How long a SIGTERMed Litestream may take over its last sync before it is killed. Its stop
 * normally takes well under a second, but v0.3 can hang in it with uploads under way (seen in the
 * cluster suite, 10 s and more; Litestream issue #399), and until it exits none of its databases
 * is replicated.
 */
const STOP_LIMIT_MS = 3000

export class LitestreamProcess {
  private process: Subprocess | null = null
  private stopping = false
  private plannedRestart = false
  private consecutiveFailures = 0
  /** When the running process was sent SIGTERM; whether it then logged its clean shutdown. */
  private stopAskedAt: number | null = null
  private shutDownCleanly = false
  private restartTimer: ReturnType<typeof setTimeout> | null = null
  private config = ''
  /**
   * The file (device and inode) each database path named when Litestream could first have opened
   * it. Litestream keeps that file open for good: when a restore or a move puts a new file at the
   * path, it goes on replicating the old, deleted one until it restarts.
   */
  private filesSeen = new Map<string, string>()
  private paths: string[] = []
  restarts = 0
  lastExit: { code: number | null; at: string } | null = null

  constructor(private readonly options: ProcessOptions) {}

  get pid(): number | null {
    return this.process?.pid ?? null
  }

  get state(): 'running' | 'restarting' | 'stopped' {
    return this.stopping ? 'stopped' : this.process ? 'running' : 'restarting'
  }

  /**
   * Writes the config for these databases; true when the running Litestream must restart onto it
   * (its databases changed, or a file was replaced under it). Starts one if none runs.
   */
  configure(config: string, paths: string[]): boolean {
    const changed = config !== this.config
    if (changed) {
      mkdirSync(dirname(this.options.configPath), { recursive: true })
      writeFileSync(this.options.configPath, config, { mode: 0o600 })
      this.config = config
    }
    this.paths = paths
    const replaced = this.fileReplaced()
    if (this.stopping) return false
    if (!this.process) {
      // Waiting out a backoff: a new config (without the database it died over) starts at once.
      if (this.restartTimer && changed) clearTimeout(this.restartTimer)
      if (!this.restartTimer || changed) {
        this.restartTimer = null
        this.spawn()
      }
      return false
    }
    if (replaced)
      this.options.log.info('litestream: a database file was replaced, restarting onto it', {
        config: this.options.configPath,
      })
    return changed || replaced
  }

  /** A planned restart; resolves once the Litestream that ran has exited (after its last sync). */
  async restart(): Promise<void> {
    const proc = this.process
    if (!proc || this.stopping) return
    this.plannedRestart = true
    await this.terminate(proc)
  }

  /** Stops for good; SIGTERM lets Litestream finish its current sync first. */
  async stop(): Promise<void> {
    this.stopping = true
    if (this.restartTimer) clearTimeout(this.restartTimer)
    const proc = this.process
    if (proc) await this.terminate(proc)
  }

  /**
   * SIGTERM lets Litestream make its last sync; one that has not exited within STOP_LIMIT_MS is
   * killed, so a stuck shutdown cannot hold back the restart for good.
   */
  private terminate(proc: Subprocess): Promise<number> {
    this.stopAskedAt ??= Date.now()
    proc.kill('SIGTERM')
    const limit = setTimeout(() => {
      this.options.log.warn('litestream did not stop after SIGTERM; killing it', {
        pid: proc.pid,
        afterMs: STOP_LIMIT_MS,
      })
      this.stopAskedAt = null
      proc.kill('SIGKILL')
    }, STOP_LIMIT_MS)
    return proc.exited.finally(() => clearTimeout(limit))
  }

  /** Whether a file Litestream may hold open has been replaced at its path since; notes the new ones. */
  private fileReplaced(): boolean {
    let replaced = false
    for (const path of this.paths) {
      const now = fileIdentity(path)
      if (now === undefined) continue
      const seen = this.filesSeen.get(path)
      if (seen !== undefined && seen !== now) replaced = true
      this.filesSeen.set(path, now)
    }
    return replaced
  }

  private spawn(): void {
    this.filesSeen = new Map()
    this.fileReplaced()
    const proc = Bun.spawn([this.options.binary, 'replicate', '-config', this.options.configPath], {
      stdout: 'pipe',
      stderr: 'pipe',
    })
    this.process = proc
    this.stopAskedAt = null
    this.shutDownCleanly = false
    this.options.log.info('litestream started', { pid: proc.pid, databases: this.paths.length })
    const onLine = (line: LitestreamLine) => {
      if (line.msg === 'litestream shut down') this.shutDownCleanly = true
      this.options.onLine(line)
    }
    // Its last lines (each database's close) are read before its exit is told.
    const logs = Promise.all([
      forwardLog(proc.stdout, this.options, onLine),
      forwardLog(proc.stderr, this.options, onLine),
    ])
    const spawnedAt = Date.now()
    void Promise.all([proc.exited, logs]).then(([code]) => this.onExit(proc, code, spawnedAt))
  }

  private onExit(proc: Subprocess, code: number | null, spawnedAt: number): void {
    if (this.process !== proc) return
    this.process = null
    this.lastExit = { code, at: new Date().toISOString() }
    const planned = this.plannedRestart || this.stopping
    this.plannedRestart = false
    const cleanStopAskedAt = this.shutDownCleanly ? this.stopAskedAt : null
    this.stopAskedAt = null
    this.options.onExit({ code, planned, cleanStopAskedAt })
    if (this.stopping) return
    if (planned) {
      this.spawn()
      return
    }
    // A run that lasted a while resets the backoff.
    if (Date.now() - spawnedAt > 60_000) this.consecutiveFailures = 0
    const { base, max } = this.options.backoffMs
    const delay = Math.min(max, base * 2 ** this.consecutiveFailures)
    this.consecutiveFailures++
    this.restarts++
    this.options.log.error('litestream exited unexpectedly; restarting', { code, delayMs: delay })
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null
      if (!this.stopping) this.spawn()
    }, delay)
  }
}

const fileIdentity = (path: string): string | undefined => {
  const stat = statSync(path, { throwIfNoEntry: false })
  return stat ? `${stat.dev}:${stat.ino}` : undefined
}

/** Litestream's own level for each of its log lines; its routine progress is our debug. */
const litestreamLevels: Record<string, keyof Logger> = {
  DEBUG: 'debug',
  INFO: 'debug',
  WARN: 'warn',
  ERROR: 'error',
}

/** Go's quoting is JSON's but for rare escapes (`\x..`), which are kept as they are. */
const unquote = (quoted: string): string => {
  try {
    return JSON.parse(quoted) as string
  } catch {
    return quoted.slice(1, -1)
  }
}

/**
 * Litestream 0.3 logs `time=… level=… msg=… key=value…` lines on stdout: they go to our log at
 * their level, so a replication error (a generation it cannot start, a replica it cannot reach)
 * is seen by the operator, not dropped; their fields (`db`, `error`) tell which database it was.
 */
export function litestreamLogLine(line: string): LitestreamLine {
  const fields: Record<string, string> = {}
  for (const [, key, value] of line.matchAll(/(?:^|\s)([\w-]+)=("(?:[^"\\]|\\.)*"|\S*)/g))
    fields[key!] = value!.startsWith('"') ? unquote(value!) : value!
  // Uploads cut short by a stop are logged as errors ("context canceled"), on every restart.
  const level = line.includes('context canceled') ? 'debug' : (litestreamLevels[fields.level ?? ''] ?? 'warn')
  const msg = fields.msg ?? line
  const detail = line.replace(/^time=\S+\s*/, '').replace(/\blevel=\w+\s*/, '')
  return { level, msg, detail, fields }
}

async function forwardLog(
  stream: ReadableStream<Uint8Array>,
  options: ProcessOptions,
  onLine: (line: LitestreamLine) => void,
): Promise<void> {
  const decoder = new TextDecoder()
  let pending = ''
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true })
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const text of lines) {
      if (!text.trim()) continue
      const line = litestreamLogLine(text)
      options.log[line.level](`litestream: ${line.msg}`, { detail: line.detail })
      onLine(line)
    }
  }
}
