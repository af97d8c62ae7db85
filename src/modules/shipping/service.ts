// Shipping configurations: CRUD over a configuration with its regions and services, and rate
// quotes for a weight and destination.
import { and, asc, count, eq, inArray, isNull, or, sql } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { ApiError, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { CreateShippingInput, ShippingView, UpdateShippingInput } from './model'
import { rateProblems, shippingPrice, toMilli } from './rates'
import {
  type ShippingConfigurationRow,
  type ShippingServiceRow,
  shippingConfigurations,
  shippingRegions,
  shippingServices,
  type WeightUnit,
} from './schema'

type RegionsInput = CreateShippingInput['regions']
type ServicesInput = CreateShippingInput['services']

function present(
  row: ShippingConfigurationRow,
  regions: (typeof shippingRegions.$inferSelect)[],
  services: ShippingServiceRow[],
): ShippingView {
  return {
    ...row,
    regions: regions.map((r) => ({ id: r.id, countryCode: r.countryCode, stateCode: r.stateCode })),
    services: services.map(({ configurationId: _c, ...s }) => s),
  }
}

function presentMany(db: Queryable, rows: ShippingConfigurationRow[]): ShippingView[] {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id)
  const regions = db
    .select()
    .from(shippingRegions)
    .where(inArray(shippingRegions.configurationId, ids))
    .orderBy(asc(shippingRegions.position))
    .all()
  const services = db
    .select()
    .from(shippingServices)
    .where(inArray(shippingServices.configurationId, ids))
    .orderBy(asc(shippingServices.sortOrder), asc(shippingServices.id))
    .all()
  return rows.map((row) =>
    present(
      row,
      regions.filter((r) => r.configurationId === row.id),
      services.filter((s) => s.configurationId === row.id),
    ),
  )
}

export function getShipping(db: Queryable, id: string): ShippingView {
  const row = db.select().from(shippingConfigurations).where(eq(shippingConfigurations.id, id)).get()
  if (!row) throw notFound('shipping configuration', id)
  return presentMany(db, [row])[0]!
}

