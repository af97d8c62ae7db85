import { family } from '../../platform/family'
import { registerOffPremiseHooks } from './hooks'
import { pendingNotifications, registerOffPremiseJobs, snoozeEnds } from './jobs'
import * as model from './model'
import { Channel, OffPremiseSettings } from './model'
import * as orderModel from './order-model'
import { offPremiseOrderRoutes } from './order-routes'
import { offPremiseSettingsRoutes } from './routes'

export const offPremiseFamily = family({
  name: 'off-premise',
  tags: {
    'Off-premise': 'Pickup and delivery: staging, ready, hand-off; channel settings and controls.',
  },
  models: { offPremise: model, offPremiseOrder: orderModel },
  events: [
    {
      object: 'off_premise_settings',
      readPermission: 'shipping:read',
      actions: ['update'],
      emittedBy: '`PUT /shipping/off-premise/settings`',
      payload: 'the location’s settings',
      schema: OffPremiseSettings,
    },
    {
      object: 'off_premise_channel',
      readPermission: 'shipping:read',
      actions: ['update'],
      emittedBy: '`POST /shipping/off-premise/channels/{id}/control`; the snooze-expiry job',
      payload: 'the channel',
      schema: Channel,
    },
  ],
  hooks: registerOffPremiseHooks,
  dueWork: [pendingNotifications, snoozeEnds],
  jobs: (platform) => registerOffPremiseJobs(platform),
  routes: (platform) => [
    offPremiseOrderRoutes(platform.auth, platform.messages),
    offPremiseSettingsRoutes(platform.auth),
  ],
})
