// The open-file limit. Every pooled tenant connection holds three files (database, WAL, shared
// memory) and Litestream, a child that inherits the limit, about seven per database it
// replicates (README "Several nodes"). Bun and Node have no setrlimit, so libc's is called
// through bun:ffi. Bun starts with its soft limit raised to the hard one; only root (or
// CAP_SYS_RESOURCE) may raise the hard limit, and some sandboxes refuse even root.
import { dlopen, FFIType, ptr } from 'bun:ffi'

const RLIMIT_NOFILE = 7

export interface FileLimit {
  soft: number
  hard: number
}

function libc() {
  return dlopen('libc.so.6', {
    getrlimit: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    setrlimit: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
  }).symbols
}

/**
 * Raises the open-file limit to `wanted` where it is lower, as far as the process may; answers
 * the limit in force, or null where it cannot be read (not Linux with glibc).
 */
export function raiseFileLimit(wanted: number): FileLimit | null {
  if (process.platform !== 'linux') return null
  let calls: ReturnType<typeof libc>
  try {
    calls = libc()
  } catch {
    return null
  }
  const limit = new BigUint64Array(2)
  const read = (): FileLimit | null =>
    calls.getrlimit(RLIMIT_NOFILE, ptr(limit)) === 0
      ? { soft: Number(limit[0]), hard: Number(limit[1]) }
      : null
  const now = read()
  if (!now || now.soft >= wanted) return now
  limit[0] = BigInt(wanted)
  limit[1] = BigInt(Math.max(now.hard, wanted))
  calls.setrlimit(RLIMIT_NOFILE, ptr(limit))
  return read()
}
