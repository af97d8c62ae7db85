// The worker thread of checkpoints.ts: a PASSIVE checkpoint of each file it is sent, on a
// connection of its own opened for it, then the file's path sent back. PASSIVE copies what it can
// without waiting for the readers or the writer of other connections, so the request thread is
// never held up by it.
import { Database } from 'bun:sqlite'

export interface CheckpointRequest {
  path: string
  synchronous: string
}

declare const self: Worker

self.onmessage = ({ data }: MessageEvent<CheckpointRequest>) => {
  let db: Database | undefined
  try {
    db = new Database(data.path, { readwrite: true, create: false })
    db.exec(`PRAGMA synchronous = ${data.synchronous}`)
    db.exec('PRAGMA wal_checkpoint(PASSIVE)')
  } catch {
    // The tenant was deleted or moved away since its write: nothing is left to checkpoint.
  } finally {
    db?.close(false)
  }
  postMessage(data.path)
}
