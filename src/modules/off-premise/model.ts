// TypeBox schemas of off-premise settings, channels and channel control.
import { t } from 'elysia'
import { bool, int, oneOf } from '../../platform/foundation/types'
import {
  channelModes,
  channelStatuses,
  dispatchAssignmentModes,
  quoteTimeStrategies,
  weekdays,
} from './schema'

const text = (max: number, description?: string) => t.String({ minLength: 1, maxLength: max, description })
const minutes = (description: string) => int({ minimum: 0, maximum: 1440, description })

export const Window = t.Object(
  {
    day: oneOf(weekdays),
    startTime: t.String({ pattern: '^\\d{2}:\\d{2}$', description: '`HH:MM`, local time of the location.' }),
    endTime: t.String({
      pattern: '^\\d{2}:\\d{2}$',
      description:
        '`HH:MM` local time, exclusive; `24:00` is the end of the day. Before `startTime`: the window runs past midnight into the next day.',
    }),
  },
  { additionalProperties: false },
)

const windows = t.Array(Window, { maxItems: 100 })

export const OrderingHours = t.Object({ takeoutThirdParty: windows, firstPartyDelivery: windows })

const FulfillmentControl = t.Object({
  fulfillmentMode: oneOf(channelModes),
  status: oneOf(channelStatuses),
  snoozeUntil: t.Nullable(t.String({ format: 'date-time' })),
})

export const Channel = t.Object({
  id: t.String({ format: 'uuid' }),
  title: t.String(),
  provider: t.String(),
  status: oneOf(channelStatuses, {
    description: 'As of the response: a snooze that has ended reads `ordering_on`.',
  }),
  snoozeUntil: t.Nullable(t.String({ format: 'date-time' })),
  enabledFulfillmentModes: t.Array(oneOf(channelModes)),
  acceptsScheduledOrders: t.Boolean(),
  autoAcceptOrders: t.Boolean(),
  throttlingMinutes: t.Integer(),
  fulfillmentControls: t.Array(FulfillmentControl),
  updatedAt: t.String({ format: 'date-time' }),
})

export const OffPremiseSettings = t.Object(
  {
    id: t.Nullable(t.String({ format: 'uuid', description: 'null until the settings are first saved.' })),
    locationId: t.String(),
    quoteTimeStrategy: oneOf(quoteTimeStrategies),
    takeoutQuoteMinutes: t.Integer(),
    deliveryQuoteMinutes: t.Integer(),
    takeoutThrottlingMinutes: t.Integer(),
    deliveryThrottlingMinutes: t.Integer(),
    firstPartyDeliveryEnabled: t.Boolean(),
    allowScheduledOrders: t.Boolean(),
    batchReadyEnabled: t.Boolean(),
    guestMessagingEnabled: t.Boolean(),
    leadTimeHours: t.Integer(),
    dispatchAssignmentMode: oneOf(dispatchAssignmentModes),
    onlineOrderingHours: OrderingHours,
    thirdPartyChannels: t.Array(Channel),
    createdAt: t.Nullable(t.String({ format: 'date-time', description: 'null until first saved.' })),
    updatedAt: t.Nullable(t.String({ format: 'date-time', description: 'null until first saved.' })),
  },
  {
    description:
      'How a location takes takeout and delivery orders. One per location; a location that never saved its own reads the defaults.',
  },
)

const ChannelInput = t.Object(
  {
    id: t.Optional(
      t.String({ format: 'uuid', description: 'An existing channel’s id keeps it (and its status).' }),
    ),
    title: text(200),
    provider: text(100, 'e.g. `doordash`, `ubereats`, `grubhub`.'),
    enabledFulfillmentModes: t.Optional(
      t.Array(oneOf(channelModes), {
        minItems: 1,
        maxItems: channelModes.length,
        uniqueItems: true,
        description: 'Default both.',
      }),
    ),
    acceptsScheduledOrders: t.Optional(bool({ description: 'Default false.' })),
    autoAcceptOrders: t.Optional(bool({ description: 'Default true.' })),
    throttlingMinutes: t.Optional(minutes('Default 0. Kept for the partner integration.')),
  },
  { additionalProperties: false },
)

export const PutOffPremiseSettings = t.Object(
  {
    quoteTimeStrategy: t.Optional(
      oneOf(quoteTimeStrategies, {
        description:
          '`manual`: promise = now + quote minutes. `throttled`: also paced at least the throttling minutes after the latest promised ASAP order of the mode still in preparation.',
      }),
    ),
    takeoutQuoteMinutes: t.Optional(minutes('Minutes from order to ready, takeout.')),
    deliveryQuoteMinutes: t.Optional(minutes('Minutes from order to delivered, delivery.')),
    takeoutThrottlingMinutes: t.Optional(minutes('Pacing between takeout promises (strategy throttled).')),
    deliveryThrottlingMinutes: t.Optional(minutes('Pacing between delivery promises (strategy throttled).')),
    firstPartyDeliveryEnabled: t.Optional(bool()),
    allowScheduledOrders: t.Optional(bool()),
    batchReadyEnabled: t.Optional(
      bool({ description: 'Allows marking a whole staging batch ready at once.' }),
    ),
    guestMessagingEnabled: t.Optional(bool({ description: 'Queue guest notifications (order ready...).' })),
    leadTimeHours: t.Optional(
      int({ minimum: 0, maximum: 720, description: 'Minimum lead time of scheduled orders.' }),
    ),
    dispatchAssignmentMode: t.Optional(
      oneOf(dispatchAssignmentModes, {
        description:
          '`manual`: dispatch to a staff driver or a courier; `staff_drivers` or `couriers`: only that.',
      }),
    ),
    onlineOrderingHours: t.Optional(
      t.Object(
        { takeoutThirdParty: t.Optional(windows), firstPartyDelivery: t.Optional(windows) },
        { additionalProperties: false, description: 'Each list sent replaces that list.' },
      ),
    ),
    thirdPartyChannels: t.Optional(
      t.Array(ChannelInput, { maxItems: 50, description: 'Replaces the list of channels.' }),
    ),
  },
  { additionalProperties: false },
)

export const SettingsQuery = t.Object({ locationId: t.String({ minLength: 1, maxLength: 200 }) })

export const ChannelParams = t.Object({ channelId: t.String({ minLength: 1, maxLength: 200 }) })

export const ChannelControl = t.Object(
  {
    action: oneOf(['ordering_on', 'ordering_off', 'snooze'] as const),
    snoozeUntil: t.Optional(
      t.String({
        format: 'date-time',
        description: 'Required with `snooze`: a future instant, within 7 days.',
      }),
    ),
    fulfillmentMode: t.Optional(
      oneOf(channelModes, { description: 'Only this mode of the channel; default the whole channel.' }),
    ),
  },
  { additionalProperties: false },
)

export type PutOffPremiseSettingsInput = typeof PutOffPremiseSettings.static
export type ChannelControlInput = typeof ChannelControl.static
export type OffPremiseSettingsView = typeof OffPremiseSettings.static
