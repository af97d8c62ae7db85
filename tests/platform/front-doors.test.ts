// Each family shows itself to the rest of the service through its index.ts alone
// (docs/architecture.md, "The family manifest"): no file outside src/modules/<family>/ imports
// any other of its files. Foreign keys between schema.ts files are the one exception: a read of
// another family's table is a named query of the family that owns it.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { Glob } from 'bun'

const root = join(import.meta.dir, '..', '..')
const importPattern = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g

/** Every import of a family's file other than its index.ts from outside the family: `from -> to`. */
function importsPastFrontDoors(): string[] {
  const found: string[] = []
  for (const file of new Glob('src/**/*.{ts,tsx}').scanSync(root)) {
    const from = file.split('/')
    for (const [, target] of readFileSync(join(root, file), 'utf8').matchAll(importPattern)) {
      const to = normalize(join(dirname(file), target!)).split('/')
      if (to[0] !== 'src' || to[1] !== 'modules' || to.length < 4) continue
      const family = to[2]
      if (from[1] === 'modules' && from[2] === family) continue
      if (to[3] === 'index' || to[3] === 'index.ts') continue
      const foreignKey = from[1] === 'modules' && from.at(-1) === 'schema.ts' && to[3] === 'schema'
      if (foreignKey) continue
      found.push(`${file} -> ${relative(root, join(root, ...to))}`)
    }
  }
  return found.sort()
}

describe('front doors', () => {
  test('no import reaches past a family’s index.ts', () => {
    expect(importsPastFrontDoors()).toEqual([])
  })
})
