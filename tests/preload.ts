// Preloaded by `bun test` (bunfig.toml): runs once around the whole test run.
import { afterAll } from 'bun:test'
import { removeMadeDirs } from './e2e/cli'

afterAll(removeMadeDirs)
