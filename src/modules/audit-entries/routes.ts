// GET /audit-entries (the trail, filtered) and GET /audit-entries/verification (the hash chain
// recomputed, as `audit verify --tenant SLUG` does).
import { Elysia } from 'elysia'
import { verifyAuditChain } from '../../platform/audit/audit'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { nowIso } from '../../platform/foundation/ids'
import { pageOf } from '../../platform/foundation/paging'
import { AuditChainVerification, AuditList, AuditListQuery } from './model'
import { listAuditEntries } from './service'

export const auditEntryRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'audit-entries', prefix: '/audit-entries', detail: { tags: ['Audit'] } })
    .use(auth)
    .get(
      '',
      ({ db, query, locations }) => {
        const { page: _p, limit: _l, ...filters } = query
        return listAuditEntries(db, { ...filters, ...pageOf(query) }, locations)
      },
      {
        permission: 'audit:read',
        query: AuditListQuery,
        response: AuditList,
        detail: {
          summary: 'List audit entries',
          description:
            'Newest first. Every write of the tenant leaves one entry, in the same transaction as the write; ' +
            'the trail is append-only and hash-chained (`audit verify --tenant SLUG` recomputes the chain). ' +
            'Filters combine with AND. A caller whose `audit:read` comes only from roles at some locations ' +
            '(or a passcode session), or who names one with `x-location-id`, sees only entries of those locations.',
        },
      },
    )
    .get('/verification', ({ db }) => ({ ...verifyAuditChain(db), verifiedAt: nowIso() }), {
      permission: 'audit:read',
      tenantWide: true,
      response: AuditChainVerification,
      detail: {
        summary: 'Verify the audit hash chain',
        description:
          'Recomputes every entry’s hash from the first one, as `audit verify --tenant SLUG` does: `ok` with the `count` of entries, or the first entry that does not fit. Reads the whole trail; tenant-wide, since the chain spans every location.',
      },
    })
