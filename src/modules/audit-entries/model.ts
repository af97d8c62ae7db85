import { t } from 'elysia'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'

export const AuditEntry = t.Object(
  {
    id: t.String(),
    subject: t.Nullable(
      t.String({
        description: 'The token `sub`, `passcode-session:<id>`, `credential:<id>` or `system:<name>`.',
      }),
    ),
    staffUserId: t.Nullable(t.String()),
    tenantId: t.String(),
    locationId: t.Nullable(t.String()),
    requestId: t.Nullable(t.String()),
    ipAddress: t.Nullable(t.String()),
    userAgent: t.Nullable(t.String()),
    method: t.Nullable(t.String()),
    route: t.Nullable(t.String()),
    action: t.String(),
    entityType: t.String(),
    entityId: t.Nullable(t.String()),
    metadata: t.Record(t.String(), t.Unknown()),
    createdAt: t.String({ format: 'date-time' }),
    hash: t.String({ description: 'SHA-256 of this entry and the previous entry’s hash (the chain).' }),
  },
  { $id: '#/components/schemas/AuditEntry' },
)

const instant = (description: string) =>
  t.Optional(
    t.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$',
      description,
    }),
  )

export const AuditListQuery = t.Object({
  entityType: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 100,
      description:
        'e.g. `club_membership`; entries written under a former name (`club-membership`) match too.',
    }),
  ),
  entityId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  staffUserId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  requestId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  action: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 100,
      description: 'e.g. `vendor.create`; an action renamed since matches its former spelling too.',
    }),
  ),
  subject: t.Optional(t.String({ minLength: 1, maxLength: 300 })),
  locationId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  from: instant('Entries at or after this instant; a plain date means its start (UTC).'),
  to: instant('Entries at or before this instant; a plain date includes that whole day (UTC).'),
  ...pagingQuery(100),
})

export const AuditList = t.Object({ auditEntries: t.Array(AuditEntry), page: pageInfoSchema })

export type AuditListInput = typeof AuditListQuery.static

export const AuditChainVerification = t.Object({
  ok: t.Boolean({ description: 'Every entry’s hash recomputes and links to the one before it.' }),
  count: t.Integer({ minimum: 0, description: 'Entries that verify (before the first bad one, if any).' }),
  firstBadEntryId: t.Optional(
    t.String({ description: 'The first entry that does not fit (only when not ok).' }),
  ),
  seq: t.Optional(t.Integer({ description: 'Its position in the chain (only when not ok).' })),
  verifiedAt: t.String({ format: 'date-time' }),
})
