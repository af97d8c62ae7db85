import { family } from '../../platform/family'
import * as model from './model'
import { wineListRoutes } from './routes'

export const wineListsFamily = family({
  name: 'wine-lists',
  models: { wineLists: model },
  routes: (platform) => [wineListRoutes(platform.auth)],
})
