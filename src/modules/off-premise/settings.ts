// Off-premise settings, one per location (the defaults until first saved), their third-party
// channels, and channel control (on, off, snooze until an instant).
import { and, asc, eq, isNotNull, lte } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { ApiError, invalid, notFound } from '../../platform/foundation/problem'
import { earliestInstant, type NextWork } from '../../platform/jobs/next-work'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { getLocation } from '../locations'
import { windowProblems } from './hours'
import type { ChannelControlInput, OffPremiseSettingsView, PutOffPremiseSettingsInput } from './model'
import {
  type ChannelMode,
  type OffPremiseChannelRow,
  type OffPremiseSettingsRow,
  offPremiseChannels,
  offPremiseSettings,
} from './schema'
import { nextSnoozeEnd, resolveSnoozes } from './snooze'

const SNOOZE_MAX_MS = 7 * 24 * 60 * 60 * 1000

export const defaultSettings = {
  quoteTimeStrategy: 'manual',
  takeoutQuoteMinutes: 20,
  deliveryQuoteMinutes: 45,
  takeoutThrottlingMinutes: 0,
  deliveryThrottlingMinutes: 0,
  firstPartyDeliveryEnabled: false,
  allowScheduledOrders: true,
  batchReadyEnabled: false,
  guestMessagingEnabled: true,
  leadTimeHours: 0,
  dispatchAssignmentMode: 'manual',
  onlineOrderingHours: { takeoutThirdParty: [], firstPartyDelivery: [] },
} as const satisfies Partial<OffPremiseSettingsRow>

export const channelsOf = (db: Queryable, locationId: string): OffPremiseChannelRow[] =>
  db
    .select()
    .from(offPremiseChannels)
    .where(eq(offPremiseChannels.locationId, locationId))
    .orderBy(asc(offPremiseChannels.position))
    .all()

const findSettings = (db: Queryable, locationId: string) =>
  db.select().from(offPremiseSettings).where(eq(offPremiseSettings.locationId, locationId)).get()

/** A location's defaults, with hours lists of its own (never shared between values). */
const defaultsFor = (locationId: string): Omit<OffPremiseSettingsRow, 'id' | 'createdAt' | 'updatedAt'> => ({
  locationId,
  ...defaultSettings,
  onlineOrderingHours: { takeoutThirdParty: [], firstPartyDelivery: [] },
})

/** The settings as stored, or the defaults (with no id) when the location has none yet. */
export function settingsOrDefaults(
  db: Queryable,
  locationId: string,
): Omit<OffPremiseSettingsRow, 'id' | 'createdAt' | 'updatedAt'> {
  return findSettings(db, locationId) ?? defaultsFor(locationId)
}

/** Saved settings, or the defaults of a location that never saved any (no id, no timestamps). */
type StoredOrDefaultSettings =
  | OffPremiseSettingsRow
  | (Omit<OffPremiseSettingsRow, 'id' | 'createdAt' | 'updatedAt'> & {
      id: null
      createdAt: null
      updatedAt: null
    })

export function presentSettings(
  row: StoredOrDefaultSettings,
  channels: OffPremiseChannelRow[],
  now = new Date(),
): OffPremiseSettingsView {
  return {
    ...row,
    thirdPartyChannels: channels.map((c) => {
      const {
        locationId: _l,
        position: _p,
        nextSnoozeEndsAt: _n,
        changed: _c,
        ...channel
      } = resolveSnoozes(c, now)
      return channel
    }),
  }
}

