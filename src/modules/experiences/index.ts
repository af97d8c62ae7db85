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

// What the other families may use.
export { addDays, TIME_PATTERN } from './clock'
export { experienceByPrivateLink } from './links'
export { paymentOptionSchema } from './model'
export type { Bookable } from './schedules'
export { bookableExperiences, endOf, occurrenceAt, occurrencesOn } from './schedules'
export { type PaymentOption, paymentOptions, paymentRequiredOptions } from './schema'
export {
  createExperience,
  currentVersionRow,
  getExperienceRow,
  getVersionRow,
  publishExperience,
} from './service'
