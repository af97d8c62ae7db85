// Tokens issued before a tenant's tokens lived with it (tenant migration 0031, control 0006). Their
// rows were in the control database: each is carried into its tenant's own database the first
// time this data directory opens that tenant, and the token's tenant stays findable by its hash
// in `legacy_token_tenants` (the token itself does not name it), so every token issued before
// the upgrade keeps working, revocations and lockouts included.
import type { Database } from 'bun:sqlite'
import { eq } from 'drizzle-orm'
import { legacyTokenTenants } from '../tenancy/control-schema'
import type { ControlDb } from '../tenancy/databases'

/** The tenant of a token issued before tokens named it, by the token's hash. */
export function legacyTokenTenant(control: ControlDb, tokenHash: string): string | undefined {
  return control
    .select({ tenantId: legacyTokenTenants.tenantId })
    .from(legacyTokenTenants)
    .where(eq(legacyTokenTenants.tokenHash, tokenHash))
    .get()?.tenantId
}

/** Every token of the index, for a cluster to share (platform/cluster/node.ts). */
export const legacyTokens = (control: ControlDb) => control.select().from(legacyTokenTenants).all()

/** The tables, of the same name in both databases, and the columns a tenant's copy keeps. */
const copies = [
  {
    table: 'passcode_sessions',
    columns: 'id, token_hash, staff_user_id, location_id, created_at, expires_at, revoked_at',
  },
  {
    table: 'passcode_attempts',
    columns: 'staff_user_id, failures, window_started_at, locked_until',
  },
  {
    table: 'api_credentials',
    columns:
      'id, name, token_hash, token_hint, scopes, location_ids, rate_limit_per_minute, created_at, revoked_at',
  },
] as const

/**
 * Carries the control database's rows of old tokens into their tenants' databases, as each is
 * opened. Once the control database holds none (after every tenant was opened once), it costs
 * nothing more than a flag.
 */
export class LegacyCredentialCarrier {
  private pending: boolean

  constructor(private readonly control: Database) {
    this.pending = this.anyLeft()
  }

  private anyLeft(): boolean {
    return copies.some(({ table }) => this.control.query(`SELECT 1 FROM ${table} LIMIT 1`).get() !== null)
  }

  /**
   * Copies the tenant's rows (INSERT OR IGNORE: a process carrying the same rows at once, or a
   * crash between the two commits, copies nothing twice), commits, then removes them from the
   * control database. Raw statements on the connection just opened: no write gate applies, as
   * this only completes what was the tenant's already.
   */
  carry(tenantId: string, tenant: Database): void {
    if (!this.pending) return
    const found = copies.map(({ table, columns }) => ({
      table,
      columns,
      rows: this.control
        .query<Record<string, string | number | null>, [string]>(
          `SELECT ${columns} FROM ${table} WHERE tenant_id = ?`,
        )
        .all(tenantId),
    }))
    if (found.every(({ rows }) => rows.length === 0)) return
    tenant
      .transaction(() => {
        for (const { table, columns, rows } of found) {
          const names = columns.split(', ')
          const insert = tenant.query(
            `INSERT OR IGNORE INTO ${table} (${columns}) VALUES (${names.map(() => '?').join(', ')})`,
          )
          for (const row of rows) insert.run(...names.map((name) => row[name] ?? null))
        }
      })
      .immediate()
    this.control
      .transaction(() => {
        for (const { table } of copies)
          this.control.query(`DELETE FROM ${table} WHERE tenant_id = ?`).run(tenantId)
      })
      .immediate()
    this.pending = this.anyLeft()
  }
}
