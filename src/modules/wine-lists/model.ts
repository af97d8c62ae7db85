import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { int, oneOf } from '../../platform/foundation/types'
import { wineVarietalTypes } from './schema'

export const WineAppellation = t.Object(
  {
    id: t.String(),
    countryCode: t.String({ description: 'ISO 3166-1 alpha-2.' }),
    region: t.String(),
    appellation: t.String(),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/WineAppellation' },
)

const VarietalType = oneOf(wineVarietalTypes)

export const WineVarietal = t.Object(
  {
    id: t.String(),
    type: VarietalType,
    varietal: t.String(),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/WineVarietal' },
)

export const WineAppellationQuery = t.Object({
  q: t.Optional(
    t.String({ maxLength: 200, description: 'Case-insensitive search over appellation and region.' }),
  ),
  countryCode: t.Optional(
    t.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2, any case: `FR`, `us`.' }),
  ),
  ...pagingQuery(100),
})

export const WineVarietalQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over the varietal name.' })),
  type: t.Optional(VarietalType),
  ...pagingQuery(100),
})

export const WineAppellationList = t.Object({
  wineAppellations: t.Array(WineAppellation),
  total: int({ minimum: 0 }),
})

export const WineVarietalList = t.Object({
  wineVarietals: t.Array(WineVarietal),
  total: int({ minimum: 0 }),
})

export const WineListParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })
