// The quote engine: from a location's off-premise settings, the order's channel and mode, the
// instant and (for scheduled orders) the requested time, either the order's `offPremise.quote`
// or the reason the order is refused. Pure: the caller supplies the time and the pacing load.
import { withinHours } from './hours'
import type { ChannelMode, OffPremiseSettingsRow, QuoteValue } from './schema'
import { type ChannelState, statusFor } from './snooze'

export type QuoteSettings = Pick<
  OffPremiseSettingsRow,
  | 'quoteTimeStrategy'
  | 'takeoutQuoteMinutes'
  | 'deliveryQuoteMinutes'
  | 'takeoutThrottlingMinutes'
  | 'deliveryThrottlingMinutes'
  | 'firstPartyDeliveryEnabled'
  | 'allowScheduledOrders'
  | 'leadTimeHours'
  | 'onlineOrderingHours'
>

export interface QuoteRequest {
  mode: ChannelMode
  /** Third-party orders name the channel they came through. */
  channel:
    | { kind: 'first_party' }
    | { kind: 'third_party'; state: ChannelState & { id: string; acceptsScheduledOrders: boolean } }
  now: Date
  scheduledFor: Date | null
  timeZone: string
  /** The latest promised time of the location's ASAP first-party orders of this mode still in preparation. */
  latestPromised: Date | null
}

export type RefusalReason =
  | 'channel_not_ordering'
  | 'first_party_delivery_disabled'
  | 'scheduled_orders_not_accepted'
  | 'minimum_lead_time_not_met'
  | 'outside_ordering_hours'

export type QuoteOutcome =
  | { ok: true; quote: QuoteValue }
  | { ok: false; reason: RefusalReason; detail: string; extensions: Record<string, unknown> }

const MINUTE = 60_000
const HOUR = 60 * MINUTE

const refuse = (
  reason: RefusalReason,
  detail: string,
  extensions: Record<string, unknown> = {},
): QuoteOutcome => ({ ok: false, reason, detail, extensions: { reason, ...extensions } })

/**
 * Rules, in order:
 * 1. A third-party order needs its channel ordering for the mode (not off, not snoozed); a
 *    first-party delivery needs `firstPartyDeliveryEnabled`.
 * 2. A scheduled order needs `allowScheduledOrders` (first party) or the channel's
 *    `acceptsScheduledOrders` (third party). `minimumLeadTimeSatisfied`: scheduledFor − now ≥
 *    leadTimeHours; first-party orders that miss it are refused, third-party ones (the partner
 *    promised the time) are taken and recorded with false. ASAP orders satisfy it.
 * 3. The ordering hours (`firstPartyDelivery` for first-party delivery, `takeoutThirdParty` for
 *    the rest) must hold the order time: `scheduledFor`, or now for ASAP orders.
 * 4. Promised time: `scheduledFor` for scheduled orders; else now + the mode's quote minutes and,
 *    with strategy `throttled`, paced: at least the mode's throttling minutes after the latest
 *    promised ASAP order still in preparation (`throttlingAppliedMinutes` is the whole minutes
 *    added). Third-party orders are exempt from quoting (`quoteExemptionReason`
 *    `third_party_channel`): their promise is now (ASAP) or `scheduledFor`.
 */
export function quoteOrder(settings: QuoteSettings, request: QuoteRequest): QuoteOutcome {
  const { mode, now, scheduledFor } = request
  const thirdParty = request.channel.kind === 'third_party'
  if (request.channel.kind === 'third_party') {
    const channel = request.channel.state
    const status = statusFor(channel, mode, now)
    if (status.status !== 'ordering_on')
      return refuse(
        'channel_not_ordering',
        `channel ${channel.id} is not taking ${mode} orders (${status.status}${status.snoozeUntil ? ` until ${status.snoozeUntil}` : ''})`,
        {
          channelId: channel.id,
          channelStatus: status.status,
          snoozeUntil: status.snoozeUntil,
          scope: status.scope,
        },
      )
    if (scheduledFor && !channel.acceptsScheduledOrders)
      return refuse(
        'scheduled_orders_not_accepted',
        `channel ${channel.id} does not accept scheduled orders`,
        {
          channelId: channel.id,
        },
      )
  } else {
    if (mode === 'delivery' && !settings.firstPartyDeliveryEnabled)
      return refuse('first_party_delivery_disabled', 'first-party delivery is not enabled at this location')
    if (scheduledFor && !settings.allowScheduledOrders)
      return refuse('scheduled_orders_not_accepted', 'this location does not accept scheduled orders')
  }

  const leadTimeMs = settings.leadTimeHours * HOUR
  const minimumLeadTimeSatisfied = scheduledFor ? scheduledFor.getTime() - now.getTime() >= leadTimeMs : true
  if (!minimumLeadTimeSatisfied && !thirdParty)
    return refuse(
      'minimum_lead_time_not_met',
      `scheduled orders need at least ${settings.leadTimeHours} hour(s) of lead time`,
      {
        leadTimeHours: settings.leadTimeHours,
        earliestScheduledFor: new Date(now.getTime() + leadTimeMs).toISOString(),
      },
    )

  const windows =
    mode === 'delivery' && !thirdParty
      ? settings.onlineOrderingHours.firstPartyDelivery
      : settings.onlineOrderingHours.takeoutThirdParty
  const orderTime = scheduledFor ?? now
  if (!withinHours(windows, orderTime, request.timeZone))
    return refuse(
      'outside_ordering_hours',
      `${orderTime.toISOString()} is outside the configured ordering hours (${request.timeZone})`,
      { at: orderTime.toISOString(), timeZone: request.timeZone, windows },
    )

  const quoteMinutes = mode === 'delivery' ? settings.deliveryQuoteMinutes : settings.takeoutQuoteMinutes
  const throttling =
    mode === 'delivery' ? settings.deliveryThrottlingMinutes : settings.takeoutThrottlingMinutes
  const quoteTimeApplies = !thirdParty && !scheduledFor
  let throttlingAppliedMinutes = 0
  let promised: Date
  if (scheduledFor) promised = scheduledFor
  else if (thirdParty) promised = now
  else {
    const base = now.getTime() + quoteMinutes * MINUTE
    if (settings.quoteTimeStrategy === 'throttled' && throttling > 0 && request.latestPromised) {
      const earliest = request.latestPromised.getTime() + throttling * MINUTE
      throttlingAppliedMinutes = Math.max(0, Math.ceil((earliest - base) / MINUTE))
    }
    promised = new Date(base + throttlingAppliedMinutes * MINUTE)
  }
  return {
    ok: true,
    quote: {
      strategy: settings.quoteTimeStrategy,
      quoteTimeApplies,
      quotedAt: now.toISOString(),
      scheduledFor: scheduledFor?.toISOString() ?? null,
      promisedFulfillmentAt: promised.toISOString(),
      takeoutQuoteMinutes: settings.takeoutQuoteMinutes,
      deliveryQuoteMinutes: settings.deliveryQuoteMinutes,
      takeoutThrottlingMinutes: settings.takeoutThrottlingMinutes,
      deliveryThrottlingMinutes: settings.deliveryThrottlingMinutes,
      throttlingAppliedMinutes,
      leadTimeHours: settings.leadTimeHours,
      minimumLeadTimeSatisfied,
      withinConfiguredOrderingHours: true,
      quoteExemptionReason: thirdParty ? 'third_party_channel' : null,
    },
  }
}
