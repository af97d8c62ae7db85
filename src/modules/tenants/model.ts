// TypeBox schemas of the operator API (/admin/v1): tenants, their lifecycle and the operator audit log.
import { t } from 'elysia'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'
import { bool, int, oneOf } from '../../platform/foundation/types'
import { tenantStatuses } from '../../platform/tenancy/control-schema'
import { MAX_EPHEMERAL_TTL_SECONDS } from '../../platform/tenancy/tenants'
import { Location } from '../locations'
import { StaffUser } from '../staff'

const dateTime = t.String({ format: 'date-time' })

export const Tenant = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    slug: t.String(),
    name: t.String(),
    timeZone: t.String(),
    currency: t.String({ description: 'ISO 4217.' }),
    status: oneOf(tenantStatuses, {
      description: '`suspended`: every tenant route answers 403 `tenant_suspended` and its jobs pause.',
    }),
    ephemeral: t.Boolean(),
    expiresAt: t.Nullable(dateTime),
    createdAt: dateTime,
    updatedAt: dateTime,
  },
  {
    $id: '#/components/schemas/Tenant',
    description: 'A business served by this instance: one SQLite database.',
  },
)

export const TenantDetail = t.Object({
  ...Tenant.properties,
  database: t.Object({
    sizeBytes: int({ minimum: 0, description: 'The database file.' }),
    walBytes: int({
      minimum: 0,
      description: 'Its write-ahead log: the frames written since it last started over, header included.',
    }),
    lastWriteAt: t.Nullable(t.String({ description: 'The newest audit entry: every write leaves one.' })),
    schemaVersion: t.Nullable(t.String({ description: 'The last migration applied.' })),
    pendingMigrations: int({ minimum: 0, description: 'Applied when the database is next opened.' }),
  }),
  backup: t.Object({
    snapshots: int({ minimum: 0, description: 'Snapshots in BACKUP_DIR holding this tenant.' }),
    lastSnapshotAt: t.Nullable(dateTime),
    replication: t.Nullable(
      t.Object(
        {
          replicaUrl: t.String(),
          state: t.Nullable(
            t.String({ description: 'Of the Litestream process (`running`, `restarting`, `stopped`).' }),
          ),
        },
        { description: 'null when LITESTREAM_REPLICA_URL is not set.' },
      ),
    ),
  }),
})

export const seeds = ['empty', 'demo'] as const

const slug = t.String({
  pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
  description: 'Lower-case letters, digits and dashes; unique in this instance (`x-tenant-slug`).',
})
const name = t.String({ minLength: 1, maxLength: 200 })
const timeZone = t.String({ minLength: 1, maxLength: 100, description: 'IANA; default `UTC`.' })
const currency = t.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217; default `USD`.' })
const ttlSeconds = int({
  minimum: 1,
  maximum: MAX_EPHEMERAL_TTL_SECONDS,
  description: 'Ephemeral tenants only: seconds until the scheduler deletes it (default 3600).',
})

export const CreateTenant = t.Object(
  {
    slug,
    name,
    timeZone: t.Optional(timeZone),
    currency: t.Optional(currency),
    owner: t.Object(
      {
        subject: t.String({
          minLength: 1,
          maxLength: 255,
          description: 'The identity provider’s `sub` of the owner.',
        }),
        email: t.String({ format: 'email', maxLength: 320 }),
        firstName: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
        lastName: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
      },
      { additionalProperties: false },
    ),
    seed: t.Optional(
      oneOf(seeds, {
        description:
          '`empty` (default): one location and the owner. `demo`: a believable tasting room with weeks of activity.',
      }),
    ),
    ephemeral: t.Optional(
      bool({ description: 'Deleted by the scheduler after `ttlSeconds`, without a snapshot.' }),
    ),
    ttlSeconds: t.Optional(ttlSeconds),
  },
  { additionalProperties: false },
)

export const CreatedTenant = t.Object({ tenant: Tenant, location: Location, owner: StaffUser })

export const TenantListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over slug and name.' })),
  status: t.Optional(oneOf(tenantStatuses)),
  ...pagingQuery(100),
})

export const TenantList = t.Object({
  tenants: t.Array(
    t.Composite([
      Tenant,
      t.Object({
        node: t.Nullable(
          t.String({
            description:
              'Several nodes: the node that owns it (every tenant of the cluster is listed). null on one node.',
          }),
        ),
        lost: t.Nullable(
          t.Object(
            { at: dateTime, reason: t.String() },
            {
              description:
                'Several nodes: its node died and no replica of it restores, so it is not served (503) until another failover finds one; delete it to free the slug. null when served, and on one node.',
            },
          ),
        ),
      }),
    ]),
  ),
  page: pageInfoSchema,
})

export const TenantParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 200, description: 'The tenant’s id or slug.' }),
})

export const DeleteTenantQuery = t.Object({
  purgeSnapshots: t.Optional(
    t.Boolean({
      description:
        'Also remove every snapshot holding the tenant; no final snapshot is taken then. Default false.',
    }),
  ),
})

export const DeletedTenant = t.Object({
  tenant: Tenant,
  finalSnapshot: t.Nullable(t.String({ description: 'Where the final snapshot was written (BACKUP_DIR).' })),
  snapshotsPurged: int({ minimum: 0 }),
})

export const ImportTenantFields = t.Object(
  {
    slug,
    name,
    timeZone: t.Optional(timeZone),
    currency: t.Optional(currency),
    ephemeral: t.Optional(t.Boolean()),
    ttlSeconds: t.Optional(t.Integer({ minimum: 1, maximum: MAX_EPHEMERAL_TTL_SECONDS })),
  },
  { additionalProperties: false },
)

export const ImportedTenant = t.Object({
  tenant: Tenant,
  appliedMigrations: t.Array(t.String(), { description: 'Migrations the imported file lacked.' }),
  auditEntries: int({ minimum: 0, description: 'Entries of the audit chain, all verified.' }),
})

export const OperatorAuditEntry = t.Object({
  id: t.String(),
  subject: t.String({
    description: '`operator-key:<id>`, an operator JWT’s `sub`, `system:cli` or `system:<job>`.',
  }),
  action: t.String({
    description: '`tenant.create`, `tenant.suspend`, `tenant.delete`, `operator_key.create`...',
  }),
  tenantId: t.Nullable(t.String()),
  tenantSlug: t.Nullable(t.String()),
  metadata: t.Record(t.String(), t.Unknown()),
  requestId: t.Nullable(t.String()),
  ipAddress: t.Nullable(t.String()),
  userAgent: t.Nullable(t.String()),
  createdAt: dateTime,
})

export const OperatorAuditQuery = t.Object({
  tenantId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  action: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  ...pagingQuery(100),
})

export const OperatorAuditList = t.Object({ auditEntries: t.Array(OperatorAuditEntry), page: pageInfoSchema })

export type CreateTenantInput = typeof CreateTenant.static
export type ImportTenantInput = typeof ImportTenantFields.static
