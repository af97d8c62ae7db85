// The operator API: tenants as a service, under /admin/v1. Every route takes an operator
// credential (`operator: true`, platform/operator/plugin.ts) and no tenant token.
import { rmSync } from 'node:fs'
import { Elysia } from 'elysia'
import { pageOf } from '../../platform/foundation/paging'
import { ApiError, invalid } from '../../platform/foundation/problem'
import { rawBodyRoute } from '../../platform/http/request-body'
import { listOperatorAudit } from '../../platform/operator/audit'
import type { Platform } from '../../platform/platform'
import {
  CreatedTenant,
  CreateTenant,
  DeletedTenant,
  DeleteTenantQuery,
  ImportedTenant,
  ImportTenantFields,
  OperatorAuditList,
  OperatorAuditQuery,
  TenantDetail,
  TenantList,
  TenantListQuery,
  TenantParams,
  Tenant as TenantSchema,
} from './model'
import { deleteTenant } from './removal'
import {
  changeTenantStatus,
  createTenantWithOwner,
  findTenant,
  listTenantsPage,
  publishToCluster,
  tenantDetail,
} from './service'
import {
  exportToTemporaryFile,
  importTenant,
  SQLITE_MEDIA_TYPE,
  streamThenRemove,
  writeBody,
} from './transfer'

const PREFIX = '/admin/v1'
const IMPORT_PATH = rawBodyRoute('POST', `${PREFIX}/tenants/import`).slice(PREFIX.length)

const binary = { type: 'string', format: 'binary' } as const
const rawSqliteTypes = [SQLITE_MEDIA_TYPE, 'application/x-sqlite3', 'application/octet-stream']

/** The import body, raw or as the `file` part of a multipart form, written to `path`. */
async function receiveImport(request: Request, path: string, maxBytes: number): Promise<void> {
  const contentType = request.headers.get('content-type') ?? SQLITE_MEDIA_TYPE
  const declared = Number(request.headers.get('content-length') ?? 0)
  if (declared > maxBytes)
    throw new ApiError('payload_too_large', `Imported databases are limited to ${maxBytes} bytes`)
  if (rawSqliteTypes.some((type) => contentType.toLowerCase().startsWith(type)))
    return writeBody(request.body, path, maxBytes)
  if (!/^multipart\/form-data/i.test(contentType))
    throw new ApiError(
      'unsupported_media_type',
      `Send the file as ${SQLITE_MEDIA_TYPE} (or application/octet-stream), or as the \`file\` part of multipart/form-data`,
    )
  const form = `${path}.form`
  try {
    await writeBody(request.body, form, maxBytes)
    // From the bytes, not the file: Bun's Response over a BunFile misreads multipart (final boundary).
    const parts = await new Response(await Bun.file(form).bytes(), {
      headers: { 'content-type': contentType },
    })
      .formData()
      .catch(() => {
        throw invalid('body', 'malformed multipart/form-data')
      })
    const file = parts.get('file')
    if (!(file instanceof Blob)) throw invalid('body/file', 'the multipart body needs a `file` part')
    await writeBody(file, path, maxBytes)
  } finally {
    rmSync(form, { force: true })
  }
}

