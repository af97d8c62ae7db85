// App sync records: per object (and reporting app), the last reported status, issues and
// actions, with every report kept as an attempt.
import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { PostAppSyncInput } from './model'
import { type AppSyncRow, appSyncAttemptIssues, appSyncAttempts, appSyncs } from './schema'
import { getApp } from './service'

/** Attempts shown per sync record, newest first. */
const ATTEMPTS_SHOWN = 50

export const appSyncView = (row: AppSyncRow) => ({
  id: row.id,
  appId: row.appId,
  objectType: row.objectType,
  objectId: row.objectId,
  status: row.status,
  issues: row.issues,
  actions: row.actions,
  lastActivityDate: row.lastActivityDate,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
})

/** Creates or updates the record of (app, objectType, objectId) and appends the report as an attempt. */
export function postAppSync(
  db: Db,
  actor: Actor,
  input: PostAppSyncInput,
): { created: boolean; sync: AppSyncRow } {
  return inWriteTransaction(db, (tx) => {
    const appId = input.appId ?? null
    if (appId) getApp(tx, appId)
    const now = nowIso()
    const issues = input.issues ?? []
    const actions = (input.actions ?? []).map((action) => ({ id: newId(), ...action }))
    const existing = tx
      .select()
      .from(appSyncs)
      .where(
        and(
          appId ? eq(appSyncs.appId, appId) : isNull(appSyncs.appId),
          eq(appSyncs.objectType, input.objectType),
          eq(appSyncs.objectId, input.objectId),
        ),
      )
      .get()
    const sync = existing
      ? tx
          .update(appSyncs)
          .set({ status: input.status, issues, actions, lastActivityDate: now, updatedAt: now })
          .where(eq(appSyncs.id, existing.id))
          .returning()
          .get()
      : tx
          .insert(appSyncs)
          .values({
            id: newId(),
            appId,
            objectType: input.objectType,
            objectId: input.objectId,
            status: input.status,
            issues,
            actions,
            lastActivityDate: now,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
          .get()
    const attemptId = newId()
    tx.insert(appSyncAttempts)
      .values({ id: attemptId, appSyncId: sync.id, status: input.status, activityDate: now })
      .run()
    for (const issue of issues) {
      tx.insert(appSyncAttemptIssues).values({ id: newId(), appSyncAttemptId: attemptId, issue }).run()
    }
    recordWrite(tx, actor, {
      action: existing ? 'app_sync.update' : 'app_sync.create',
      entityType: 'app_sync',
      entityId: sync.id,
      metadata: {
        appId,
        objectType: input.objectType,
        objectId: input.objectId,
        status: input.status,
        issues,
      },
    })
    return { created: !existing, sync }
  })
}

export function listAppSyncs(db: Queryable, objectId: string) {
  const rows = db
    .select()
    .from(appSyncs)
    .where(eq(appSyncs.objectId, objectId))
    .orderBy(desc(appSyncs.lastActivityDate), asc(appSyncs.id))
    .all()
  return {
    appSyncs: rows.map((row) => {
      const attempts = db
        .select()
        .from(appSyncAttempts)
        .where(eq(appSyncAttempts.appSyncId, row.id))
        .orderBy(desc(appSyncAttempts.seq))
        .limit(ATTEMPTS_SHOWN)
        .all()
      const issues = attempts.length
        ? db
            .select()
            .from(appSyncAttemptIssues)
            .where(
              inArray(
                appSyncAttemptIssues.appSyncAttemptId,
                attempts.map((a) => a.id),
              ),
            )
            .orderBy(asc(appSyncAttemptIssues.seq))
            .all()
        : []
      return {
        ...appSyncView(row),
        attempts: attempts.map((attempt) => ({
          id: attempt.id,
          status: attempt.status,
          activityDate: attempt.activityDate,
          issues: issues
            .filter((issue) => issue.appSyncAttemptId === attempt.id)
            .map((issue) => ({ id: issue.id, appSyncAttemptId: issue.appSyncAttemptId, issue: issue.issue })),
        })),
      }
    }),
  }
}
