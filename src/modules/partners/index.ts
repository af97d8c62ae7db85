import { family } from '../../platform/family'
import * as model from './model'
import { partnerRoutes } from './routes'

export const partnersFamily = family({
  name: 'partners',
  tags: {
    Partners: 'The partner directory API: restaurants and connected restaurants.',
  },
  models: { partners: model },
  routes: (platform) => [partnerRoutes(platform.auth)],
})
