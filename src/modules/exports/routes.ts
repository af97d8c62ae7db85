// GET /exports/{kind}: one route per kind, each guarded by the read permission of the records it
// streams. The records come from their families' front doors, a page at a time.
import { Elysia } from 'elysia'
import type { Permission } from '../../platform/auth/permissions'
import { invalid } from '../../platform/foundation/problem'
import { EXPORT_PAGE_ROWS, type ExportSource, exportStream } from '../../platform/http/export-stream'
import type { Platform } from '../../platform/platform'
import { inReadSnapshot } from '../../platform/tenancy/transaction'
import { auditLogExport } from '../audit-entries'
import { customerExport } from '../customers'
import { giftCardLedgerExport } from '../gift-cards'
import { shiftExport } from '../labor'
import { orderExport } from '../orders'
import { paymentExport } from '../payments'
import { ExportListQuery } from './model'

export interface ExportKind {
  kind: string
  permission: Permission
  source: ExportSource
  what: string
}

/** Every kind of export, with the permission that reads it (the command line exports them too). */
export const exportKinds: ExportKind[] = [
  {
    kind: 'customers',
    permission: 'customers:read',
    source: customerExport,
    what: 'Customers, by creation time, with their tags and first address.',
  },
  {
    kind: 'orders',
    permission: 'orders:read',
    source: orderExport,
    what: 'One row per line item carrying its order’s totals (an order without lines is one row), by the order’s creation time, at the caller’s locations.',
  },
  {
    kind: 'payments',
    permission: 'orders:read',
    source: paymentExport,
    what: 'One row per payment (amounts, tips, refunds, tender), by creation time, at the caller’s locations.',
  },
  {
    kind: 'gift-card-ledger',
    permission: 'gift-cards:reports',
    source: giftCardLedgerExport,
    what: 'Every gift-card ledger entry, by the time it occurred; a caller bound to some locations gets the entries made there or on cards issued there.',
  },
  {
    kind: 'shifts',
    permission: 'labor:read',
    source: shiftExport,
    what: 'One row per shift, by clock-in time, at the caller’s locations.',
  },
  {
    kind: 'audit-log',
    permission: 'audit:read',
    source: auditLogExport,
    what: 'The audit trail, oldest first, at the caller’s locations (entries of no location included); `metadata` as JSON text.',
  },
]

const mediaTypes = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' } as const

export const exportRoutes = (platform: Platform) =>
  exportKinds.reduce(
    (app, { kind, permission, source, what }) =>
      app.get(
        `/${kind}`,
        ({ actor, locations, query }) => {
          if (query.from !== undefined && query.to !== undefined && query.from >= query.to)
            throw invalid('query/to', 'must be after `from`')
          const format = query.format ?? 'csv'
          // Held for the stream, which outlives the handler: the pool may not close it meanwhile.
          const handle = platform.pool.hold(actor.tenantId)
          const stream = exportStream(
            source,
            format,
            (after) =>
              inReadSnapshot(handle.db, (tx) =>
                source.page(tx, {
                  from: query.from,
                  to: query.to,
                  locations,
                  after,
                  limit: EXPORT_PAGE_ROWS,
                }),
              ),
            () => platform.pool.release(handle),
          )
          const day = new Date().toISOString().slice(0, 10)
          return new Response(stream, {
            headers: {
              'content-type': mediaTypes[format],
              'content-disposition': `attachment; filename="${kind}-${day}.${format}"`,
            },
          })
        },
        {
          permission,
          query: ExportListQuery,
          detail: {
            summary: `Export ${kind.replaceAll('-', ' ')}`,
            description: `${what} Streamed as CSV (a header row; text a spreadsheet would run as a formula gets a leading apostrophe) or NDJSON, a page at a time: memory stays flat whatever the size. \`from\`/\`to\` bound the records’ time.`,
            responses: {
              200: {
                description: `The ${kind.replaceAll('-', ' ')}.`,
                content: {
                  'text/csv': { schema: { type: 'string' as const } },
                  'application/x-ndjson': { schema: { type: 'string' as const } },
                },
              },
            },
          },
        },
      ),
    new Elysia({ name: 'exports', prefix: '/exports', detail: { tags: ['Data import and export'] } }).use(
      platform.auth,
    ),
  )
