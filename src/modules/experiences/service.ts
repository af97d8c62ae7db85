// Experiences: what a guest can book (a dinner service, a tasting, a tour). Each publish makes a
// new immutable version; reservations name the version they were booked on, so republishing
// (new prices, party sizes, schedule) never rewrites existing bookings.
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, type SQL, sql } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import { type LocationScope, locatedRow, scopeCondition } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { ApiError, conflict, type FieldError, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { chooseLocation } from './clock'
import type {
  CreateExperienceInput,
  ExperienceVersionView,
  ExperienceView,
  PublishExperienceInput,
} from './model'
import {
  type ExperienceRow,
  type ExperienceVersionRow,
  experiences,
  experienceVersions,
  type ScheduleSlot,
} from './schema'

export const DEFAULT_DURATION_MINUTES = 90

export const newPrivateLinkToken = (): string =>
  Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url')

export const versionView = (row: ExperienceVersionRow): ExperienceVersionView => ({
  id: row.id,
  experienceId: row.experienceId,
  versionNumber: row.versionNumber,
  publicName: row.publicName,
  description: row.description,
  partyMin: row.partyMin,
  partyMax: row.partyMax,
  cutoffMinutes: row.cutoffMinutes,
  durationMinutes: row.durationMinutes,
  visibility: row.visibility,
  schedule: row.schedule,
  publishedAt: row.publishedAt,
})

const statusOf = (row: ExperienceRow) =>
  row.archivedAt ? ('archived' as const) : row.currentVersionId ? ('published' as const) : ('draft' as const)

function views(db: Queryable, rows: ExperienceRow[]): ExperienceView[] {
  const versionIds = rows.map((r) => r.currentVersionId).filter((id): id is string => id !== null)
  const versions = new Map(
    versionIds.length === 0
      ? []
      : db
          .select()
          .from(experienceVersions)
          .where(inArray(experienceVersions.id, versionIds))
          .all()
          .map((v) => [v.id, v] as const),
  )
  return rows.map((row) => {
    const version = row.currentVersionId ? versions.get(row.currentVersionId) : undefined
    return {
      id: row.id,
      name: row.name,
      locationId: row.locationId,
      status: statusOf(row),
      currentVersion: version ? versionView(version) : null,
      archivedAt: row.archivedAt,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    }
  })
}

export const experienceView = (db: Queryable, row: ExperienceRow): ExperienceView => views(db, [row])[0]!

/** Where an experience is held (routes declare it with `locatedBy`). */
export const experienceLocated = locatedRow('experience', experiences, experiences.id, experiences.locationId)

export function getExperienceRow(db: Queryable, id: string): ExperienceRow {
  const row = db.select().from(experiences).where(eq(experiences.id, id)).get()
  if (!row) throw notFound('experience', id)
  return row
}

export const getExperience = (db: Queryable, id: string): ExperienceView =>
  experienceView(db, getExperienceRow(db, id))

export function listExperiences(
  db: Queryable,
  query: { status?: 'draft' | 'published' | 'archived'; locationId?: string; q?: string } & PageRequest,
  locations: LocationScope,
) {
  const byStatus: Record<string, SQL | undefined> = {
    draft: and(isNull(experiences.archivedAt), isNull(experiences.currentVersionId)),
    published: and(isNull(experiences.archivedAt), isNotNull(experiences.currentVersionId)),
    archived: isNotNull(experiences.archivedAt),
  }
  const where = and(
    scopeCondition(locations, experiences.locationId),
    query.status ? byStatus[query.status] : undefined,
    query.locationId ? eq(experiences.locationId, query.locationId) : undefined,
    searchColumns(query.q, [experiences.name]),
  )
  const total = db.select({ n: count() }).from(experiences).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(experiences)
    .where(where)
    .orderBy(asc(sql`lower(${experiences.name})`), asc(experiences.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { data: views(db, rows), page: { total, page: query.page, limit: query.limit } }
}

export function createExperience(db: Db, actor: Actor, input: CreateExperienceInput): ExperienceView {
  return inWriteTransaction(db, (tx) => {
    const location = chooseLocation(tx, actor, input.locationId, 'body/locationId')
    const now = nowIso()
    const row = tx
      .insert(experiences)
      .values({
        id: newId(),
        name: input.name.trim(),
        locationId: location.id,
        currentVersionId: null,
        archivedAt: null,
        privateLinkToken: newPrivateLinkToken(),
        privateLinkRotatedAt: null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'experience.create',
      entityType: 'experience',
      entityId: row.id,
      metadata: { name: row.name, locationId: row.locationId },
    })
    return experienceView(tx, row)
  })
}

function setArchived(db: Db, actor: Actor, id: string, archive: boolean): ExperienceView {
  return inWriteTransaction(db, (tx) => {
    const before = getExperienceRow(tx, id)
    if (archive === (before.archivedAt !== null)) {
      throw conflict(`experience ${id} is ${archive ? 'already archived' : 'not archived'}`, {
        currentStatus: statusOf(before),
        archivedAt: before.archivedAt,
      })
    }
    const now = nowIso()
    const row = tx
      .update(experiences)
      .set({ archivedAt: archive ? now : null, updatedAt: now })
      .where(eq(experiences.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: archive ? 'experience.archive' : 'experience.restore',
      entityType: 'experience',
      entityId: id,
      metadata: { status: { from: statusOf(before), to: statusOf(row) } },
    })
    return experienceView(tx, row)
  })
}

export const archiveExperience = (db: Db, actor: Actor, id: string) => setArchived(db, actor, id, true)
export const restoreExperience = (db: Db, actor: Actor, id: string) => setArchived(db, actor, id, false)

/** Whole-body rules the schema cannot state; every problem at once. */
function scheduleProblems(input: PublishExperienceInput, schedule: ScheduleSlot[]): FieldError[] {
  const errors: FieldError[] = []
  if (input.partyMin > input.partyMax)
    errors.push({
      path: 'body/partyMin',
      message: `partyMin ${input.partyMin} exceeds partyMax ${input.partyMax}`,
    })
  const seen = new Map<string, number>()
  schedule.forEach((slot, i) => {
    if (slot.paymentOption === 'none' && slot.priceAmount > 0)
      errors.push({
        path: `body/schedule/${i}/paymentOption`,
        message: 'a priced slot needs a payment option other than none (pay_at_venue, paid, ...)',
      })
    for (const day of slot.daysOfWeek)
      for (const time of slot.times) {
        const key = `${day} ${time}`
        const other = seen.get(key)
        if (other !== undefined)
          errors.push({
            path: `body/schedule/${i}/times`,
            message: `day ${day} at ${time} is already in schedule/${other}; each start time belongs to one slot`,
          })
        else seen.set(key, i)
      }
  })
  return errors
}

export function publishExperience(
  db: Db,
  actor: Actor,
  id: string,
  input: PublishExperienceInput,
): ExperienceVersionView {
  return inWriteTransaction(db, (tx) => {
    const experience = getExperienceRow(tx, id)
    if (experience.archivedAt)
      throw conflict(`experience ${id} is archived; restore it before publishing`, {
        currentStatus: 'archived',
      })
    const previous = tx
      .select()
      .from(experienceVersions)
      .where(eq(experienceVersions.experienceId, id))
      .orderBy(desc(experienceVersions.versionNumber))
      .limit(1)
      .get()
    const schedule: ScheduleSlot[] = input.schedule
      ? input.schedule.map((slot) => ({
          daysOfWeek: [...slot.daysOfWeek].sort((a, b) => a - b),
          times: [...slot.times].sort(),
          capacity: slot.capacity,
          priceAmount: slot.priceAmount ?? 0,
          currency: slot.currency ?? 'USD',
          paymentOption: slot.paymentOption ?? 'none',
        }))
      : (previous?.schedule ?? [])
    const errors = scheduleProblems(input, schedule)
    if (errors.length > 0) throw new ApiError('validation_failed', errors[0]!.message, { errors })
    const row = tx
      .insert(experienceVersions)
      .values({
        id: newId(),
        experienceId: id,
        versionNumber: (previous?.versionNumber ?? 0) + 1,
        publicName: input.publicName.trim(),
        description: input.description !== undefined ? input.description : (previous?.description ?? null),
        partyMin: input.partyMin,
        partyMax: input.partyMax,
        cutoffMinutes: input.cutoffMinutes,
        durationMinutes: input.durationMinutes ?? previous?.durationMinutes ?? DEFAULT_DURATION_MINUTES,
        visibility: input.visibility ?? previous?.visibility ?? 'public',
        schedule,
        publishedAt: nowIso(),
        publishedBy: actor.staffUserId ?? actor.subject,
      })
      .returning()
      .get()
    tx.update(experiences)
      .set({ currentVersionId: row.id, updatedAt: row.publishedAt })
      .where(eq(experiences.id, id))
      .run()
    const view = versionView(row)
    recordWrite(tx, actor, {
      action: 'experience.publish',
      entityType: 'experience',
      entityId: id,
      metadata: { version: view, previousVersionId: previous?.id ?? null },
    })
    return view
  })
}

export function getVersionRow(db: Queryable, versionId: string): ExperienceVersionRow | undefined {
  return db.select().from(experienceVersions).where(eq(experienceVersions.id, versionId)).get()
}

/** The latest published version of an experience; undefined while it is a draft. */
export const currentVersionRow = (db: Queryable, experience: ExperienceRow) =>
  experience.currentVersionId ? getVersionRow(db, experience.currentVersionId) : undefined

export function publishedVersion(db: Queryable, id: string): ExperienceVersionView {
  const row = currentVersionRow(db, getExperienceRow(db, id))
  if (!row) throw notFound(`published version of experience ${id}`)
  return versionView(row)
}
