import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { int, oneOf } from '../../platform/foundation/types'
import { taxCalculations } from './schema'

const rate = (category: string) =>
  int({
    minimum: 0,
    maximum: 10_000,
    description: `Tax rate on ${category}, in basis points (875 = 8.75%), 0..10000.`,
  })

const taxCalculation = oneOf(taxCalculations, {
  description: 'Added: tax is added on top of prices. Included: prices already include the tax (VAT style).',
})

const countryCode = t.String({
  pattern: '^[A-Za-z]{2}$',
  description: 'ISO 3166-1 alpha-2 country code; stored upper-case.',
})
const stateCode = t.Nullable(
  t.String({
    pattern: '^[A-Za-z0-9]{1,3}$',
    description:
      'State or province (the ISO 3166-2 subdivision code after the dash, e.g. CA, NSW); stored upper-case. Null (or absent): the tax of the whole country, used where no state-specific tax exists.',
  }),
)

export const Tax = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    title: t.String(),
    countryCode: t.String(),
    stateCode: t.Nullable(t.String()),
    freight: rate('shipping and delivery charges'),
    food: rate('food'),
    generalMerchandise: rate('general merchandise'),
    wine: rate('wine and other alcohol'),
    taxCalculation,
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/Tax' },
)

const title = t.String({ minLength: 1, maxLength: 200 })

export const CreateTax = t.Object(
  {
    title,
    countryCode,
    stateCode: t.Optional(stateCode),
    freight: rate('shipping and delivery charges'),
    food: rate('food'),
    generalMerchandise: rate('general merchandise'),
    wine: rate('wine and other alcohol'),
    taxCalculation,
  },
  { additionalProperties: false },
)

export const UpdateTax = t.Object(
  {
    title: t.Optional(title),
    countryCode: t.Optional(countryCode),
    stateCode: t.Optional(stateCode),
    freight: t.Optional(rate('shipping and delivery charges')),
    food: t.Optional(rate('food')),
    generalMerchandise: t.Optional(rate('general merchandise')),
    wine: t.Optional(rate('wine and other alcohol')),
    taxCalculation: t.Optional(taxCalculation),
  },
  { additionalProperties: false, description: 'Partial update: only the fields sent change.' },
)

export const TaxListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over the title.' })),
  countryCode: t.Optional(countryCode),
  stateCode: t.Optional(t.String({ pattern: '^[A-Za-z0-9]{1,3}$' })),
  ...pagingQuery(100),
})

export const TaxList = t.Object({ taxes: t.Array(Tax), total: int({ minimum: 0 }) })

export const TaxParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateTaxInput = typeof CreateTax.static
export type UpdateTaxInput = typeof UpdateTax.static
