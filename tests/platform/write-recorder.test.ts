// Services record their writes through recordWrite (src/platform/audit/record-write.ts) only: no
// file under src/modules imports appendAudit or appendEvent, so no write assembles its audit
// entry and events by hand (or forgets one of them). Only src/platform may import those two.
import { beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Glob } from 'bun'
import ts from 'typescript'

const recorderHalves = new Set(['appendAudit', 'appendEvent'])
const recorderHalfFiles = /\/platform\/(audit\/audit|events\/outbox)(\.ts)?$/

/**
 * How a file gets hold of appendAudit or appendEvent: named imports and re-exports (renamed or
 * not), and namespace imports or `export *` of the files that define them.
 */
function recorderHalvesImported(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest)
  const found: string[] = []
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue
    const from = statement.moduleSpecifier
    if (!from || !ts.isStringLiteral(from)) continue
    const bindings = ts.isImportDeclaration(statement)
      ? statement.importClause?.namedBindings
      : statement.exportClause
    if (bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings))) {
      for (const element of bindings.elements) {
        const name = (element.propertyName ?? element.name).text
        if (recorderHalves.has(name)) found.push(`${name} from ${from.text}`)
      }
    } else if (recorderHalfFiles.test(from.text)) {
      // `import * as x` / `export *` / `export * as x` hand over every export, the two halves too.
      const everything = ts.isImportDeclaration(statement)
        ? bindings !== undefined && !statement.importClause?.isTypeOnly
        : !statement.isTypeOnly
      if (everything) found.push(`* from ${from.text}`)
    }
  }
  return found
}

const modulesDir = join(import.meta.dir, '..', '..', 'src', 'modules')

/** The recorder halves each module's files import, by module. */
function importsByModule(): Map<string, string[]> {
  const byModule = new Map<string, string[]>()
  for (const path of new Glob('**/*.ts').scanSync(modulesDir)) {
    const module = path.split('/')[0]!
    const found = recorderHalvesImported(path, readFileSync(join(modulesDir, path), 'utf8'))
    const list = byModule.get(module) ?? []
    list.push(...found.map((f) => `src/modules/${path}: ${f}`))
    byModule.set(module, list)
  }
  return byModule
}

describe('the write recorder', () => {
  let byModule: Map<string, string[]>
  beforeAll(() => {
    byModule = importsByModule()
  })

  test('no module imports appendAudit or appendEvent (recordWrite records every write)', () => {
    const offending = [...byModule].flatMap(([, found]) => found)
    expect(offending).toEqual([])
  })

  test.each([
    [
      "import { appendAudit } from '../../platform/audit/audit'",
      ['appendAudit from ../../platform/audit/audit'],
    ],
    [
      "import { nowIso, appendEvent as emit } from '../../platform/events/outbox'",
      ['appendEvent from ../../platform/events/outbox'],
    ],
    [
      "export { appendAudit } from '../../platform/audit/audit'",
      ['appendAudit from ../../platform/audit/audit'],
    ],
    ["import * as audit from '../../platform/audit/audit'", ['* from ../../platform/audit/audit']],
    ["export * from '../../platform/events/outbox'", ['* from ../../platform/events/outbox']],
    ["export * as outbox from '../../platform/events/outbox'", ['* from ../../platform/events/outbox']],
    ["import '../../platform/events/outbox'", []],
    ["import { recordWrite } from '../../platform/audit/record-write'", []],
    ["import type { DomainEvent } from '../../platform/events/outbox'", []],
    ["import type * as outbox from '../../platform/events/outbox'", []],
    ['// appendAudit(tx, actor, ...) in a comment is not an import', []],
  ])('recognises %s', (text, expected) => {
    expect(recorderHalvesImported('sample.ts', text)).toEqual(expected)
  })
})
