import { t } from 'elysia'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'
import { bool, int, oneOf } from '../../platform/foundation/types'
import { importFormats, importKinds, importModes, importStates } from './schema'

const kind = oneOf(importKinds, {
  description:
    'What the file holds: ' +
    '`customers` (with an address and tags, a row each; upserted by `id`, else `externalRef`); ' +
    '`gift-cards` (with their balance, opening the ledger, a row each; by `id`, else `code`); ' +
    '`club-memberships` (a row each: the member by the customer’s id or externalRef, the club by id, slug or title, the saved card as provider references: `providerCustomerId`, `providerPaymentMethodId`, `cardBrand`, `cardLast4`, `cardExpMonth`, `cardExpYear`, never a card number; by `id`, else `externalRef`); ' +
    '`products` (with their variants: a CSV row per variant with its product’s columns, as Shopify and Commerce7 export them, an NDJSON line per product nesting `variants`; the product by `productId`, else `slug` (the handle), the variant by `variantId`, else `sku`); ' +
    '`orders` (closed orders with their lines and payments, as history: a CSV row per line item, an NDJSON line per order).',
})

export const DataImport = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    kind,
    format: oneOf(importFormats, {
      description: 'CSV with a header row, or NDJSON (one JSON object per line).',
    }),
    mode: oneOf(importModes, {
      description: '`validate`: a dry run, every row checked as `apply` would and nothing kept.',
    }),
    emitEvents: t.Boolean({ description: 'Whether applied rows emit their events (webhooks).' }),
    mapping: t.Record(t.String(), t.String(), { description: 'Column → field, as sent.' }),
    state: oneOf(importStates, {
      description:
        'queued, then running, then succeeded (rows may have failed) or failed (the file could not be read on).',
    }),
    fileName: t.Nullable(t.String()),
    fileBytes: int({ minimum: 0 }),
    rowsRead: int({ minimum: 0 }),
    rowsApplied: int({
      minimum: 0,
      description: 'Rows created or changed (in `validate` mode: that would be).',
    }),
    rowsUnchanged: int({ minimum: 0, description: 'Rows whose record already held exactly these values.' }),
    rowsFailed: int({
      minimum: 0,
      description: 'Rows that failed, each listed by `GET /imports/{id}/errors`.',
    }),
    progress: t.Number({
      minimum: 0,
      maximum: 1,
      description: 'The share of the file worked, by its bytes.',
    }),
    error: t.Nullable(t.String({ description: 'Why the import failed as a whole.' })),
    locationId: t.Nullable(t.String()),
    createdByStaffUserId: t.Nullable(t.String()),
    createdAt: t.String({ format: 'date-time' }),
    startedAt: t.Nullable(t.String({ format: 'date-time' })),
    finishedAt: t.Nullable(t.String({ format: 'date-time' })),
  },
  { description: 'A bulk import of one file, worked in the background.' },
)

/** The form fields of `POST /imports` besides `file`, checked as a body would be. */
export const ImportForm = t.Object(
  {
    kind,
    mode: t.Optional(oneOf(importModes, { description: 'Default `validate`.' })),
    format: t.Optional(
      oneOf(importFormats, {
        description:
          'Default: `ndjson` for a file part of type `application/x-ndjson` or named `*.ndjson` / `*.jsonl`, else `csv`.',
      }),
    ),
    emitEvents: t.Optional(bool({ description: 'Default false: a migration does not flood webhooks.' })),
    mapping: t.Optional(
      t.Record(t.String({ minLength: 1, maxLength: 200 }), t.String({ minLength: 1, maxLength: 100 }), {
        maxProperties: 200,
        description:
          'Column (or NDJSON key) → field. Columns not mapped are matched to fields by name and usual names (`First Name`, `Zip`, ...); a field the kind does not have is 400.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const ImportParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })
export const ImportListQuery = t.Object({ ...pagingQuery(100) })
export const ImportList = t.Object({ imports: t.Array(DataImport), page: pageInfoSchema })

export const ImportError = t.Object({
  line: int({ minimum: 1, description: 'The line of the file (a CSV’s header is line 1).' }),
  field: t.Nullable(
    t.String({ description: 'The field (or column) at fault; null for the row as a whole.' }),
  ),
  reason: t.String(),
})
export const ImportErrorList = t.Object({ errors: t.Array(ImportError), page: pageInfoSchema })

export type ImportFormInput = typeof ImportForm.static
export type DataImportView = typeof DataImport.static
