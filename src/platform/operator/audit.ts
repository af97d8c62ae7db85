// The operator audit log: every operator action that changes something (tenants created,
// suspended, resumed, deleted or imported; keys made or revoked; ephemeral tenants expired) in the
// control database, appended in the same transaction as the control write it describes.
import { and, count, desc, eq, type SQL } from 'drizzle-orm'
import { newId, nowIso } from '../foundation/ids'
import { offsetOf, type PageRequest } from '../foundation/paging'
import { operatorAuditEntries } from '../tenancy/control-schema'
import type { ControlDb } from '../tenancy/databases'
import { inWriteTransaction } from '../tenancy/transaction'

/** Who acts on tenants: an operator key, an operator JWT, the command line or a job. */
export interface OperatorActor {
  /** `operator-key:<id>`, the operator JWT's `sub`, `system:cli` or `system:<job>`. */
  subject: string
  requestId: string | null
  ipAddress: string | null
  userAgent: string | null
}

export const systemOperator = (name: string): OperatorActor => ({
  subject: `system:${name}`,
  requestId: null,
  ipAddress: null,
  userAgent: null,
})

export interface OperatorAction {
  /** `tenant.create`, `tenant.delete`, `operator_key.revoke`... */
  action: string
  tenant?: { id: string; slug: string } | null
  metadata?: Record<string, unknown>
}

/** Joins the control database's transaction in progress, if any (see inWriteTransaction). */
export function recordOperatorAction(control: ControlDb, actor: OperatorActor, action: OperatorAction): void {
  const values = {
    id: newId(),
    subject: actor.subject,
    action: action.action,
    tenantId: action.tenant?.id ?? null,
    tenantSlug: action.tenant?.slug ?? null,
    metadata: action.metadata ?? {},
    requestId: actor.requestId,
    ipAddress: actor.ipAddress,
    userAgent: actor.userAgent,
    createdAt: nowIso(),
  }
  inWriteTransaction(control, (tx) => tx.insert(operatorAuditEntries).values(values).run())
}

export function listOperatorAudit(
  control: ControlDb,
  query: { tenantId?: string; action?: string } & PageRequest,
) {
  const conditions: (SQL | undefined)[] = [
    query.tenantId ? eq(operatorAuditEntries.tenantId, query.tenantId) : undefined,
    query.action ? eq(operatorAuditEntries.action, query.action) : undefined,
  ]
  const where = and(...conditions)
  const total = control.select({ n: count() }).from(operatorAuditEntries).where(where).get()?.n ?? 0
  const rows = control
    .select()
    .from(operatorAuditEntries)
    .where(where)
    .orderBy(desc(operatorAuditEntries.seq))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return {
    auditEntries: rows.map(({ seq: _seq, ...entry }) => entry),
    page: { total, page: query.page, limit: query.limit },
  }
}
