import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { bool, int, money, num, oneOf } from '../../platform/foundation/types'
import { weightUnits } from './schema'

const text = (max: number, description?: string) => t.String({ minLength: 1, maxLength: max, description })
const units = oneOf(weightUnits, {
  description: '`Lbs` or `Kg`; default `Lbs`. 1 lb = 0.45359237 kg exactly.',
})
const weight = (description: string) =>
  num({ exclusiveMinimum: 0, maximum: 100_000, description: `${description} At most three decimal places.` })
const id = t.String({ format: 'uuid' })

export const Rate = t.Object({ id, toWeight: t.Number(), price: t.Integer(), weightUnits: units })
export const TopRate = t.Object({
  id,
  isWrapShipping: t.Boolean(),
  forEveryXWeight: t.Nullable(t.Number()),
  weightUnits: units,
  price: t.Nullable(t.Integer()),
})
export const Region = t.Object({ id, countryCode: t.String(), stateCode: t.Nullable(t.String()) })
export const Service = t.Object({
  id,
  title: t.String(),
  code: t.String(),
  carrier: t.Nullable(t.String()),
  isActive: t.Boolean(),
  isDefault: t.Boolean(),
  sortOrder: t.Integer(),
  rates: t.Array(Rate),
  topRate: TopRate,
})

export const ShippingConfiguration = t.Object(
  {
    id,
    title: t.String(),
    regions: t.Array(Region),
    services: t.Array(Service),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  {
    description:
      'Where a set of shipping services applies (regions) and what each charges by weight. Prices are integer cents.',
  },
)

const keepId = t.Optional(
  t.String({
    format: 'uuid',
    description: 'On update: the id of an existing element to keep it; new elements get a new id.',
  }),
)

const RegionInput = t.Object(
  {
    id: keepId,
    countryCode: t.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2.' }),
    stateCode: t.Optional(
      t.Nullable(
        t.String({ pattern: '^[A-Za-z0-9]{1,3}$', description: 'Absent or null: the whole country.' }),
      ),
    ),
  },
  { additionalProperties: false },
)

const RateInput = t.Object(
  {
    id: keepId,
    toWeight: weight('Upper bound of the band, inclusive.'),
    price: money({ description: 'Cents.' }),
    weightUnits: t.Optional(units),
  },
  { additionalProperties: false },
)

const TopRateInput = t.Object(
  {
    id: keepId,
    isWrapShipping: bool({
      description:
        'true: above the last band the weight ships as full packages of the last band’s weight at its price, plus the band price of the rest. false: the last band’s price plus `price` for every `forEveryXWeight` (or part) above it.',
    }),
    forEveryXWeight: t.Optional(t.Nullable(weight('Required unless isWrapShipping.'))),
    weightUnits: t.Optional(units),
    price: t.Optional(t.Nullable(money({ description: 'Cents per step; required unless isWrapShipping.' }))),
  },
  { additionalProperties: false },
)

const ServiceInput = t.Object(
  {
    id: keepId,
    title: text(200),
    code: text(100, 'Unique within the configuration (case-insensitive).'),
    carrier: t.Optional(t.Nullable(text(100))),
    isActive: t.Optional(bool({ description: 'Default true. Inactive services are not quoted.' })),
    isDefault: t.Optional(bool({ description: 'Default false. At most one per configuration.' })),
    sortOrder: t.Optional(int({ minimum: 0, maximum: 100_000 })),
    rates: t.Array(RateInput, { minItems: 1, maxItems: 100 }),
    topRate: TopRateInput,
  },
  { additionalProperties: false },
)

const regions = t.Array(RegionInput, { minItems: 1, maxItems: 500 })
const services = t.Array(ServiceInput, { minItems: 1, maxItems: 50 })

export const CreateShipping = t.Object(
  { title: text(200), regions, services },
  { additionalProperties: false },
)

export const UpdateShipping = t.Object(
  { title: t.Optional(text(200)), regions: t.Optional(regions), services: t.Optional(services) },
  {
    additionalProperties: false,
    description:
      'Partial: `regions` and `services`, when sent, replace the lists (an element sent with the `id` of an existing one keeps that id).',
  },
)

export const ShippingListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over the title.' })),
  ...pagingQuery(100),
})

export const ShippingList = t.Object({
  shippings: t.Array(ShippingConfiguration),
  total: t.Integer({ minimum: 0 }),
})

export const ShippingParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export const RateQuoteQuery = t.Object({
  weight: t.Number({
    minimum: 0,
    maximum: 100_000,
    description: 'Total weight; at most three decimal places.',
  }),
  weightUnits: t.Optional(t.Union([t.Literal('Lbs'), t.Literal('Kg')], { description: 'Default `Lbs`.' })),
  countryCode: t.String({ pattern: '^[A-Za-z]{2}$' }),
  stateCode: t.Optional(t.String({ pattern: '^[A-Za-z0-9]{1,3}$' })),
})

export const RateQuote = t.Object({
  shippingConfigurationId: t.String(),
  shippingConfigurationTitle: t.String(),
  serviceId: t.String(),
  title: t.String(),
  code: t.String(),
  carrier: t.Nullable(t.String()),
  isDefault: t.Boolean(),
  price: t.Integer({ description: 'Cents.' }),
})

export const RateQuoteList = t.Object({ rates: t.Array(RateQuote), total: t.Integer({ minimum: 0 }) })

export type CreateShippingInput = typeof CreateShipping.static
export type UpdateShippingInput = typeof UpdateShipping.static
export type ShippingView = typeof ShippingConfiguration.static

export const OrderRateQuery = t.Object({
  countryCode: t.String({ pattern: '^[A-Za-z]{2}$' }),
  stateCode: t.Optional(t.String({ pattern: '^[A-Za-z0-9]{1,3}$' })),
})

export const OrderRateQuoteList = t.Object({
  weight: t.Number({ description: 'The order’s shipping weight, thousandths of a pound exact.' }),
  weightUnits: t.Literal('Lbs'),
  rates: t.Array(RateQuote),
  total: t.Integer({ minimum: 0 }),
})
