import { family } from '../../platform/family'
import * as model from './model'
import { tablesMetaRoutes } from './routes'

export const tablesMetaFamily = family({
  name: 'tables-meta',
  models: { tablesMeta: model },
  routes: (platform) => [tablesMetaRoutes(platform)],
})
