import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { rawBodyRoute } from '../../platform/http/request-body'
import type { Platform } from '../../platform/platform'
import type { ImportWorker } from './jobs'
import { DataImport, ImportErrorList, ImportList, ImportListQuery, ImportParams } from './model'
import { importKinds } from './schema'
import { createImport, getImport, listImportErrors, listImports } from './service'
import { readImportUpload } from './upload'

const binary = { type: 'string', format: 'binary' } as const

export const importRoutes = (auth: AuthPlugin, platform: Platform, worker: ImportWorker) =>
  new Elysia({ name: 'imports', prefix: '/imports', detail: { tags: ['Data import and export'] } })
    .use(auth)
    .post(
      rawBodyRoute('POST', '/imports').slice('/imports'.length),
      async ({ db, actor, request, set }) => {
        const upload = await readImportUpload(request, {
          maxBytes: platform.config.importMaxBytes,
          maxJsonDepth: platform.config.maxJsonDepth,
        })
        const created = createImport(db, actor, upload.form, upload.file)
        worker.queued()
        set.status = 202
        set.headers.location = `/imports/${created.id}`
        return created
      },
      {
        permission: 'data:import',
        tenantWide: true,
        parse: ({ request }) => request.body ?? new Uint8Array(),
        response: { 202: DataImport },
        detail: {
          'x-problems': ['payload_too_large', 'unsupported_media_type'],
          summary: 'Import a file',
          description:
            'Queues a CSV (a header row, RFC 4180 quoting, UTF-8, a BOM accepted) or NDJSON file of `kind` records, sent as the `file` part of `multipart/form-data` up to `IMPORT_MAX_BYTES`, and answers 202 with the import; `GET /imports/{id}` follows it. Records are upserts by `id`, else by `externalRef` (customers, club memberships, orders; one of them is required) or `code` (gift cards); a product by `productId`, else `slug`, and each of its variants by `variantId`, else `sku`; so applying a file twice changes nothing the second time; a given `createdAt` is kept. A gift card’s `balance` (minor units) opens its ledger (an `activate` entry), or, for a known card whose balance differs, an `adjust` entry for the difference: the ledger sums to the balance. A record that fails is listed by `GET /imports/{id}/errors` and leaves nothing behind; the others go on. ' +
            'A record may span rows: a product’s variants and an order’s lines. In a CSV, consecutive rows with the same key (a product’s `productId` or `slug`; an order’s `externalRef` or `id`) make one record, whose own columns may be left empty after its first row and must not differ on a later one; an NDJSON line is one record nesting its lists (`variants`; `lineItems` and `payments`). Such a record lands whole or not at all: when one of its rows fails, each of its rows is listed, and a row that cannot be read fails the records beside it. ' +
            '`orders` are closed orders as history: a CSV row per line item (`Lineitem name`, `Lineitem quantity`, `Lineitem price`, ...) and its payments as columns (`Payment 1 Tender`, `Payment 1 Amount`, ... up to five; `Payment Method` for the first). An order’s totals are its lines’ (subtotal unitPrice × quantity, less its discountAmount, its taxAmount or the tax of its taxRateBps), plus shipping and tips; totals the file gives are checked against them, and its payments must pay it in full. Imported orders keep their times, deplete no stock, take no drawer entry, issue and redeem no gift card and call no provider; the reports count them. ' +
            'A club membership’s saved card comes as provider references (Stripe `cus_…` and `pm_…`/`card_…` ids) with its brand, last four and expiry, and becomes the member’s stored card. ' +
            'Each applied record is audited (`customer.import`, `gift_card.import`, `club_membership.import`, `product.import` per variant, `order.import`, naming the import and its first line; a membership’s new or changed saved card also `customer.payment-method.import`); events only with `emitEvents=true`. A cell that looks like a payment card number (13 to 19 digits passing the Luhn check, in text or as a JSON number; a gift card’s code, a SKU or a barcode excepted) fails its row, and the number is kept nowhere. 400 before anything is stored: a file that is not UTF-8, a CSV without a header, a mapping naming a field the kind lacks or a column the file lacks, an unknown `kind`.',
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object' as const,
                  required: ['file', 'kind'],
                  properties: {
                    file: binary,
                    kind: { type: 'string' as const, enum: [...importKinds] },
                    mode: { type: 'string' as const, enum: ['validate', 'apply'], default: 'validate' },
                    format: { type: 'string' as const, enum: ['csv', 'ndjson'] },
                    emitEvents: { type: 'boolean' as const, default: false },
                    mapping: {
                      type: 'string' as const,
                      description: 'JSON object: column (or NDJSON key) → field.',
                    },
                  },
                },
              },
            },
          },
        },
      },
    )
    .get('', ({ db, query }) => listImports(db, pageOf(query)), {
      permission: 'data:import',
      tenantWide: true,
      query: ImportListQuery,
      response: ImportList,
      detail: { summary: 'List imports', description: 'Newest first.' },
    })
    .get('/:id', ({ db, params }) => getImport(db, params.id), {
      permission: 'data:import',
      tenantWide: true,
      params: ImportParams,
      response: DataImport,
      detail: {
        summary: 'Get an import',
        description: 'Its state, the rows read, applied, unchanged and failed, and its progress (by bytes).',
      },
    })
    .get('/:id/errors', ({ db, params, query }) => listImportErrors(db, params.id, pageOf(query)), {
      permission: 'data:import',
      tenantWide: true,
      params: ImportParams,
      query: ImportListQuery,
      response: ImportErrorList,
      detail: {
        summary: 'List an import’s failed rows',
        description:
          'By line: each failed row’s line, field (null for the row as a whole) and reason; never its values.',
      },
    })
