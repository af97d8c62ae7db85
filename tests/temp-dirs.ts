// Temporary directories of a test run. tests/preload.ts gives the run a temporary folder of its
// own (TMPDIR), so that whatever a test, the code it runs or a process it starts leaves there is
// found at the end of the run: the run fails, naming what was left. A directory made here is named
// after the test file that made it (`Bun.main` is that file under `bun test`), so the check says
// which test left it.
import { mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

/** The machine's temporary folder: read as this module loads, before tests/preload.ts replaces it. */
export const machineTempDir = tmpdir()

/** The running test file's name without `.test.ts`: `locations` for tests/modules/locations/locations.test.ts. */
export const testFileName = (): string => basename(Bun.main).replace(/(\.test)?\.ts$/, '')

/** A new empty directory, `restaurant-ops-test-<test file>-<purpose>-XXXXXX`; remove it with removeTestDir. */
export function makeTestDir(purpose: string): string {
  return mkdtempSync(join(tmpdir(), `restaurant-ops-test-${testFileName()}-${purpose}-`))
}

/**
 * Removes a directory the tests made, once nothing of theirs runs in it any more. Renamed first:
 * the background checkpoint of a closed platform's database (src/platform/tenancy/checkpoints.ts)
 * may still be letting go of its file, and its SQLite connection deletes the WAL and shared-memory
 * files by path as it does; Bun's rmSync gives up, silently, on an entry that vanishes under it,
 * leaving the directory. Under a name only this function knows, the removal races nothing.
 */
export function removeTestDir(dir: string): void {
  const removing = `${dir}-removing`
  try {
    renameSync(dir, removing)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  rmSync(removing, { recursive: true, force: true })
}
