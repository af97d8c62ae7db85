import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import {
  WineAppellation,
  WineAppellationList,
  WineAppellationQuery,
  WineListParams,
  WineVarietal,
  WineVarietalList,
  WineVarietalQuery,
} from './model'
import { getWineAppellation, getWineVarietal, listWineAppellations, listWineVarietals } from './service'

const readOnly =
  'A read-only reference list, the same in every tenant (seeded by migration, with the same ids ' +
  'everywhere).'

export const wineListRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'wine-lists', detail: { tags: ['Products'] } })
    .use(auth)
    .get(
      '/wine-appellation',
      ({ db, query }) =>
        listWineAppellations(db, { q: query.q, countryCode: query.countryCode, ...pageOf(query) }),
      {
        permission: 'products:read',
        query: WineAppellationQuery,
        response: WineAppellationList,
        detail: {
          summary: 'List wine appellations',
          description: `${readOnly} Ordered by country, region and appellation; \`q\` matches appellation or region.`,
        },
      },
    )
    .get('/wine-appellation/:id', ({ db, params }) => getWineAppellation(db, params.id), {
      permission: 'products:read',
      params: WineListParams,
      response: WineAppellation,
      detail: { summary: 'Get a wine appellation', description: readOnly },
    })
    .get(
      '/wine-varietal',
      ({ db, query }) => listWineVarietals(db, { q: query.q, type: query.type, ...pageOf(query) }),
      {
        permission: 'products:read',
        query: WineVarietalQuery,
        response: WineVarietalList,
        detail: {
          summary: 'List wine varietals',
          description: `${readOnly} Ordered by name; \`type\` is Red, White, Rosé or Sparkling.`,
        },
      },
    )
    .get('/wine-varietal/:id', ({ db, params }) => getWineVarietal(db, params.id), {
      permission: 'products:read',
      params: WineListParams,
      response: WineVarietal,
      detail: { summary: 'Get a wine varietal', description: readOnly },
    })
