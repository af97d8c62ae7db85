// Abandoned direct uploads: a draft whose upload URL expired more than a day ago will never be
// completed by that URL. The hourly job soft-deletes it (audited, with the `delete` event) and
// removes its bytes from the store, so abandoned uploads do not pile up in DATA_DIR or the bucket.
import { and, eq, lt } from 'drizzle-orm'
import { type Actor, systemActor } from '../../platform/foundation/actor'
import type { DueWorkSource } from '../../platform/jobs/due-index'
import { earliestInstant, type NextWork } from '../../platform/jobs/next-work'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import type { ObjectStore } from '../../platform/storage/store'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import { mediaAssets } from './schema'
import { recordAssetWrite, toView } from './service'

export const ABANDONED_DRAFT_AFTER_MS = 24 * 3600 * 1000
const BATCH = 500

/** When the next draft becomes abandoned (a day after its upload URL expires); null when none. */
export function nextAbandonedDraft(db: Db): NextWork {
  const expires = earliestInstant(db, {
    key: 'media-draft-expiry',
    table: mediaAssets,
    column: mediaAssets.uploadExpiresAt,
    where: () => eq(mediaAssets.status, 'draft'),
  })
  return expires === null ? null : expires + ABANDONED_DRAFT_AFTER_MS
}

/** Purges one batch of abandoned drafts of a tenant; answers how many. */
export async function purgeAbandonedDrafts(
  db: Db,
  store: ObjectStore,
  actor: Actor,
  now = new Date(),
): Promise<number> {
  const cutoff = new Date(now.getTime() - ABANDONED_DRAFT_AFTER_MS).toISOString()
  const candidates = db
    .select({ id: mediaAssets.id })
    .from(mediaAssets)
    .where(and(eq(mediaAssets.status, 'draft'), lt(mediaAssets.uploadExpiresAt, cutoff)))
    .limit(BATCH)
    .all()
  let purged = 0
  for (const { id } of candidates) {
    // The database first: a `complete` that wins the race keeps its (ready) bytes.
    const key = inWriteTransaction(db, (tx) => {
      const current = tx.select().from(mediaAssets).where(eq(mediaAssets.id, id)).get()
      if (current?.status !== 'draft') return null
      const at = now.toISOString()
      const row = tx
        .update(mediaAssets)
        .set({
          status: 'deleted',
          statusBeforeDelete: 'draft',
          uploadUrl: null,
          deletedAt: at,
          updatedAt: at,
        })
        .where(eq(mediaAssets.id, id))
        .returning()
        .get()
      recordAssetWrite(tx, actor, toView(row, actor.tenantId), {
        verb: 'purge',
        metadata: { reason: 'abandoned draft', uploadExpiresAt: current.uploadExpiresAt },
        announceAs: 'delete',
      })
      return current.providerAssetId
    })
    // Drafts never share their object (only ready assets are reused).
    if (key) {
      await store.remove(key)
      purged++
    }
  }
  return purged
}

export const abandonedDrafts: DueWorkSource = {
  job: 'media.purge-abandoned-drafts',
  nextWork: (_tenant, db) => nextAbandonedDraft(db),
}

export function registerMediaJobs(platform: Platform): void {
  platform.jobs.register({
    name: abandonedDrafts.job,
    intervalMs: 3600 * 1000,
    run: (signal) =>
      forEachDueTenant(platform, signal, abandonedDrafts, async (tenant, db) => {
        await purgeAbandonedDrafts(db, platform.storage, systemActor(tenant.id, 'media-purge'))
      }),
  })
}
