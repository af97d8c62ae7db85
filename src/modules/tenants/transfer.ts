// Moving a tenant between instances: export streams a consistent snapshot of its database
// (VACUUM INTO, so writes may go on meanwhile); import makes a new tenant from such a file once it
// passes PRAGMA integrity_check, is brought up to this version's schema by the migrations, has
// exactly the schema those make, and its audit hash chain verifies. Media objects are not part of
// the file. The imported tenant gets a new id (the file's audit entries keep naming the old one),
// and none of the exported tenant's passcode sessions or credentials.
import { Database } from 'bun:sqlite'
import { mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tenantMigrations } from '../../../migrations/embedded'
import { checkAuditChain, checkIntegrity, closeForGood, RestoreError } from '../../platform/backup/restore'
import { ApiError, invalid } from '../../platform/foundation/problem'
import { type OperatorActor, recordOperatorAction } from '../../platform/operator/audit'
import type { Platform } from '../../platform/platform'
import { tenantDatabasePath } from '../../platform/tenancy/databases'
import { appliedMigrations, migrate } from '../../platform/tenancy/migrator'
import { type NewTenant, newTenantRow, registerTenant, type Tenant } from '../../platform/tenancy/tenants'
import { presentTenant } from './service'

export const SQLITE_MEDIA_TYPE = 'application/vnd.sqlite3'

/** A consistent copy of the tenant's database (VACUUM INTO) at `path`, which must not exist. */
export function exportTenantTo(
  platform: Platform,
  operator: OperatorActor,
  tenant: Tenant,
  path: string,
): void {
  platform.pool.get(tenant.id).sqlite.query('VACUUM INTO ?').run(path)
  // A read, so no audit entry (a GET never writes); the service log says who took a copy.
  platform.log.info('tenant exported', {
    tenant: tenant.slug,
    tenantId: tenant.id,
    operator: operator.subject,
    requestId: operator.requestId,
  })
}

/** The export in a temporary file, and how to remove it. */
export function exportToTemporaryFile(platform: Platform, operator: OperatorActor, tenant: Tenant) {
  const dir = mkdtempSync(join(tmpdir(), 'restaurant-ops-export-'))
  const path = join(dir, `${tenant.slug}.sqlite`)
  const remove = () => rmSync(dir, { recursive: true, force: true })
  try {
    exportTenantTo(platform, operator, tenant, path)
  } catch (error) {
    remove()
    throw error
  }
  return { path, remove }
}

/** The file's bytes as a stream that removes the file once it is read or abandoned. */
export function streamThenRemove(path: string, remove: () => void): ReadableStream<Uint8Array> {
  const reader = Bun.file(path).stream().getReader()
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read()
      if (value) controller.enqueue(value)
      if (done) {
        controller.close()
        remove()
      }
    },
    async cancel() {
      await reader.cancel()
      remove()
    },
  })
}

const schemaOf = (sqlite: Database) =>
  sqlite
    .query<{ entry: string }, []>(
      "SELECT type || ' ' || name || ' ' || coalesce(sql, '') AS entry FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
    )
    .all()
    .map((row) => row.entry)

let expectedSchema: string[] | undefined

/** What this version's migrations make of an empty database. */
function migratedSchema(): string[] {
  if (!expectedSchema) {
    const fresh = new Database(':memory:')
    migrate(fresh, tenantMigrations)
    expectedSchema = schemaOf(fresh)
    fresh.close()
  }
  return expectedSchema
}

const refused = (reason: string) =>
  new ApiError('validation_failed', `The file is not an importable tenant database: ${reason}`, {
    errors: [{ path: 'body', message: reason }],
  })

/** Checks, migrates and verifies the file in place; what it applied and the chain's length. */
function prepareImport(path: string): { appliedMigrations: string[]; auditEntries: number } {
  let sqlite: Database
  try {
    sqlite = new Database(path, { readwrite: true, create: false, strict: true })
    sqlite.query('SELECT count(*) FROM sqlite_master').get()
  } catch {
    throw refused('not a SQLite database')
  }
  try {
    checkIntegrity(sqlite)
    const known = new Set(tenantMigrations.map((m) => m.tag))
    const tags = appliedMigrations(sqlite)
    if (tags.length === 0) throw refused('it has no schema_migrations: not a restaurant-ops tenant database')
    const unknown = tags.filter((tag) => !known.has(tag))
    if (unknown.length > 0) throw refused(`it was made by another version (migrations ${unknown.join(', ')})`)
    const applied = migrate(sqlite, tenantMigrations)
    // Passcode sessions, lockouts and credentials are bearer secrets of the exported tenant, whose
    // tokens name it: the copy, a new tenant, starts without them.
    for (const table of ['passcode_sessions', 'passcode_attempts', 'api_credentials'])
      sqlite.run(`DELETE FROM ${table}`)
    const schema = schemaOf(sqlite)
    const extra = schema.filter((entry) => !migratedSchema().includes(entry))
    if (extra.length > 0 || schema.length !== migratedSchema().length)
      throw refused(`its schema differs from this version's (${extra[0]?.slice(0, 80) ?? 'objects missing'})`)
    return { appliedMigrations: applied, auditEntries: checkAuditChain(sqlite) }
  } catch (error) {
    if (error instanceof RestoreError) throw refused(error.message)
    throw error
  } finally {
    closeForGood(sqlite)
  }
}

/**
 * Makes a tenant from a SQLite file written by `source` into the path it is given (a request
 * body, a file on disk). The file is verified where it lands, beside the data, and then renamed
 * into place; nothing is left behind when any step fails.
 */
export async function importTenant(
  platform: Platform,
  operator: OperatorActor,
  input: NewTenant,
  source: (path: string) => Promise<void>,
) {
  const control = platform.control.db
  const tenant = newTenantRow(control, input)
  const target = tenantDatabasePath(platform.config.dataDir, tenant.id)
  const staging = `${target}.importing`
  try {
    await source(staging)
    const checked = prepareImport(staging)
    renameSync(staging, target)
    registerTenant(control, tenant, () =>
      recordOperatorAction(control, operator, {
        action: 'tenant.import',
        tenant,
        metadata: { ...checked, ephemeral: tenant.ephemeral, expiresAt: tenant.expiresAt },
      }),
    )
    return { tenant: presentTenant(tenant), ...checked }
  } catch (error) {
    for (const path of [staging, target])
      for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true })
    throw error
  }
}

/** Writes a request body to `path`, refused past `maxBytes` (413) as the bytes arrive. */
export async function writeBody(
  body: ReadableStream<Uint8Array> | Blob | null,
  path: string,
  maxBytes: number,
): Promise<void> {
  if (!body) throw invalid('body', 'send the SQLite file as the body')
  const tooLarge = new ApiError('payload_too_large', `Imported databases are limited to ${maxBytes} bytes`)
  if (body instanceof Blob) {
    if (body.size > maxBytes) throw tooLarge
    await Bun.write(path, body)
    return
  }
  const writer = Bun.file(path).writer()
  let size = 0
  try {
    for await (const chunk of body) {
      size += chunk.byteLength
      if (size > maxBytes) throw tooLarge
      writer.write(chunk)
    }
  } finally {
    await writer.end()
  }
}
