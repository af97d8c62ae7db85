// The worker thread of checkpoints.ts: a PASSIVE checkpoint of each file it is sent, on a
// connection of its own opened for it, the file synced, and the file's path sent back. PASSIVE
// copies what it can without waiting for the readers or the writer of other connections, so the
// request thread is never held up by it.
import { Database } from 'bun:sqlite'
import { restartWalIfFree } from './wal-restart'

export interface CheckpointRequest {
  path: string
  synchronous: string
}

export interface CheckpointDone {
  path: string
  /** The last step done here too: the WAL starts over at the next write (checkpoints.ts). */
  restarted: boolean
}

declare const self: Worker

const MAX_PASSES = 4
const FEW_FRAMES = 200

self.onmessage = async ({ data }: MessageEvent<CheckpointRequest>) => {
  let db: Database | undefined
  let restarted = false
  try {
    db = new Database(data.path, { readwrite: true, create: false })
    db.exec(`PRAGMA synchronous = ${data.synchronous}`)
    // Again while the request thread wrote many frames during the pass: what is left for it to
    // copy when it finishes (checkpoints.ts) must be small, as it copies between requests.
    let frames = 0
    let writtenDuringLastPass = 0
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const { log } = db.query<{ log: number }, []>('PRAGMA wal_checkpoint(PASSIVE)').get()!
      writtenDuringLastPass = log - frames
      frames = log
      if (pass > 0 && writtenDuringLastPass < FEW_FRAMES) break
    }
    if (writtenDuringLastPass > 0 && data.synchronous !== 'OFF') await syncFromAnotherProcess(data.path)
    restarted = restartNow(db)
  } catch {
    // The tenant was deleted or moved away since its write: nothing is left to checkpoint.
  } finally {
    db?.close(false)
  }
  postMessage({ path: data.path, restarted } satisfies CheckpointDone)
}

/**
 * A pass that frames were written during does not sync the database file (SQLite syncs it only
 * once a pass has copied the whole WAL), so the last step's sync flushed every page the passes
 * copied, with the write lock held: 6.8-8.2 ms a last step under steady writes, 4.3-4.5 once
 * synced here first (bench/README.md, twenty-first pass). From another process: closing a
 * descriptor of the file in this one would drop the locks SQLite holds on it in every connection
 * of the process. Skipped where coreutils' `sync` is missing: the last step syncs all then.
 */
async function syncFromAnotherProcess(path: string): Promise<void> {
  if (process.platform !== 'linux') return
  try {
    await Bun.spawn(['sync', '--data', path, `${path}-wal`], { stdio: ['ignore', 'ignore', 'ignore'] }).exited
  } catch {
    // No `sync` on this machine.
  }
}

/**
 * The last step, when no connection writes the file now (wal-restart.ts), while the request thread
 * goes on serving (its writes wait for the lock as for another process's). Never waits
 * (busy_timeout 0): false when a group of writes holds the lock or a reader still reads old
 * frames, and the request thread (or the primary of HTTP workers) takes the step instead.
 */
function restartNow(db: Database): boolean {
  db.exec('PRAGMA busy_timeout = 0')
  return restartWalIfFree(db)
}
