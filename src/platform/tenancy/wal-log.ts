// How long a database's write-ahead log is, read from the WAL file without a connection.
//
// The file's size says nothing once the WAL keeps its blocks between start-overs
// (`journal_size_limit`, sqlite.ts): it stays at its largest while the log inside starts over.
// The log is the frames from the file's start that carry the salts of the WAL header: each start
// over writes a new header whose first salt is one more, so the frames of earlier logs left
// further on never match, and a binary search finds the end in ~12 reads of 8 bytes for a 16 MB
// file. Format: https://www.sqlite.org/fileformat2.html#walformat (big-endian).
//
// The WAL index (`-shm`) holds it too, but it must never be opened here: closing any
// descriptor of a file drops every POSIX lock the process holds on it, and SQLite's connections
// of this process hold theirs on the `-shm`. Another process then took itself for the first one
// in, started the index over and the connections here died of SIGBUS. No connection locks the WAL
// file itself.
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs'

const HEADER_BYTES = 32
const FRAME_HEADER_BYTES = 24
const PAGE_SIZE_IN_HEADER = 8
const SALTS_IN_HEADER = 16
const SALTS_IN_FRAME = 8
const SALTS_BYTES = 8

const header = Buffer.alloc(HEADER_BYTES)
const headerSalts = header.subarray(SALTS_IN_HEADER, SALTS_IN_HEADER + SALTS_BYTES)
const frameSalts = Buffer.alloc(SALTS_BYTES)

/** The WAL's current log in bytes, header included: 0 when the WAL is empty or missing. */
export function walLogBytes(databasePath: string): number {
  let fd: number
  try {
    fd = openSync(`${databasePath}-wal`, 'r')
  } catch {
    return 0
  }
  try {
    const size = fstatSync(fd).size
    if (readSync(fd, header, 0, HEADER_BYTES, 0) < HEADER_BYTES) return 0
    const frameBytes = header.readUInt32BE(PAGE_SIZE_IN_HEADER) + FRAME_HEADER_BYTES
    const inLog = (frame: number) =>
      readSync(fd, frameSalts, 0, SALTS_BYTES, HEADER_BYTES + frame * frameBytes + SALTS_IN_FRAME) ===
        SALTS_BYTES && frameSalts.equals(headerSalts)
    // Frames [0, low) are the log's; frames [high, ...) are not.
    let low = 0
    let high = Math.floor((size - HEADER_BYTES) / frameBytes)
    while (low < high) {
      const middle = (low + high) >>> 1
      if (inLog(middle)) low = middle + 1
      else high = middle
    }
    return HEADER_BYTES + low * frameBytes
  } finally {
    closeSync(fd)
  }
}

/**
 * Whether the WAL's log is at least `bytes` long. The file is never shorter than its log, so one
 * `stat` answers for every file that is small, as most are: the salts are read only in larger ones.
 */
export const walLogReaches = (databasePath: string, bytes: number): boolean =>
  (statSync(`${databasePath}-wal`, { throwIfNoEntry: false })?.size ?? 0) >= bytes &&
  walLogBytes(databasePath) >= bytes

/** A database's file size and its WAL's log, as the operator's views show them (0: no file). */
export function databaseBytes(path: string): { sizeBytes: number; walBytes: number } {
  return { sizeBytes: statSync(path, { throwIfNoEntry: false })?.size ?? 0, walBytes: walLogBytes(path) }
}
