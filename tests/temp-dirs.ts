// Temporary directories of a test run. tests/preload.ts gives the run a temporary folder of its
// own (TMPDIR), so that whatever a test, the code it runs or a process it starts leaves there is
// found at the end of the run: the run fails, naming what was left. A directory made here is named
// after the test file that made it (`Bun.main` is that file under `bun test`), so the check says
// which test left it.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

/** The machine's temporary folder: read as this module loads, before tests/preload.ts replaces it. */
export const machineTempDir = tmpdir()

/** The running test file's name without `.test.ts`: `locations` for tests/modules/locations/locations.test.ts. */
const testFileName = (): string => basename(Bun.main).replace(/(\.test)?\.ts$/, '')

/** A new empty directory, `restaurant-ops-test-<test file>-<purpose>-XXXXXX`; remove it with removeTestDir. */
export function makeTestDir(purpose: string): string {
  return mkdtempSync(join(tmpdir(), `restaurant-ops-test-${testFileName()}-${purpose}-`))
}

/** Removes a directory the tests made, once nothing of theirs runs in it any more. */
export { removeDirectory as removeTestDir } from '../src/testing/remove-directory'
