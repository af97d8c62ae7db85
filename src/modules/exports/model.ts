import { t } from 'elysia'
import { oneOf } from '../../platform/foundation/types'

export const ExportListQuery = t.Object({
  format: t.Optional(oneOf(['csv', 'ndjson'], { description: 'Default `csv` (a header row, RFC 4180).' })),
  from: t.Optional(t.String({ format: 'date-time', description: 'Records from this instant (inclusive).' })),
  to: t.Optional(t.String({ format: 'date-time', description: 'Records before this instant.' })),
})

export type ExportListQueryInput = typeof ExportListQuery.static
