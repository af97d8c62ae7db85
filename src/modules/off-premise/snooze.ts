// Channel status with snoozes, as pure functions: what a channel's status is at an instant (a
// snooze that has ended counts as `ordering_on`), and when its next snooze ends.
import type { ChannelMode, ChannelStatus, FulfillmentControlValue } from './schema'

export interface ChannelState {
  status: ChannelStatus
  snoozeUntil: string | null
  enabledFulfillmentModes: ChannelMode[]
  fulfillmentControls: FulfillmentControlValue[]
}

const ended = (status: ChannelStatus, until: string | null, now: Date) =>
  status === 'snoozed' && until !== null && Date.parse(until) <= now.getTime()

/** The channel as it is at `now`: ended snoozes turned back to `ordering_on`; `changed` if any did. */
export function resolveSnoozes<T extends ChannelState>(channel: T, now: Date): T & { changed: boolean } {
  let changed = false
  const wake = <S extends { status: ChannelStatus; snoozeUntil: string | null }>(s: S): S => {
    if (!ended(s.status, s.snoozeUntil, now)) return s
    changed = true
    return { ...s, status: 'ordering_on', snoozeUntil: null }
  }
  const top = wake({ status: channel.status, snoozeUntil: channel.snoozeUntil })
  const fulfillmentControls = channel.fulfillmentControls.map(wake)
  return { ...channel, ...top, fulfillmentControls, changed }
}

/** The earliest end among the channel's and its controls' snoozes, or null. */
export function nextSnoozeEnd(channel: ChannelState): string | null {
  const ends = [channel, ...channel.fulfillmentControls]
    .filter((s) => s.status === 'snoozed' && s.snoozeUntil)
    .map((s) => s.snoozeUntil!)
    .sort()
  return ends[0] ?? null
}

/**
 * Whether the channel takes orders of a fulfillment mode at `now`: the mode must be enabled,
 * the channel on, and the mode's own control (if any) on. Answers the status that decides it.
 */
export function statusFor(
  channel: ChannelState,
  mode: ChannelMode,
  now: Date,
): { status: ChannelStatus; snoozeUntil: string | null; scope: 'channel' | 'mode' } {
  const current = resolveSnoozes(channel, now)
  if (!current.enabledFulfillmentModes.includes(mode))
    return { status: 'ordering_off', snoozeUntil: null, scope: 'mode' }
  if (current.status !== 'ordering_on')
    return { status: current.status, snoozeUntil: current.snoozeUntil, scope: 'channel' }
  const control = current.fulfillmentControls.find((c) => c.fulfillmentMode === mode)
  if (control && control.status !== 'ordering_on')
    return { status: control.status, snoozeUntil: control.snoozeUntil, scope: 'mode' }
  return { status: 'ordering_on', snoozeUntil: null, scope: 'channel' }
}
