import { family } from '../../platform/family'
import * as model from './model'
import { exportRoutes } from './routes'

export const exportsFamily = family({
  name: 'exports',
  models: { exports: model },
  routes: (platform) => [exportRoutes(platform)],
})

// What the other families (and the command line) may use.
export { exportKinds } from './routes'
