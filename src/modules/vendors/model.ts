import { t } from 'elysia'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'
import { webUrl } from '../../platform/foundation/types'

const vendorStatus = t.Union([t.Literal('active'), t.Literal('inactive')], {
  description: 'Inactive vendors stay on record for history but are not offered for new purchasing.',
})

const optionalText = (max: number, description?: string) =>
  t.Optional(t.Nullable(t.String({ maxLength: max, description })))

export const Vendor = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    name: t.String(),
    code: t.Nullable(t.String()),
    status: vendorStatus,
    website: t.Nullable(t.String()),
    phone: t.Nullable(t.String()),
    email: t.Nullable(t.String()),
    notes: t.Nullable(t.String()),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { description: 'A supplier the business buys from (ingredients, wine, goods).' },
)

const vendorFields = {
  code: optionalText(64, 'Short code, unique within the tenant (case-insensitive).'),
  status: t.Optional(vendorStatus),
  website: t.Optional(t.Nullable(webUrl(500))),
  phone: optionalText(50),
  email: t.Optional(t.Nullable(t.String({ format: 'email', maxLength: 320 }))),
  notes: optionalText(10_000),
}

export const CreateVendor = t.Object(
  { name: t.String({ minLength: 1, maxLength: 200 }), ...vendorFields },
  { additionalProperties: false },
)

export const UpdateVendor = t.Object(
  { name: t.Optional(t.String({ minLength: 1, maxLength: 200 })), ...vendorFields },
  {
    additionalProperties: false,
    description: 'Partial update: only the fields sent change; null clears a field.',
  },
)

export const VendorListQuery = t.Object({
  q: t.Optional(
    t.String({ maxLength: 200, description: 'Case-insensitive search over name, code and email.' }),
  ),
  ...pagingQuery(100),
})

export const VendorList = t.Object({ vendors: t.Array(Vendor), page: pageInfoSchema })

export const VendorParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateVendorInput = typeof CreateVendor.static
export type UpdateVendorInput = typeof UpdateVendor.static
