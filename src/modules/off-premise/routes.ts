import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import {
  ChannelControl,
  ChannelParams,
  OffPremiseSettings,
  PutOffPremiseSettings,
  SettingsQuery,
} from './model'
import { controlChannel, getSettings, putSettings } from './settings'

const HOURS =
  'Windows are `{day, startTime, endTime}` in the location’s time zone, start inclusive, end exclusive; `endTime` before `startTime` runs past midnight into the next day (fri 22:00–02:00 is Friday 22:00 to Saturday 02:00); `24:00` ends at midnight; equal times are refused. An empty list means no configured hours (orders at any time). `firstPartyDelivery` governs first-party delivery orders; `takeoutThirdParty` every other off-premise order.'

export const offPremiseSettingsRoutes = (auth: AuthPlugin) =>
  new Elysia({
    name: 'off-premise-settings',
    prefix: '/shipping/off-premise',
    detail: { tags: ['Off-premise'] },
  })
    .use(auth)
    .get('/settings', ({ db, query }) => getSettings(db, query.locationId), {
      permission: 'shipping:read',
      query: SettingsQuery,
      response: OffPremiseSettings,
      detail: {
        summary: 'Get a location’s off-premise settings',
        description: `A location that never saved its settings reads the defaults, with \`id\`, \`createdAt\` and \`updatedAt\` null (strategy \`manual\`, takeout 20 and delivery 45 quote minutes, no throttling, no lead time, scheduled orders allowed, first-party delivery off, guest messaging on, no configured hours, no channels). Channels whose snooze has ended read \`ordering_on\`. ${HOURS}`,
      },
    })
    .put('/settings', ({ db, actor, query, body }) => putSettings(db, actor, query.locationId, body), {
      permission: 'shipping:write',
      query: SettingsQuery,
      body: PutOffPremiseSettings,
      response: OffPremiseSettings,
      detail: {
        summary: 'Change a location’s off-premise settings',
        description: `Partial: fields not sent keep their value; each \`onlineOrderingHours\` list sent replaces that list; \`thirdPartyChannels\` replaces the channels (an entry with an existing \`id\` keeps that channel and its status; new channels start \`ordering_on\`; status changes go through the control route). Minutes 0..1440, lead time 0..720 hours. ${HOURS}`,
      },
    })
    .post(
      '/channels/:channelId/control',
      ({ db, actor, query, params, body }) =>
        controlChannel(db, actor, query.locationId, params.channelId, body),
      {
        permission: 'shipping:write',
        query: SettingsQuery,
        params: ChannelParams,
        body: ChannelControl,
        response: OffPremiseSettings,
        detail: {
          summary: 'Turn a channel on, off, or snooze it',
          description:
            '`ordering_on`, `ordering_off`, or `snooze` with `snoozeUntil` (future, within 7 days), for the whole channel or only one of its enabled `fulfillmentMode`s. A snoozed channel or mode turns itself back on at `snoozeUntil` (reads show it on at once; the `off-premise.snooze-expiry` job records it). Turning the whole channel on also turns each of its modes on. A channel of another location is 404.',
        },
      },
    )
