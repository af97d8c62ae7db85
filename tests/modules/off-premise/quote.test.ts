// Ordering windows across time zones and midnight, and the quote engine, as pure functions.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { inWindow, localTime, windowProblems, withinHours } from '../../../src/modules/off-premise/hours'
import { type QuoteRequest, type QuoteSettings, quoteOrder } from '../../../src/modules/off-premise/quote'
import { type WindowValue, weekdays } from '../../../src/modules/off-premise/schema'
import type { ChannelState } from '../../../src/modules/off-premise/snooze'

const LA = 'America/Los_Angeles'
const late: WindowValue = { day: 'fri', startTime: '22:00', endTime: '02:00' }

describe('ordering hours', () => {
  test('local day and time follow the zone (and its daylight saving)', () => {
    // 2025-06-07T08:30Z is Saturday 01:30 in Los Angeles (PDT, -7) and Saturday 17:30 in Tokyo.
    expect(localTime(new Date('2025-06-07T08:30:00Z'), LA)).toEqual({ day: 'sat', minutes: 90 })
    expect(localTime(new Date('2025-06-07T08:30:00Z'), 'Asia/Tokyo')).toEqual({
      day: 'sat',
      minutes: 17 * 60 + 30,
    })
    // In January Los Angeles is PST (-8): the same UTC time of day is an hour earlier locally.
    expect(localTime(new Date('2025-01-11T08:30:00Z'), LA)).toEqual({ day: 'sat', minutes: 30 })
  })

  test('a window past midnight: Friday 22:00 to Saturday 02:00, start inclusive, end exclusive', () => {
    const at = (iso: string) => withinHours([late], new Date(iso), LA)
    expect(at('2025-06-07T04:59:00Z')).toBe(false) // Fri 21:59
    expect(at('2025-06-07T05:00:00Z')).toBe(true) // Fri 22:00
    expect(at('2025-06-07T08:30:00Z')).toBe(true) // Sat 01:30
    expect(at('2025-06-07T08:59:00Z')).toBe(true) // Sat 01:59
    expect(at('2025-06-07T09:00:00Z')).toBe(false) // Sat 02:00
    expect(at('2025-06-06T05:30:00Z')).toBe(false) // Thu 22:30: the window is Friday's
    expect(at('2025-06-06T08:30:00Z')).toBe(false) // Fri 01:30: Thursday has no window
  })

  test('the same instant is in hours in one zone and not in another', () => {
    const lunch: WindowValue = { day: 'fri', startTime: '11:00', endTime: '14:00' }
    const instant = new Date('2025-06-06T19:00:00Z') // Fri 12:00 in LA, Fri 15:00 in New York
    expect(withinHours([lunch], instant, LA)).toBe(true)
    expect(withinHours([lunch], instant, 'America/New_York')).toBe(false)
  })

  test('Sunday night into Monday wraps the week; 24:00 ends the day; no windows means any time', () => {
    const sunday: WindowValue = { day: 'sun', startTime: '23:00', endTime: '01:00' }
    expect(inWindow(sunday, { day: 'mon', minutes: 30 })).toBe(true)
    expect(inWindow(sunday, { day: 'sat', minutes: 30 })).toBe(false)
    const allDay: WindowValue = { day: 'tue', startTime: '00:00', endTime: '24:00' }
    expect(inWindow(allDay, { day: 'tue', minutes: 1439 })).toBe(true)
    expect(inWindow(allDay, { day: 'wed', minutes: 0 })).toBe(false)
    expect(withinHours([], new Date(), LA)).toBe(true)
  })

  test('window validation', () => {
    expect(windowProblems(late)).toEqual([])
    expect(windowProblems({ day: 'mon', startTime: '10:00', endTime: '10:00' })).toHaveLength(1)
    expect(windowProblems({ day: 'mon', startTime: '24:00', endTime: '10:00' })).toHaveLength(1)
    expect(windowProblems({ day: 'mon', startTime: '10:00', endTime: '25:00' })).toHaveLength(1)
    expect(windowProblems({ day: 'mon', startTime: '9:00', endTime: '10:60' })).toHaveLength(2)
    expect(windowProblems({ day: 'mon', startTime: '00:00', endTime: '24:00' })).toEqual([])
  })

  test('property: a midnight-crossing window is the union of its two same-day parts', () => {
    const hhmm = (m: number) =>
      `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`
    fc.assert(
      fc.property(
        fc.constantFrom(...weekdays),
        fc.integer({ min: 1, max: 1439 }),
        fc.integer({ min: 0, max: 1438 }),
        fc.constantFrom(...weekdays),
        fc.integer({ min: 0, max: 1439 }),
        (day, start, endRaw, atDay, atMinutes) => {
          const end = endRaw % start // end < start: crosses midnight
          const crossing: WindowValue = { day, startTime: hhmm(start), endTime: hhmm(end) }
          const next = weekdays[(weekdays.indexOf(day) + 1) % 7]!
          const parts: WindowValue[] = [
            { day, startTime: hhmm(start), endTime: '24:00' },
            ...(end > 0 ? [{ day: next, startTime: '00:00', endTime: hhmm(end) }] : []),
          ]
          const at = { day: atDay, minutes: atMinutes }
          return inWindow(crossing, at) === parts.some((p) => inWindow(p, at))
        },
      ),
    )
  })
})

