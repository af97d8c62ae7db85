import { family } from '../../platform/family'
import { healthRoutes } from './routes'

export const healthFamily = family({
  name: 'health',
  tags: {
    Platform: 'Service description and health probes (public).',
  },
  routes: (platform) => [healthRoutes(platform)],
})
