// `import FILE --tenant T --kind K` and `export KIND --tenant T`: the API's imports and exports
// from the command line, worked in this process, with a progress bar on a terminal (cli-progress)
// and plain lines otherwise (a log, a pipe). Both go to stderr: stdout keeps the result.
import { createWriteStream, statSync } from 'node:fs'
import { basename } from 'node:path'
import { Presets, SingleBar } from 'cli-progress'
import { exportKinds } from '../modules/exports'
import { createImport, getImport, ImportForm, listImportErrors, workImport } from '../modules/imports'
import { everyLocation } from '../platform/auth/location-scope'
import { systemActor } from '../platform/foundation/actor'
import { assertBodyChecked } from '../platform/http/conventions'
import { EXPORT_PAGE_ROWS, type ExportFormat, exportStream } from '../platform/http/export-stream'
import type { Platform } from '../platform/platform'
import { inReadSnapshot } from '../platform/tenancy/transaction'
import { type Flags, optional, required, UsageError } from './flags'
import { tenantOf } from './tenant-commands'

/** Progress on stderr: a bar on a terminal, a line per tenth otherwise. */
function progressOf(label: string, total: number | null) {
  if (process.stderr.isTTY) {
    const bar = new SingleBar(
      {
        stream: process.stderr,
        format:
          total === null
            ? `${label} {value} rows`
            : `${label} [{bar}] {percentage}% | {rows} rows, {failed} failed`,
      },
      Presets.shades_classic,
    )
    bar.start(total ?? 0, 0, { rows: 0, failed: 0 })
    return {
      update: (value: number, extra: { rows: number; failed?: number }) => bar.update(value, extra),
      stop: () => bar.stop(),
    }
  }
  let lastTenth = -1
  return {
    update(value: number, extra: { rows: number; failed?: number }) {
      const tenth = total === null ? Math.floor(extra.rows / 10_000) : Math.floor((value / total) * 10)
      if (tenth === lastTenth) return
      lastTenth = tenth
      const share = total === null ? '' : ` ${Math.round((value / total) * 100)}%`
      const failed = extra.failed === undefined ? '' : `, ${extra.failed} failed`
      process.stderr.write(`${label}${share}: ${extra.rows} rows${failed}\n`)
    },
    stop() {},
  }
}

export async function importCommand(p: Platform, file: string | undefined, flags: Flags) {
  if (!file) throw new UsageError('import needs a FILE')
  const tenant = tenantOf(p, required(flags, 'tenant'))
  const size = statSync(file, { throwIfNoEntry: false })?.size
  if (size === undefined) throw new UsageError(`no file "${file}"`)
  if (size > p.config.importMaxBytes)
    throw new UsageError(`${file} is ${size} bytes; IMPORT_MAX_BYTES is ${p.config.importMaxBytes}`)
  const mapping = optional(flags, 'mapping')
  const form: Record<string, unknown> = {
    kind: required(flags, 'kind'),
    mode: flags.validate ? 'validate' : 'apply',
    emitEvents: flags['emit-events'] === true,
  }
  if (mapping !== undefined) {
    try {
      form.mapping = JSON.parse(mapping)
    } catch {
      throw new UsageError('--mapping must be a JSON object of column → field')
    }
  }
  const format = optional(flags, 'format') ?? (/\.(ndjson|jsonl)$/i.test(file) ? 'ndjson' : 'csv')
  if (format !== 'csv' && format !== 'ndjson') throw new UsageError('--format must be csv or ndjson')
  assertBodyChecked(ImportForm, form)
  const handle = p.pool.hold(tenant.id)
  try {
    // `--location`: as x-location-id on the API, the location rows are at when they name none (orders).
    const actor = { ...systemActor(tenant.id, 'cli'), locationId: optional(flags, 'location') ?? null }
    const created = createImport(handle.db, actor, form as typeof ImportForm.static, {
      bytes: await Bun.file(file).bytes(),
      name: basename(file),
      format,
    })
    const progress = progressOf(`import ${basename(file)}`, 100)
    await workImport(handle.db, tenant.id, created.id, {
      signal: new AbortController().signal,
      progress: (view) =>
        progress.update(Math.round(view.progress * 100), { rows: view.rowsRead, failed: view.rowsFailed }),
    })
    progress.stop()
    const done = getImport(handle.db, created.id)
    const errors = listImportErrors(handle.db, created.id, { page: 1, limit: 20 })
    return {
      import: done,
      errors: errors.errors,
      moreErrors: Math.max(0, errors.page.total - errors.errors.length),
    }
  } finally {
    p.pool.release(handle)
  }
}

export async function exportCommand(p: Platform, kind: string | undefined, flags: Flags) {
  const chosen = exportKinds.find((k) => k.kind === kind)
  if (!chosen) throw new UsageError(`export needs a KIND: ${exportKinds.map((k) => k.kind).join(', ')}`)
  const tenant = tenantOf(p, required(flags, 'tenant'))
  const format = (optional(flags, 'format') ?? 'csv') as ExportFormat
  if (format !== 'csv' && format !== 'ndjson') throw new UsageError('--format must be csv or ndjson')
  const from = optional(flags, 'from')
  const to = optional(flags, 'to')
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const)
    if (value !== undefined && Number.isNaN(Date.parse(value)))
      throw new UsageError(`--${name} must be an ISO date-time`)
  const out = optional(flags, 'out')
  const handle = p.pool.hold(tenant.id)
  let rows = 0
  const progress = progressOf(`export ${chosen.kind}`, null)
  const stream = exportStream(
    chosen.source,
    format,
    (after) => {
      const page = inReadSnapshot(handle.db, (tx) =>
        chosen.source.page(tx, { from, to, locations: everyLocation, after, limit: EXPORT_PAGE_ROWS }),
      )
      rows += page.rows.length
      progress.update(rows, { rows })
      return page
    },
    () => p.pool.release(handle),
  )
  const sink: NodeJS.WritableStream = out ? createWriteStream(out) : process.stdout
  let bytes = 0
  for await (const chunk of stream) {
    bytes += chunk.byteLength
    if (!sink.write(chunk)) await new Promise<void>((resolve) => sink.once('drain', () => resolve()))
  }
  progress.stop()
  const result = { kind: chosen.kind, tenant: tenant.slug, format, rows, bytes, out: out ?? null }
  if (out) {
    await new Promise<void>((resolve, reject) =>
      (sink as ReturnType<typeof createWriteStream>).end((error?: Error | null) =>
        error ? reject(error) : resolve(),
      ),
    )
    return result
  }
  // The export went to stdout: the result goes to stderr, so the data stays clean.
  process.stderr.write(`${JSON.stringify(result)}\n`)
  return null
}
