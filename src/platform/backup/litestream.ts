// Continuous replication with Litestream (v0.3): one replica path per database, a generated
// config, and a supervisor that restarts Litestream with backoff when it dies and reloads it when
// the set of databases changes or a database file is replaced (v0.3 reads its config once and
// holds each file open, so a reload is a clean restart).

import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import type { Subprocess } from 'bun'
import type { Logger } from '../log'

export interface ReplicatedDatabase {
  /** Stable name of the replica folder: `control` or the tenant id. */
  name: string
  path: string
}

export interface S3Options {
  endpoint?: string
  region?: string
  accessKeyId?: string
  secretAccessKey?: string
  forcePathStyle?: boolean
}

/** The replica URL of one database under the base `file:///dir` or `s3://bucket/prefix`. */
export function replicaUrlFor(baseUrl: string, name: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${name}`
}

export function filePathOf(url: string): string | null {
  return url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : null
}

const yamlString = (value: string) => JSON.stringify(value)

/** Litestream's YAML config for these databases (JSON strings are valid YAML scalars). */
export function litestreamConfig(
  databases: readonly ReplicatedDatabase[],
  baseUrl: string,
  s3: S3Options = {},
): string {
  const lines = ['dbs:']
  for (const db of databases) {
    const url = replicaUrlFor(baseUrl, db.name)
    lines.push(`  - path: ${yamlString(db.path)}`, '    replicas:')
    const file = filePathOf(url)
    if (file) {
      lines.push('      - type: file', `        path: ${yamlString(file)}`)
    } else {
      lines.push(`      - url: ${yamlString(url)}`)
      if (s3.endpoint) lines.push(`        endpoint: ${yamlString(s3.endpoint)}`)
      if (s3.region) lines.push(`        region: ${yamlString(s3.region)}`)
      if (s3.accessKeyId) lines.push(`        access-key-id: ${yamlString(s3.accessKeyId)}`)
      if (s3.secretAccessKey) lines.push(`        secret-access-key: ${yamlString(s3.secretAccessKey)}`)
      if (s3.forcePathStyle) lines.push('        force-path-style: true')
    }
    lines.push('        sync-interval: 1s')
  }
  return `${lines.join('\n')}\n`
}

/** LITESTREAM_BIN, else the binary the npm package @flydotio/litestream-linux-x64 ships. */
export function resolveLitestreamBinary(explicit?: string): string | null {
  if (explicit) return existsSync(explicit) ? explicit : null
  try {
    const require = createRequire(import.meta.url)
    const pkg = require.resolve('@flydotio/litestream-linux-x64/package.json')
    const binary = `${dirname(pkg)}/litestream`
    return existsSync(binary) ? binary : null
  } catch {
    return null
  }
}

export interface LitestreamStatus {
  state: 'running' | 'restarting' | 'stopped'
  pid: number | null
  restarts: number
  lastExit: { code: number | null; at: string } | null
  databases: number
}

export interface SupervisorOptions {
  binary: string
  configPath: string
  replicaUrl: string
  s3?: S3Options
  log: Logger
  listDatabases: () => ReplicatedDatabase[]
  /** Backoff after an unexpected exit: base * 2^n, capped. */
  backoffMs?: { base: number; max: number }
}

/**
 * How long a SIGTERMed Litestream may take over its last sync before it is killed. Its stop
 * normally takes well under a second, but v0.3 can hang in it with uploads under way (seen in the
 * cluster suite, 10 s and more; Litestream issue #399), and until it exits no database of the
 * node is replicated: a tenant created then had no replica to fail over to.
 */
const STOP_LIMIT_MS = 3000

export class LitestreamSupervisor {
  private process: Subprocess | null = null
  private stopping = false
  private restarts = 0
  private consecutiveFailures = 0
  private plannedRestart = false
  private lastExit: LitestreamStatus['lastExit'] = null
  private restartTimer: ReturnType<typeof setTimeout> | null = null
  private current = ''
  /**
   * The file (device and inode) each database path named when Litestream could first have opened
   * it. Litestream keeps that file open for good: when a restore or a move puts a new file at the
   * path, it goes on replicating the old, deleted one (its syncs fail with "create generation: …
   * -wal: no such file") until it restarts. The database set alone does not show that.
   */
  private filesSeen = new Map<string, string>()

  constructor(private readonly options: SupervisorOptions) {}

  start(): void {
    this.stopping = false
    this.writeConfig()
    this.spawn()
  }

  /**
   * Regenerates the config; restarts Litestream only when the database set changed or a database
   * file was replaced under it.
   */
  syncDatabases(): boolean {
    const before = this.current
    const databases = this.options.listDatabases()
    this.writeConfig(databases)
    const replaced = this.fileReplaced(databases)
    if ((this.current === before && !replaced) || this.stopping) return false
    this.options.log.info(
      replaced
        ? 'litestream: a database file was replaced, restarting onto it'
        : 'litestream: database set changed, restarting with the new config',
    )
    this.restartNow()
    return true
  }

  /**
   * Like syncDatabases, but waits until the Litestream that ran before has exited: its graceful
   * stop makes a last sync of every database it replicated.
   */
  async reload(): Promise<void> {
    const before = this.current
    const databases = this.options.listDatabases()
    this.writeConfig(databases)
    const replaced = this.fileReplaced(databases)
    const proc = this.process
    if ((this.current === before && !replaced) || this.stopping) return
    if (!proc) {
      if (!this.restartTimer) this.spawn()
      return
    }
    this.plannedRestart = true
    await this.terminate(proc)
  }

  status(): LitestreamStatus {
    return {
      state: this.stopping ? 'stopped' : this.process ? 'running' : 'restarting',
      pid: this.process?.pid ?? null,
      restarts: this.restarts,
      lastExit: this.lastExit,
      databases: this.options.listDatabases().length,
    }
  }

  /** Stops Litestream; SIGTERM lets it finish its current sync first. */
  async stop(): Promise<void> {
    this.stopping = true
    if (this.restartTimer) clearTimeout(this.restartTimer)
    const proc = this.process
    if (!proc) return
    await this.terminate(proc)
  }

  /**
   * SIGTERM lets Litestream make its last sync; one that has not exited within STOP_LIMIT_MS is
   * killed, so a stuck shutdown cannot hold back the restart (and every database's replication)
   * for good.
   */
  private terminate(proc: Subprocess): Promise<number> {
    proc.kill('SIGTERM')
    const limit = setTimeout(() => {
      this.options.log.warn('litestream did not stop after SIGTERM; killing it', {
        pid: proc.pid,
        afterMs: STOP_LIMIT_MS,
      })
      proc.kill('SIGKILL')
    }, STOP_LIMIT_MS)
    return proc.exited.finally(() => clearTimeout(limit))
  }

  private writeConfig(databases = this.options.listDatabases()): void {
    const config = litestreamConfig(databases, this.options.replicaUrl, this.options.s3)
    if (config === this.current) return
    mkdirSync(dirname(this.options.configPath), { recursive: true })
    writeFileSync(this.options.configPath, config, { mode: 0o600 })
    this.current = config
  }

  /**
   * Whether a database file Litestream may hold open has been replaced at its path since; the new
   * files are noted, as the caller restarts Litestream onto them.
   */
  private fileReplaced(databases: readonly ReplicatedDatabase[]): boolean {
    let replaced = false
    for (const { path } of databases) {
      const now = fileIdentity(path)
      if (now === undefined) continue
      const seen = this.filesSeen.get(path)
      if (seen !== undefined && seen !== now) replaced = true
      this.filesSeen.set(path, now)
    }
    return replaced
  }

  private spawn(): void {
    const databases = this.options.listDatabases()
    this.filesSeen = new Map()
    this.fileReplaced(databases)
    const proc = Bun.spawn([this.options.binary, 'replicate', '-config', this.options.configPath], {
      stdout: 'pipe',
      stderr: 'pipe',
    })
    this.process = proc
    this.options.log.info('litestream started', {
      pid: proc.pid,
      databases: databases.length,
    })
    void forwardLog(proc.stdout, this.options.log)
    void forwardLog(proc.stderr, this.options.log)
    const spawnedAt = Date.now()
    void proc.exited.then((code) => this.onExit(proc, code, spawnedAt))
  }

  private restartNow(): void {
    if (!this.process) {
      this.spawn()
      return
    }
    // onExit sees a planned restart and respawns at once, without backoff.
    this.plannedRestart = true
    void this.terminate(this.process)
  }

  private onExit(proc: Subprocess, code: number | null, spawnedAt: number): void {
    if (this.process !== proc) return
    this.process = null
    this.lastExit = { code, at: new Date().toISOString() }
    if (this.stopping) return
    if (this.plannedRestart) {
      this.options.log.info('litestream stopped for a restart', { pid: proc.pid, code })
      this.plannedRestart = false
      this.spawn()
      return
    }
    // A run that lasted a while resets the backoff.
    if (Date.now() - spawnedAt > 60_000) this.consecutiveFailures = 0
    const { base, max } = this.options.backoffMs ?? { base: 1000, max: 60_000 }
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

/**
 * Litestream 0.3 logs `time=… level=… msg=… key=value…` lines on stdout: they go to our log at
 * their level, so a replication error (a generation it cannot start, a replica it cannot reach)
 * is seen by the operator, not dropped.
 */
export function litestreamLogLine(line: string): { level: keyof Logger; msg: string; detail: string } {
  // Uploads cut short by a stop are logged as errors ("context canceled"), on every restart.
  const level = line.includes('context canceled')
    ? 'debug'
    : (litestreamLevels[/\blevel=(\w+)/.exec(line)?.[1] ?? ''] ?? 'warn')
  const msg = /\bmsg=("(?:[^"\\]|\\.)*"|\S+)/.exec(line)?.[1]?.replace(/^"|"$/g, '') ?? line
  const detail = line.replace(/^time=\S+\s*/, '').replace(/\blevel=\w+\s*/, '')
  return { level, msg, detail }
}

async function forwardLog(stream: ReadableStream<Uint8Array>, log: Logger): Promise<void> {
  const decoder = new TextDecoder()
  let pending = ''
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true })
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      if (!line.trim()) continue
      const { level, msg, detail } = litestreamLogLine(line)
      log[level](`litestream: ${msg}`, { detail })
    }
  }
}
