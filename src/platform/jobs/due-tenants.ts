// Which tenants a periodic job can skip. Opening a tenant's database costs ~2 ms (SQLite parses
// its schema), so a job that visits a thousand tenants every 30 seconds kept a core busy for
// nothing: almost every tenant had nothing to do. A job that tracks due tenants answers, for each
// tenant it visits, when that tenant next has work without a write of its own (the earliest
// scheduled delivery, snooze end, reminder...; null when only a write can bring work). The tenant
// is skipped until that time, unless its database files changed since the visit.
//
// Files, not in-process hooks, because any process may write a tenant (the CLI, an import) and
// a stat costs microseconds. The signature is taken before the work reads anything, so a write
// that lands during the work changes it and brings the tenant back on the next run. A file
// modified within the last second is not trusted: file times have coarse ticks, and a second
// write in the same tick as the signature could leave it unchanged.
import { type BigIntStats, statSync } from 'node:fs'
import { min, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { zonedInstant } from '../dates'
import type { Queryable } from '../tenancy/transaction'

/** When a tenant next has work for a job without a write: epoch ms, or null (only a write). */
export type NextWork = number | null

/** The earliest of the times given, ignoring the nulls. */
export function earliestOf(...times: NextWork[]): NextWork {
  const known = times.filter((time): time is number => time !== null)
  return known.length === 0 ? null : Math.min(...known)
}

/** The least value of a text column among the rows `where` selects; null when none. */
function leastText(db: Queryable, table: SQLiteTable, column: SQLiteColumn, where: SQL | undefined) {
  const row = db
    .select({ least: min(column) })
    .from(table)
    .where(where)
    .get()
  return row?.least ? String(row.least) : null
}

/** The earliest instant (ISO text) in `column` among the rows `where` selects; null when none. */
export function earliestInstant(
  db: Queryable,
  table: SQLiteTable,
  column: SQLiteColumn,
  where: SQL | undefined,
): NextWork {
  const at = leastText(db, table, column, where)
  return at === null ? null : Date.parse(at)
}

/**
 * The earliest calendar date (YYYY-MM-DD) in `column` among the rows `where` selects, as the
 * instant that date begins in the tenant's time zone; null when none.
 */
export function earliestDateStart(
  db: Queryable,
  table: SQLiteTable,
  column: SQLiteColumn,
  where: SQL | undefined,
  timeZone: string,
): NextWork {
  const date = leastText(db, table, column, where)
  return date === null ? null : zonedInstant(date, '00:00', timeZone).getTime()
}

/** Even a quiet tenant is visited this often: a backstop for anything the signature cannot see. */
export const QUIET_REVISIT_MS = 15 * 60_000
/** Files modified more recently than this are not trusted to show the next write. */
const SETTLE_MS = 1000

const part = (stats: BigIntStats | undefined, emptyIsAbsent: boolean) =>
  !stats || (emptyIsAbsent && stats.size === 0n) ? '-' : `${stats.ino}:${stats.mtimeNs}:${stats.size}`

/**
 * The database file and its WAL: inode (a restore replaces the file), modification time, size,
 * hashed to a number (a job remembers one per tenant: tens of thousands of them). An empty WAL
 * counts as none: SQLite creates one on open and deletes it on the last close, which the pool
 * does as it opens and evicts tenants. Null when the files changed too recently to trust.
 */
export function fileSignature(path: string, now: number): number | null {
  const database = statSync(path, { bigint: true, throwIfNoEntry: false })
  const wal = statSync(`${path}-wal`, { bigint: true, throwIfNoEntry: false })
  const newest = Math.max(Number(database?.mtimeMs ?? 0n), Number(wal?.mtimeMs ?? 0n))
  if (!database || newest > now - SETTLE_MS) return null
  // 53 bits of a 64-bit hash: a collision (a change missed) is a 1 in 9e15 chance per visit.
  return Number(BigInt(Bun.hash.wyhash(`${part(database, false)}/${part(wal, true)}`)) >> 11n)
}

/**
 * Every tenant id any job has seen, with a small number: each job keeps its visits in one array
 * indexed by it, rather than an object and a copy of the id per tenant and job (at 10,000 tenants
 * and eight jobs, 19 MB of heap as objects and strings, 4.7 MB as arrays).
 */
const tenantSlots = new Map<string, number>()
function slotOf(tenantId: string): number {
  let slot = tenantSlots.get(tenantId)
  if (slot === undefined) {
    slot = tenantSlots.size
    tenantSlots.set(tenantId, slot)
  }
  return slot
}

// A visit is four numbers: the files' signature (NaN: not trusted), the next work (Infinity: only
// a write brings some), when it happened (NaN: no visit remembered), and the pass it was seen in.
const FIELDS = 4
const [SIGNATURE, NEXT_WORK, VISITED_AT, PASS] = [0, 1, 2, 3]

/** One job's memory of its visits, per tenant (in memory: a restart visits every tenant once). */
export class DueTenants {
  private visits = new Float64Array(0)
  private pass = 0

  constructor(private readonly revisitMs = QUIET_REVISIT_MS) {}

  /** Starts a run: tenants not seen by the end of a complete run are forgotten. */
  beginPass(): void {
    this.pass++
  }

  /** The signature to record after the visit, or `skip` when the tenant has nothing due. */
  check(
    tenantId: string,
    path: string,
    now: number,
  ): { skip: true } | { skip: false; signature: number | null } {
    const signature = fileSignature(path, now)
    const at = this.at(tenantId)
    const v = this.visits
    if (Number.isNaN(v[at + VISITED_AT]!)) return { skip: false, signature }
    v[at + PASS] = this.pass
    const quiet =
      signature !== null &&
      signature === v[at + SIGNATURE] &&
      v[at + NEXT_WORK]! > now &&
      now - v[at + VISITED_AT]! < this.revisitMs
    return quiet ? { skip: true } : { skip: false, signature }
  }

  record(tenantId: string, signature: number | null, nextWorkAt: NextWork, visitedAt: number): void {
    const at = this.at(tenantId)
    this.visits[at + SIGNATURE] = signature ?? Number.NaN
    this.visits[at + NEXT_WORK] = nextWorkAt ?? Number.POSITIVE_INFINITY
    this.visits[at + VISITED_AT] = visitedAt
    this.visits[at + PASS] = this.pass
  }

  /** A failed visit: the tenant is visited again on the next run. */
  forget(tenantId: string): void {
    this.visits[this.at(tenantId) + VISITED_AT] = Number.NaN
  }

  /** After a complete run: drops the tenants that are gone (deleted, suspended, moved away). */
  endPass(): void {
    for (let at = 0; at < this.visits.length; at += FIELDS)
      if (this.visits[at + PASS] !== this.pass) this.visits[at + VISITED_AT] = Number.NaN
  }

  /** How many tenants' visits are remembered. */
  get size(): number {
    let known = 0
    for (let at = VISITED_AT; at < this.visits.length; at += FIELDS)
      if (!Number.isNaN(this.visits[at]!)) known++
    return known
  }

  /** Where the tenant's visit starts in the array, grown (with no visit remembered) as needed. */
  private at(tenantId: string): number {
    const slot = slotOf(tenantId)
    const at = slot * FIELDS
    if (at + FIELDS > this.visits.length) {
      const slots = Math.max(16, Math.ceil(((slot + 1) * 3) / 2))
      const grown = new Float64Array(slots * FIELDS).fill(Number.NaN)
      grown.set(this.visits)
      this.visits = grown
    }
    return at
  }
}
