import { family } from '../../platform/family'
import * as model from './model'
import { clusterRoutes } from './routes'

export const clusterFamily = family({
  name: 'cluster',
  models: { cluster: model },
  routes: (platform) => [clusterRoutes(platform)],
})
