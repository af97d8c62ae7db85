// Gift card settings: one row per tenant, stored by the first PUT; reads answer the defaults until then.
import { eq } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { isRoleName, type RoleGrant, type RoleName } from '../../platform/auth/permissions'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { conflict, invalid } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { roleGrantsOf } from '../staff'
import type { GiftCardSettingsInput } from './model'
import { type GiftCardSettingsRow, type GiftCardType, giftCardSettings } from './schema'

export type GiftCardSettings = Omit<GiftCardSettingsRow, 'id' | 'updatedAt'>

/** What a new tenant starts with: cards on, cash out off (manager only when turned on), 0 = no limit. */
export const defaultGiftCardSettings: GiftCardSettings = {
  enabled: true,
  tipsEnabled: false,
  cashOutEnabled: false,
  cashOutThreshold: 0,
  cashOutPermission: 'manager',
  allowDiscounts: false,
  allowOnlineRedemption: true,
  sharedAcrossLocations: true,
  minimumPurchaseAmount: 0,
  digitalPurchaseLimit: 0,
  physicalPurchaseLimit: 0,
}

const present = ({ id: _id, updatedAt: _u, ...settings }: GiftCardSettingsRow): GiftCardSettings => settings

export function getGiftCardSettings(db: Queryable): GiftCardSettings {
  const row = db.select().from(giftCardSettings).where(eq(giftCardSettings.id, 1)).get()
  return row ? present(row) : { ...defaultGiftCardSettings }
}

export function putGiftCardSettings(db: Db, actor: Actor, input: GiftCardSettingsInput): GiftCardSettings {
  if (!isRoleName(input.cashOutPermission)) {
    throw invalid('body/cashOutPermission', `"${input.cashOutPermission}" is not a role`)
  }
  return inWriteTransaction(db, (tx) => {
    const before = getGiftCardSettings(tx)
    const changes = diffFields(before, input)
    const values = { ...input, updatedAt: nowIso() }
    const row = tx
      .insert(giftCardSettings)
      .values({ id: 1, ...values })
      .onConflictDoUpdate({ target: giftCardSettings.id, set: values })
      .returning()
      .get()
    const settings = present(row)
    recordWrite(tx, actor, {
      action: 'gift_card_settings.update',
      entityType: 'gift_card_settings',
      entityId: null,
      metadata: { changes },
      event: settings,
    })
    return settings
  })
}

/** Refuses new value on cards while gift cards are turned off. */
export function assertEnabled(settings: GiftCardSettings) {
  if (!settings.enabled)
    throw conflict('gift cards are turned off in the gift card settings', { enabled: false })
}

/** Purchase (activation, load, sale) amount rules; limits of 0 mean "no limit". */
export function assertPurchaseAmount(
  settings: GiftCardSettings,
  type: GiftCardType,
  amount: number,
  path: string,
) {
  if (settings.minimumPurchaseAmount > 0 && amount < settings.minimumPurchaseAmount) {
    throw invalid(path, `the minimum gift card purchase is ${settings.minimumPurchaseAmount}`)
  }
  const limit = type === 'Physical' ? settings.physicalPurchaseLimit : settings.digitalPurchaseLimit
  if (limit > 0 && amount > limit) {
    throw invalid(
      path,
      `the ${type === 'Physical' ? 'physical' : 'digital'} gift card purchase limit is ${limit}`,
    )
  }
}

/** Built-in roles from most to least trusted: holding a role at or above the required one qualifies. */
const roleRank: Record<RoleName, number> = { owner: 3, manager: 2, staff: 1, read_only: 0 }

export function holdsRoleAtLeast(
  grants: readonly RoleGrant[],
  required: string,
  locationId: string | null,
): boolean {
  if (!isRoleName(required)) return false
  return grants.some(
    (g) =>
      (g.locationId === null || g.locationId === locationId) &&
      isRoleName(g.role) &&
      roleRank[g.role] >= roleRank[required],
  )
}

export function actorHoldsRole(tx: Queryable, actor: Actor, required: string): boolean {
  if (actor.kind === 'system') return true
  if (!actor.staffUserId) return false
  return holdsRoleAtLeast(roleGrantsOf(tx, actor.staffUserId), required, actor.locationId)
}
