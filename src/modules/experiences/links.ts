// Private links: an unlisted way to book an experience. The link's token is a random secret;
// rotating it replaces the secret, so the old link stops working at once (availability answers
// 404 for it) while bookings already made stay as they are.
import { eq } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { type ExperienceRow, experiences } from './schema'
import { getExperienceRow, newPrivateLinkToken } from './service'

export const privateLinkView = (row: ExperienceRow) => ({
  experienceId: row.id,
  token: row.privateLinkToken,
  path: `/book/private/${row.privateLinkToken}`,
  rotatedAt: row.privateLinkRotatedAt,
})

export const getPrivateLink = (db: Queryable, id: string) => privateLinkView(getExperienceRow(db, id))

export function rotatePrivateLink(db: Db, actor: Actor, id: string) {
  return inWriteTransaction(db, (tx) => {
    getExperienceRow(tx, id)
    const now = nowIso()
    const row = tx
      .update(experiences)
      .set({ privateLinkToken: newPrivateLinkToken(), privateLinkRotatedAt: now, updatedAt: now })
      .where(eq(experiences.id, id))
      .returning()
      .get()
    // The audit entry names the rotation, never the secret itself.
    recordWrite(tx, actor, {
      action: 'experience.private_link.rotate',
      entityType: 'experience',
      entityId: id,
      metadata: { rotatedAt: now },
    })
    return privateLinkView(row)
  })
}

/** The experience a private-link token opens; 404 for an unknown or rotated-away token. */
export function experienceByPrivateLink(db: Queryable, token: string): ExperienceRow {
  const row = db.select().from(experiences).where(eq(experiences.privateLinkToken, token)).get()
  if (!row) throw notFound('private link')
  return row
}