export function listShippings(db: Queryable, query: { q?: string } & PageRequest) {
  const where = searchColumns(query.q, [shippingConfigurations.title])
  const total = db.select({ n: count() }).from(shippingConfigurations).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(shippingConfigurations)
    .where(where)
    .orderBy(asc(sql`lower(${shippingConfigurations.title})`), asc(shippingConfigurations.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { shippings: presentMany(db, rows), total }
}

/** Every problem with the nested lists at once, as one 400; checks what the schema cannot. */
function validateNested(regions: RegionsInput | undefined, services: ServicesInput | undefined) {
  const errors: { path: string; message: string }[] = []
  const places = new Set<string>()
  regions?.forEach((r, i) => {
    const key = `${r.countryCode.toUpperCase()}/${r.stateCode?.toUpperCase() ?? ''}`
    if (places.has(key)) errors.push({ path: `body/regions/${i}`, message: 'the same region twice' })
    places.add(key)
  })
  const codes = new Set<string>()
  let defaults = 0
  services?.forEach((s, i) => {
    const base = `body/services/${i}`
    if (codes.has(s.code.toLowerCase()))
      errors.push({ path: `${base}/code`, message: `code "${s.code}" is used twice` })
    codes.add(s.code.toLowerCase())
    if (s.isDefault) defaults++
    const weights: [string, number][] = [
      ...s.rates.map((r, j): [string, number] => [`${base}/rates/${j}/toWeight`, r.toWeight]),
      ...(s.topRate.forEveryXWeight != null
        ? [[`${base}/topRate/forEveryXWeight`, s.topRate.forEveryXWeight] as [string, number]]
        : []),
    ]
    const badWeights = weights.filter(([, w]) => toMilli(w) === null)
    for (const [path] of badWeights) errors.push({ path, message: 'at most three decimal places' })
    for (const [path, message] of rateProblems(serviceValues(s)))
      errors.push({ path: `${base}/${path}`, message })
  })
  if (defaults > 1) errors.push({ path: 'body/services', message: 'at most one service may be isDefault' })
  if (errors.length > 0) throw new ApiError('validation_failed', 'invalid shipping configuration', { errors })
}

function serviceValues(s: ServicesInput[number], existing?: ShippingServiceRow) {
  const oldRates = new Set(existing?.rates.map((r) => r.id))
  return {
    rates: s.rates.map((r) => ({
      id: r.id && oldRates.has(r.id) ? r.id : newId(),
      toWeight: r.toWeight,
      price: r.price,
      weightUnits: (r.weightUnits ?? 'Lbs') as WeightUnit,
    })),
    topRate: {
      id: s.topRate.id && s.topRate.id === existing?.topRate.id ? s.topRate.id : newId(),
      isWrapShipping: s.topRate.isWrapShipping,
      forEveryXWeight: s.topRate.forEveryXWeight ?? null,
      weightUnits: (s.topRate.weightUnits ?? 'Lbs') as WeightUnit,
      price: s.topRate.price ?? null,
    },
  }
}

function writeRegions(tx: Queryable, configurationId: string, regions: RegionsInput, keep: Set<string>) {
  tx.delete(shippingRegions).where(eq(shippingRegions.configurationId, configurationId)).run()
  regions.forEach((r, position) => {
    tx.insert(shippingRegions)
      .values({
        id: r.id && keep.has(r.id) ? r.id : newId(),
        configurationId,
        position,
        countryCode: r.countryCode.toUpperCase(),
        stateCode: r.stateCode ? r.stateCode.toUpperCase() : null,
      })
      .run()
  })
}

function writeServices(tx: Queryable, configurationId: string, services: ServicesInput) {
  const existing = new Map(
    tx
      .select()
      .from(shippingServices)
      .where(eq(shippingServices.configurationId, configurationId))
      .all()
      .map((s) => [s.id, s]),
  )
  tx.delete(shippingServices).where(eq(shippingServices.configurationId, configurationId)).run()
  services.forEach((s, i) => {
    const old = s.id ? existing.get(s.id) : undefined
    tx.insert(shippingServices)
      .values({
        id: old?.id ?? newId(),
        configurationId,
        title: s.title,
        code: s.code,
        carrier: s.carrier ?? null,
        isActive: s.isActive ?? true,
        isDefault: s.isDefault ?? false,
        sortOrder: s.sortOrder ?? i,
        ...serviceValues(s, old),
      })
      .run()
  })
}

export function createShipping(db: Db, actor: Actor, input: CreateShippingInput): ShippingView {
  validateNested(input.regions, input.services)
  return inWriteTransaction(db, (tx) => {
    const now = nowIso()
    const id = newId()
    tx.insert(shippingConfigurations).values({ id, title: input.title, createdAt: now, updatedAt: now }).run()
    writeRegions(tx, id, input.regions, new Set())
    writeServices(tx, id, input.services)
    const view = getShipping(tx, id)
    recordWrite(tx, actor, {
      action: 'shipping.create',
      entityType: 'shipping_configuration',
      entityId: id,
      metadata: { shipping: view },
      events: [{ object: 'shipping', action: 'create', aggregateId: id, payload: view }],
    })
    return view
  })
}

export function updateShipping(db: Db, actor: Actor, id: string, patch: UpdateShippingInput): ShippingView {
  validateNested(patch.regions, patch.services)
  return inWriteTransaction(db, (tx) => {
    const before = getShipping(tx, id)
    if (patch.title !== undefined && patch.title !== before.title)
      tx.update(shippingConfigurations)
        .set({ title: patch.title })
        .where(eq(shippingConfigurations.id, id))
        .run()
    if (patch.regions) writeRegions(tx, id, patch.regions, new Set(before.regions.map((r) => r.id)))
    if (patch.services) writeServices(tx, id, patch.services)
    const after = getShipping(tx, id)
    const changes: Record<string, { from: unknown; to: unknown }> = {}
    for (const field of ['title', 'regions', 'services'] as const)
      if (JSON.stringify(before[field]) !== JSON.stringify(after[field]))
        changes[field] = { from: before[field], to: after[field] }
    if (Object.keys(changes).length === 0) return before
    const updatedAt = nowIso()
    tx.update(shippingConfigurations).set({ updatedAt }).where(eq(shippingConfigurations.id, id)).run()
    const view = { ...after, updatedAt }
    recordWrite(tx, actor, {
      action: 'shipping.update',
      entityType: 'shipping_configuration',
      entityId: id,
      metadata: { changes },
      events: [{ object: 'shipping', action: 'update', aggregateId: id, payload: view }],
    })
    return view
  })
}

export function deleteShipping(db: Db, actor: Actor, id: string): void {
  inWriteTransaction(db, (tx) => {
    const view = getShipping(tx, id)
    tx.delete(shippingConfigurations).where(eq(shippingConfigurations.id, id)).run()
    recordWrite(tx, actor, {
      action: 'shipping.delete',
      entityType: 'shipping_configuration',
      entityId: id,
      metadata: { shipping: view },
      events: [{ object: 'shipping', action: 'delete', aggregateId: id, payload: view }],
    })
  })
}

export interface RateQuoteRequest {
  weight: number
  weightUnits?: WeightUnit
  countryCode: string
  stateCode?: string
}

/**
 * What each active service of every configuration covering the destination charges for the
 * weight: a region covers it when its country matches and its state is the destination's or
 * null (the whole country). Ordered by configuration title, then service sortOrder.
 */
export function quoteShippingRates(db: Queryable, request: RateQuoteRequest) {
  if (toMilli(request.weight) === null) throw invalid('query/weight', 'at most three decimal places')
  const country = request.countryCode.toUpperCase()
  const state = request.stateCode?.toUpperCase()
  const covering = db
    .selectDistinct({ id: shippingRegions.configurationId })
    .from(shippingRegions)
    .where(
      and(
        eq(shippingRegions.countryCode, country),
        state
          ? or(isNull(shippingRegions.stateCode), eq(shippingRegions.stateCode, state))
          : isNull(shippingRegions.stateCode),
      ),
    )
    .all()
    .map((r) => r.id)
  if (covering.length === 0) return { rates: [], total: 0 }
  const configs = db
    .select()
    .from(shippingConfigurations)
    .where(inArray(shippingConfigurations.id, covering))
    .orderBy(asc(sql`lower(${shippingConfigurations.title})`), asc(shippingConfigurations.id))
    .all()
  const rates = presentMany(db, configs).flatMap((config) =>
    config.services
      .filter((s) => s.isActive)
      .map((s) => ({
        shippingConfigurationId: config.id,
        shippingConfigurationTitle: config.title,
        serviceId: s.id,
        title: s.title,
        code: s.code,
        carrier: s.carrier,
        isDefault: s.isDefault,
        price: shippingPrice(s, request.weight, request.weightUnits ?? 'Lbs'),
      })),
  )
  return { rates, total: rates.length }
}
