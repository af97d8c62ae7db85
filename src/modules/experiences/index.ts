import { family } from '../../platform/family'
import * as model from './model'
import { experienceRoutes } from './routes'

export const experiencesFamily = family({
  name: 'experiences',
  tags: {
    Tables: 'The tables dashboard: bookable experiences, their published versions, schedules and settings.',
  },
  models: { experiences: model },
  routes: (platform) => [experienceRoutes(platform.auth)],
})