const settings = (over: Partial<QuoteSettings> = {}): QuoteSettings => ({
  quoteTimeStrategy: 'manual',
  takeoutQuoteMinutes: 20,
  deliveryQuoteMinutes: 45,
  takeoutThrottlingMinutes: 15,
  deliveryThrottlingMinutes: 10,
  firstPartyDeliveryEnabled: true,
  allowScheduledOrders: true,
  leadTimeHours: 2,
  onlineOrderingHours: { takeoutThirdParty: [], firstPartyDelivery: [] },
  ...over,
})

const now = new Date('2025-06-06T19:00:00Z') // Friday 12:00 in Los Angeles
const asap = (over: Partial<QuoteRequest> = {}): QuoteRequest => ({
  mode: 'takeout',
  channel: { kind: 'first_party' },
  now,
  scheduledFor: null,
  timeZone: LA,
  latestPromised: null,
  ...over,
})
const channel = (over: Partial<ChannelState & { acceptsScheduledOrders: boolean }> = {}) => ({
  kind: 'third_party' as const,
  state: {
    id: 'ch-1',
    status: 'ordering_on' as const,
    snoozeUntil: null,
    enabledFulfillmentModes: ['takeout' as const, 'delivery' as const],
    fulfillmentControls: [],
    acceptsScheduledOrders: false,
    ...over,
  },
})
const minutesLater = (m: number) => new Date(now.getTime() + m * 60_000)

