import { family } from '../../platform/family'
import { StreamHub } from './hub'
import * as model from './model'
import { eventStreamRoutes } from './routes'

export const eventStreamFamily = family({
  name: 'event-stream',
  tags: {
    Events:
      'The live event stream: the webhooks’ events for browsers and devices that cannot receive webhooks (server-sent events, with resume).',
  },
  models: { eventStream: model },
  jobs: (platform) => new StreamHub(platform),
  routes: (platform, hub) => [eventStreamRoutes(platform.auth, hub)],
})