function ensureSettings(tx: Queryable, actor: Actor, locationId: string): OffPremiseSettingsRow {
  const existing = findSettings(tx, locationId)
  if (existing) return existing
  const now = nowIso()
  const row = tx
    .insert(offPremiseSettings)
    .values({
      id: newId(),
      ...defaultsFor(locationId),
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get()
  recordWrite(tx, actor, {
    action: 'off_premise.settings.create',
    entityType: 'off_premise_settings',
    entityId: row.id,
    metadata: { locationId, defaults: true },
  })
  return row
}

/** The location's settings; the defaults (not stored: a read never writes) until first saved. */
export function getSettings(db: Queryable, locationId: string): OffPremiseSettingsView {
  getLocation(db, locationId)
  const settings = findSettings(db, locationId) ?? {
    ...defaultsFor(locationId),
    id: null,
    createdAt: null,
    updatedAt: null,
  }
  return presentSettings(settings, channelsOf(db, locationId))
}

function validateWindows(input: PutOffPremiseSettingsInput) {
  const errors: { path: string; message: string }[] = []
  for (const [list, items] of Object.entries(input.onlineOrderingHours ?? {}))
    items?.forEach((window, i) => {
      for (const [field, message] of windowProblems(window))
        errors.push({ path: `body/onlineOrderingHours/${list}/${i}/${field}`, message })
    })
  const titles = new Set<string>()
  input.thirdPartyChannels?.forEach((c, i) => {
    if (titles.has(c.title.toLowerCase()))
      errors.push({ path: `body/thirdPartyChannels/${i}/title`, message: 'two channels with the same title' })
    titles.add(c.title.toLowerCase())
  })
  if (errors.length > 0) throw new ApiError('validation_failed', 'invalid off-premise settings', { errors })
}

function controlsFor(modes: ChannelMode[], previous: OffPremiseChannelRow['fulfillmentControls']) {
  return modes.map(
    (mode) =>
      previous.find((c) => c.fulfillmentMode === mode) ?? {
        fulfillmentMode: mode,
        status: 'ordering_on' as const,
        snoozeUntil: null,
      },
  )
}

function replaceChannels(
  tx: Queryable,
  locationId: string,
  input: NonNullable<PutOffPremiseSettingsInput['thirdPartyChannels']>,
) {
  const existing = new Map(channelsOf(tx, locationId).map((c) => [c.id, c]))
  input.forEach((c, i) => {
    if (c.id && !existing.has(c.id))
      throw invalid(`body/thirdPartyChannels/${i}/id`, `no channel ${c.id} at this location`)
  })
  const kept = new Set(input.map((c) => c.id).filter(Boolean))
  for (const id of existing.keys())
    if (!kept.has(id)) tx.delete(offPremiseChannels).where(eq(offPremiseChannels.id, id)).run()
  const now = nowIso()
  input.forEach((c, position) => {
    const old = c.id ? existing.get(c.id) : undefined
    const modes = (c.enabledFulfillmentModes ??
      old?.enabledFulfillmentModes ?? ['takeout', 'delivery']) as ChannelMode[]
    const fulfillmentControls = controlsFor(modes, old?.fulfillmentControls ?? [])
    const values = {
      locationId,
      position,
      title: c.title,
      provider: c.provider,
      status: old?.status ?? ('ordering_on' as const),
      snoozeUntil: old?.snoozeUntil ?? null,
      enabledFulfillmentModes: modes,
      acceptsScheduledOrders: c.acceptsScheduledOrders ?? old?.acceptsScheduledOrders ?? false,
      autoAcceptOrders: c.autoAcceptOrders ?? old?.autoAcceptOrders ?? true,
      throttlingMinutes: c.throttlingMinutes ?? old?.throttlingMinutes ?? 0,
      fulfillmentControls,
    }
    const nextSnoozeEndsAt = nextSnoozeEnd(values)
    if (old) {
      const changed =
        JSON.stringify({ ...old, updatedAt: null }) !==
        JSON.stringify({ ...old, ...values, nextSnoozeEndsAt, updatedAt: null })
      tx.update(offPremiseChannels)
        .set({ ...values, nextSnoozeEndsAt, ...(changed ? { updatedAt: now } : {}) })
        .where(eq(offPremiseChannels.id, old.id))
        .run()
    } else
      tx.insert(offPremiseChannels)
        .values({ id: newId(), ...values, nextSnoozeEndsAt, updatedAt: now })
        .run()
  })
}

export function putSettings(
  db: Db,
  actor: Actor,
  locationId: string,
  input: PutOffPremiseSettingsInput,
): OffPremiseSettingsView {
  validateWindows(input)
  return inWriteTransaction(db, (tx) => {
    getLocation(tx, locationId)
    const before = presentSettings(ensureSettings(tx, actor, locationId), channelsOf(tx, locationId))
    const { thirdPartyChannels, onlineOrderingHours, ...fields } = input
    const set: Partial<OffPremiseSettingsRow> = { ...fields }
    if (onlineOrderingHours)
      set.onlineOrderingHours = { ...before.onlineOrderingHours, ...onlineOrderingHours }
    if (thirdPartyChannels) replaceChannels(tx, locationId, thirdPartyChannels)
    if (Object.keys(set).length > 0)
      tx.update(offPremiseSettings).set(set).where(eq(offPremiseSettings.locationId, locationId)).run()
    let after = presentSettings(findSettings(tx, locationId)!, channelsOf(tx, locationId))
    const changes: Record<string, { from: unknown; to: unknown }> = {}
    for (const key of Object.keys(after) as (keyof OffPremiseSettingsView)[])
      if (JSON.stringify(before[key]) !== JSON.stringify(after[key]))
        changes[key] = { from: before[key], to: after[key] }
    if (Object.keys(changes).length === 0) return before
    const updatedAt = nowIso()
    tx.update(offPremiseSettings)
      .set({ updatedAt })
      .where(eq(offPremiseSettings.locationId, locationId))
      .run()
    after = { ...after, updatedAt }
    recordWrite(tx, actor, {
      action: 'off_premise.settings.update',
      entityType: 'off_premise_settings',
      entityId: after.id,
      metadata: { locationId, changes },
      event: after,
    })
    return after
  })
}

function validateControl(input: ChannelControlInput, now: Date) {
  if (input.action !== 'snooze') {
    if (input.snoozeUntil !== undefined) throw invalid('body/snoozeUntil', 'only with action snooze')
    return
  }
  if (!input.snoozeUntil) throw invalid('body/snoozeUntil', 'required with action snooze')
  const until = Date.parse(input.snoozeUntil)
  if (until <= now.getTime()) throw invalid('body/snoozeUntil', 'must be in the future')
  if (until - now.getTime() > SNOOZE_MAX_MS) throw invalid('body/snoozeUntil', 'at most 7 days ahead')
}

/**
 * `ordering_on`, `ordering_off`, or `snooze` until an instant, for the whole channel or one of
 * its enabled modes. Turning the whole channel on also turns on each of its modes.
 */
export function controlChannel(
  db: Db,
  actor: Actor,
  locationId: string,
  channelId: string,
  input: ChannelControlInput,
  now = new Date(),
): OffPremiseSettingsView {
  validateControl(input, now)
  return inWriteTransaction(db, (tx) => {
    getLocation(tx, locationId)
    ensureSettings(tx, actor, locationId)
    const channel = tx
      .select()
      .from(offPremiseChannels)
      .where(and(eq(offPremiseChannels.id, channelId), eq(offPremiseChannels.locationId, locationId)))
      .get()
    if (!channel) throw notFound('channel', channelId)
    const current = resolveSnoozes(channel, now)
    const status = input.action === 'snooze' ? ('snoozed' as const) : input.action
    const snoozeUntil = input.action === 'snooze' ? new Date(input.snoozeUntil!).toISOString() : null
    let next = { ...current, status: current.status, snoozeUntil: current.snoozeUntil }
    if (input.fulfillmentMode) {
      const mode = input.fulfillmentMode
      if (!current.enabledFulfillmentModes.includes(mode))
        throw invalid('body/fulfillmentMode', `the channel does not take ${mode} orders`)
      next.fulfillmentControls = current.fulfillmentControls.map((c) =>
        c.fulfillmentMode === mode ? { ...c, status, snoozeUntil } : c,
      )
    } else {
      next = { ...next, status, snoozeUntil }
      if (status === 'ordering_on')
        next.fulfillmentControls = current.fulfillmentControls.map((c) => ({
          ...c,
          status: 'ordering_on' as const,
          snoozeUntil: null,
        }))
    }
    const updatedAt = nowIso()
    tx.update(offPremiseChannels)
      .set({
        status: next.status,
        snoozeUntil: next.snoozeUntil,
        fulfillmentControls: next.fulfillmentControls,
        nextSnoozeEndsAt: nextSnoozeEnd(next),
        updatedAt,
      })
      .where(eq(offPremiseChannels.id, channelId))
      .run()
    const view = presentSettings(findSettings(tx, locationId)!, channelsOf(tx, locationId), now)
    const payload = view.thirdPartyChannels.find((c) => c.id === channelId)!
    recordWrite(tx, actor, {
      action: 'off_premise.channel.control',
      entityType: 'off_premise_channel',
      entityId: channelId,
      metadata: {
        locationId,
        action: input.action,
        fulfillmentMode: input.fulfillmentMode ?? null,
        snoozeUntil,
        before: {
          status: channel.status,
          snoozeUntil: channel.snoozeUntil,
          fulfillmentControls: channel.fulfillmentControls,
        },
      },
      events: [{ object: 'off_premise_channel', action: 'update', aggregateId: channelId, payload }],
    })
    return view
  })
}

/** When the next snooze of any channel ends (the snooze-expiry job's next work); null when none. */
export const earliestSnoozeEnd = (db: Queryable): NextWork =>
  earliestInstant(db, {
    key: 'off-premise-snooze-end',
    table: offPremiseChannels,
    column: offPremiseChannels.nextSnoozeEndsAt,
  })

/**
 * Persists the end of every snooze that has run out by `now` (the scheduler calls this per
 * tenant; reads already show ended snoozes as on). Answers how many channels woke up.
 */
export function endDueSnoozes(db: Db, actor: Actor, now = new Date()): number {
  return inWriteTransaction(db, (tx) => {
    const due = tx
      .select()
      .from(offPremiseChannels)
      .where(
        and(
          isNotNull(offPremiseChannels.nextSnoozeEndsAt),
          lte(offPremiseChannels.nextSnoozeEndsAt, now.toISOString()),
        ),
      )
      .all()
    for (const channel of due) {
      const woken = resolveSnoozes(channel, now)
      const updatedAt = nowIso()
      tx.update(offPremiseChannels)
        .set({
          status: woken.status,
          snoozeUntil: woken.snoozeUntil,
          fulfillmentControls: woken.fulfillmentControls,
          nextSnoozeEndsAt: nextSnoozeEnd(woken),
          updatedAt,
        })
        .where(eq(offPremiseChannels.id, channel.id))
        .run()
      const {
        locationId: _l,
        position: _p,
        nextSnoozeEndsAt: _n,
        changed: _c,
        ...payload
      } = { ...woken, updatedAt }
      recordWrite(tx, actor, {
        action: 'off_premise.channel.snooze_end',
        entityType: 'off_premise_channel',
        entityId: channel.id,
        metadata: { locationId: channel.locationId, snoozeUntil: channel.nextSnoozeEndsAt },
        events: [{ object: 'off_premise_channel', action: 'update', aggregateId: channel.id, payload }],
      })
    }
    return due.length
  })
}