describe('quote engine', () => {
  test('manual: now plus the mode’s quote minutes, no throttling', () => {
    const outcome = quoteOrder(settings(), asap({ latestPromised: minutesLater(30) }))
    expect(outcome).toMatchObject({
      ok: true,
      quote: {
        strategy: 'manual',
        quoteTimeApplies: true,
        quotedAt: now.toISOString(),
        scheduledFor: null,
        promisedFulfillmentAt: minutesLater(20).toISOString(),
        throttlingAppliedMinutes: 0,
        minimumLeadTimeSatisfied: true,
        withinConfiguredOrderingHours: true,
        quoteExemptionReason: null,
      },
    })
    const delivery = quoteOrder(settings(), asap({ mode: 'delivery' }))
    expect(delivery.ok && delivery.quote.promisedFulfillmentAt).toBe(minutesLater(45).toISOString())
  })

  test('throttled: paced 15 minutes after the latest promised takeout (19:30Z → 19:45Z: 25 minutes added)', () => {
    const outcome = quoteOrder(
      settings({ quoteTimeStrategy: 'throttled' }),
      asap({ latestPromised: minutesLater(30) }),
    )
    expect(outcome.ok && outcome.quote).toMatchObject({
      throttlingAppliedMinutes: 25,
      promisedFulfillmentAt: minutesLater(45).toISOString(),
    })
    // Far enough behind: nothing added.
    const idle = quoteOrder(
      settings({ quoteTimeStrategy: 'throttled' }),
      asap({ latestPromised: minutesLater(2) }),
    )
    expect(idle.ok && idle.quote.throttlingAppliedMinutes).toBe(0)
    // Part of a minute rounds up to a whole minute.
    const partial = quoteOrder(
      settings({ quoteTimeStrategy: 'throttled' }),
      asap({ latestPromised: new Date(now.getTime() + 5 * 60_000 + 1_000) }),
    )
    expect(partial.ok && partial.quote.throttlingAppliedMinutes).toBe(1)
  })

  test('property: a throttled promise is the earliest whole minute after both the quote and the pacing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 120 }),
        fc.integer({ min: 0, max: 60 }),
        fc.option(fc.integer({ min: -3_600_000, max: 14_400_000 })),
        (quote, throttle, latestOffset) => {
          const s = settings({
            quoteTimeStrategy: 'throttled',
            takeoutQuoteMinutes: quote,
            takeoutThrottlingMinutes: throttle,
          })
          const latest = latestOffset === null ? null : new Date(now.getTime() + latestOffset)
          const outcome = quoteOrder(s, asap({ latestPromised: latest }))
          if (!outcome.ok) return false
          const promised = Date.parse(outcome.quote.promisedFulfillmentAt)
          const base = now.getTime() + quote * 60_000
          const floor = latest && throttle > 0 ? Math.max(base, latest.getTime() + throttle * 60_000) : base
          return (
            promised >= floor &&
            promised - 60_000 < floor &&
            promised === base + outcome.quote.throttlingAppliedMinutes * 60_000
          )
        },
      ),
    )
  })

  test('lead time: a first-party order 1h59 ahead of a 2h lead time is refused; 2h is taken', () => {
    const short = quoteOrder(settings(), asap({ scheduledFor: minutesLater(119) }))
    expect(short).toMatchObject({ ok: false, reason: 'minimum_lead_time_not_met' })
    const enough = quoteOrder(settings(), asap({ scheduledFor: minutesLater(120) }))
    expect(enough.ok && enough.quote).toMatchObject({
      quoteTimeApplies: false,
      scheduledFor: minutesLater(120).toISOString(),
      promisedFulfillmentAt: minutesLater(120).toISOString(),
      minimumLeadTimeSatisfied: true,
    })
    expect(
      quoteOrder(settings({ allowScheduledOrders: false }), asap({ scheduledFor: minutesLater(180) })),
    ).toMatchObject({
      ok: false,
      reason: 'scheduled_orders_not_accepted',
    })
  })

  test('third-party channel: exempt from quoting; lead time recorded, not enforced', () => {
    const outcome = quoteOrder(
      settings({ quoteTimeStrategy: 'throttled' }),
      asap({
        channel: channel({ acceptsScheduledOrders: true }),
        scheduledFor: minutesLater(30),
        latestPromised: minutesLater(60),
      }),
    )
    expect(outcome.ok && outcome.quote).toMatchObject({
      quoteTimeApplies: false,
      quoteExemptionReason: 'third_party_channel',
      minimumLeadTimeSatisfied: false,
      throttlingAppliedMinutes: 0,
      promisedFulfillmentAt: minutesLater(30).toISOString(),
    })
    expect(
      quoteOrder(settings(), asap({ channel: channel(), scheduledFor: minutesLater(300) })),
    ).toMatchObject({
      ok: false,
      reason: 'scheduled_orders_not_accepted',
    })
  })

  test('channels off, snoozed, or off for one mode refuse; an ended snooze takes orders', () => {
    expect(quoteOrder(settings(), asap({ channel: channel({ status: 'ordering_off' }) }))).toMatchObject({
      ok: false,
      reason: 'channel_not_ordering',
      extensions: { channelStatus: 'ordering_off' },
    })
    const until = minutesLater(30).toISOString()
    expect(
      quoteOrder(settings(), asap({ channel: channel({ status: 'snoozed', snoozeUntil: until }) })),
    ).toMatchObject({
      ok: false,
      extensions: { channelStatus: 'snoozed', snoozeUntil: until },
    })
    const ended = minutesLater(-1).toISOString()
    expect(
      quoteOrder(settings(), asap({ channel: channel({ status: 'snoozed', snoozeUntil: ended }) })).ok,
    ).toBe(true)
    const deliveryOff = channel({
      fulfillmentControls: [{ fulfillmentMode: 'delivery', status: 'ordering_off', snoozeUntil: null }],
    })
    expect(quoteOrder(settings(), asap({ channel: deliveryOff, mode: 'delivery' })).ok).toBe(false)
    expect(quoteOrder(settings(), asap({ channel: deliveryOff, mode: 'takeout' })).ok).toBe(true)
    expect(
      quoteOrder(
        settings(),
        asap({ channel: channel({ enabledFulfillmentModes: ['takeout'] }), mode: 'delivery' }),
      ).ok,
    ).toBe(false)
  })

  test('hours: first-party delivery uses its own windows; scheduled orders are checked at their time', () => {
    const hours = {
      takeoutThirdParty: [{ day: 'fri' as const, startTime: '11:00', endTime: '14:00' }],
      firstPartyDelivery: [late],
    }
    const s = settings({ onlineOrderingHours: hours, leadTimeHours: 0 })
    expect(quoteOrder(s, asap()).ok).toBe(true) // takeout Fri 12:00
    expect(quoteOrder(s, asap({ mode: 'delivery' }))).toMatchObject({
      ok: false,
      reason: 'outside_ordering_hours',
    })
    expect(quoteOrder(s, asap({ mode: 'delivery', channel: channel() })).ok).toBe(true) // third-party delivery: takeoutThirdParty
    // Scheduled for Saturday 01:30 local (08:30Z): inside Friday's late window.
    expect(quoteOrder(s, asap({ mode: 'delivery', scheduledFor: new Date('2025-06-07T08:30:00Z') })).ok).toBe(
      true,
    )
    expect(quoteOrder(s, asap({ scheduledFor: new Date('2025-06-07T08:30:00Z') })).ok).toBe(false)
    expect(
      quoteOrder(settings({ firstPartyDeliveryEnabled: false }), asap({ mode: 'delivery' })),
    ).toMatchObject({
      ok: false,
      reason: 'first_party_delivery_disabled',
    })
  })
})
