import { family } from '../../platform/family'
import * as model from './model'
import { webhookRoutes } from './routes'
import { tablesWebhookRoutes } from './tables-routes'

export const webhooksFamily = family({
  name: 'webhooks',
  tags: {
    Webhooks: 'Webhook subscriptions, the delivery log and dead letters (the events themselves: `webhooks`).',
  },
  models: { webhooks: model },
  routes: (platform) => {
    const settings = { allowPrivateTargets: platform.config.webhookAllowPrivateTargets }
    return [webhookRoutes(platform.auth, settings), tablesWebhookRoutes(platform.auth, settings)]
  },
})

// What the other families may use.
export { createWebhook } from './service'