export const tenantAdminRoutes = (platform: Platform) =>
  new Elysia({ name: 'tenants-admin', prefix: PREFIX, detail: { tags: ['Operator'] } })
    .use(platform.operator)
    .post(
      '/tenants',
      async ({ operator, body, set }) => {
        const created = createTenantWithOwner(platform, operator, body)
        await publishToCluster(platform, created.tenant.id)
        set.status = 201
        return created
      },
      {
        operator: true,
        body: CreateTenant,
        response: { 201: CreatedTenant },
        detail: {
          'x-problems': ['conflict'],
          summary: 'Create a tenant',
          description:
            'A new tenant database with a first location and an owner staff user mapped to `owner.subject`; `seed: demo` fills it with a believable tasting room (two locations, staff, products, club members, weeks of orders and payments...). The tenant is visible to requests only once complete. `ephemeral: true` tenants are deleted by the scheduler `ttlSeconds` (default 3600) after creation, with no snapshot. A taken slug is 409.',
        },
      },
    )
    .get('/tenants', ({ query }) => listTenantsPage(platform, { ...query, ...pageOf(query) }), {
      operator: true,
      query: TenantListQuery,
      response: TenantList,
      detail: { summary: 'List tenants', description: 'By slug; `q` matches slug or name.' },
    })
    .get('/tenants/:id', ({ params }) => tenantDetail(platform, findTenant(platform, params.id)), {
      operator: true,
      params: TenantParams,
      response: TenantDetail,
      detail: {
        summary: 'Get a tenant',
        description:
          'With its database (size, WAL, last write, schema version) and backups (snapshots, replication). `{id}` is the id or the slug.',
      },
    })
    .post(
      '/tenants/:id/suspend',
      ({ operator, params }) =>
        changeTenantStatus(platform, operator, findTenant(platform, params.id), 'suspended'),
      {
        operator: true,
        params: TenantParams,
        response: TenantSchema,
        detail: {
          'x-problems': ['conflict'],
          summary: 'Suspend a tenant',
          description:
            'From the next request in every process, every tenant route answers 403 `tenant_suspended` (a problem document), and the scheduler skips the tenant (webhook deliveries, gift card deliveries, club and other jobs wait). Nothing is lost; `resume` undoes it. Already suspended: 409.',
        },
      },
    )
    .post(
      '/tenants/:id/resume',
      ({ operator, params }) =>
        changeTenantStatus(platform, operator, findTenant(platform, params.id), 'active'),
      {
        operator: true,
        params: TenantParams,
        response: TenantSchema,
        detail: {
          'x-problems': ['conflict'],
          summary: 'Resume a suspended tenant',
          description: 'Not suspended: 409.',
        },
      },
    )
    .delete(
      '/tenants/:id',
      ({ operator, params, query }) =>
        deleteTenant(platform, operator, findTenant(platform, params.id), {
          purgeSnapshots: query.purgeSnapshots ?? false,
        }),
      {
        operator: true,
        params: TenantParams,
        query: DeleteTenantQuery,
        response: DeletedTenant,
        detail: {
          summary: 'Delete a tenant',
          description:
            'Takes a final snapshot (`BACKUP_DIR/deleted-tenants/`, importable with `POST /admin/v1/tenants/import`), then removes the database file, its WAL, its media objects, its Litestream entry and its control rows (sessions, credentials); the slug is free again. `purgeSnapshots=true` takes no final snapshot and removes every snapshot holding the tenant. A Litestream replica already written stays where it is.',
        },
      },
    )
    .get(
      '/tenants/:id/export',
      ({ operator, params }) => {
        const tenant = findTenant(platform, params.id)
        const { path, remove } = exportToTemporaryFile(platform, operator, tenant)
        return new Response(streamThenRemove(path, remove), {
          headers: {
            'content-type': SQLITE_MEDIA_TYPE,
            'content-length': String(Bun.file(path).size),
            'content-disposition': `attachment; filename="${tenant.slug}.sqlite"`,
          },
        })
      },
      {
        operator: true,
        params: TenantParams,
        detail: {
          summary: 'Export a tenant',
          description:
            'Streams a consistent snapshot of the tenant’s SQLite database (`VACUUM INTO`: writes may go on meanwhile). Media objects are not included. A read: it leaves no operator audit entry (a GET never writes), the service log records who took it.',
          responses: {
            200: {
              description: 'The SQLite database file.',
              content: { [SQLITE_MEDIA_TYPE]: { schema: binary } },
            },
          },
        },
      },
    )
    .post(
      IMPORT_PATH,
      async ({ operator, query, request, set }) => {
        const { timeZone, ...fields } = query
        const imported = await importTenant(platform, operator, { ...fields, timezone: timeZone }, (path) =>
          receiveImport(request, path, platform.config.tenantImportMaxBytes),
        )
        await publishToCluster(platform, imported.tenant.id)
        set.status = 201
        return imported
      },
      {
        operator: true,
        query: ImportTenantFields,
        parse: ({ request }) => request.body ?? new Uint8Array(),
        response: { 201: ImportedTenant },
        detail: {
          'x-problems': ['conflict', 'payload_too_large'],
          summary: 'Import a tenant',
          description:
            'Makes a new tenant (new id, the slug and name in the query) from an exported SQLite file, sent as the raw body (`application/vnd.sqlite3` or `application/octet-stream`) or as the `file` part of `multipart/form-data`, up to `TENANT_IMPORT_MAX_BYTES`. The file must pass `PRAGMA integrity_check`, be a restaurant-ops tenant database of this or an older version (it is migrated), have exactly the schema the migrations make, and its audit hash chain must verify; otherwise 400 and nothing is kept.',
          requestBody: {
            required: true,
            content: {
              [SQLITE_MEDIA_TYPE]: { schema: binary },
              'application/octet-stream': { schema: binary },
              'multipart/form-data': {
                schema: { type: 'object' as const, required: ['file'], properties: { file: binary } },
              },
            },
          },
        },
      },
    )
    .get(
      '/audit-entries',
      ({ query }) => listOperatorAudit(platform.control.db, { ...query, ...pageOf(query) }),
      {
        operator: true,
        query: OperatorAuditQuery,
        response: OperatorAuditList,
        detail: {
          summary: 'List operator audit entries',
          description:
            'Newest first: every operator action that changes something (tenant create, suspend, resume, delete, import and expiry; operator keys made and revoked), from the API, the command line or the scheduler. Append-only.',
        },
      },
    )
