// Removing a data directory a closed platform used.
import { renameSync, rmSync } from 'node:fs'

/**
 * Removes `dir` and what it holds. Renamed first: the background checkpoint of a closed platform's
 * database (src/platform/tenancy/checkpoints.ts) may still be letting go of its file, and its SQLite
 * connection deletes the WAL and shared-memory files by path as it does; Bun's rmSync gives up,
 * silently, on an entry that vanishes under it, leaving the directory. Under a name only this
 * function knows, the removal races nothing.
 */
export function removeDirectory(dir: string): void {
  const removing = `${dir}-removing`
  try {
    renameSync(dir, removing)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  rmSync(removing, { recursive: true, force: true })
}
