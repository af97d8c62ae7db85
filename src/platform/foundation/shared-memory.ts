// Small tables that every process on one data directory maps into memory (the HTTP workers of one
// `serve`, src/cli/workers.ts): rate-limit windows (and gift card lookup misses), principals'
// change signals, waits for a write lock, the workers' connection counts, the event streams each
// credential holds. A slot is a number or two; readers and writers use plain or atomic loads and
// stores.
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Milliseconds since the epoch, in sub-millisecond steps: a clock every process reads alike, for
 * the times a table's slots carry (performance.now() alone counts from each process's start).
 */
export const sharedClockMs = (): number => performance.timeOrigin + performance.now()

/** FNV-1a of `key` from `seed`: cheap, and spreads ids and keys evenly enough for slots. */
export function fnv1a(key: string, seed = 0x811c9dc5): number {
  let hash = seed
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/**
 * `name` in `dataDir`, `bytes` long, mapped shared; or, with no data directory (tests), zeroed
 * memory of this process alone.
 */
export function mapSharedFile(dataDir: string | null, name: string, bytes: number): Uint8Array {
  if (dataDir === null) return new Uint8Array(bytes)
  mkdirSync(dataDir, { recursive: true })
  const path = join(dataDir, name)
  const fd = openSync(path, 'a+')
  try {
    // Growing with zeros is idempotent, so processes starting together agree on the contents.
    if (fstatSync(fd).size < bytes) ftruncateSync(fd, bytes)
  } finally {
    closeSync(fd)
  }
  return Bun.mmap(path, { shared: true })
}
