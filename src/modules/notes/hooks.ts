// How notes join the customers family: a merge moves a source customer's notes to the primary,
// and a customer with notes cannot be deleted (409 naming them; merge or set it inactive).
import { count, eq } from 'drizzle-orm'
import { registerCustomerReferenceCount, registerCustomerReferenceMover } from '../customers'
import { notes } from './schema'

/** Registers what the family lends the others (its manifest's `hooks`, index.ts). */
export function registerNotesHooks(): void {
  registerCustomerReferenceMover(
    'notes',
    (tx, sourceId, primaryId) =>
      tx
        .update(notes)
        .set({ customerId: primaryId })
        .where(eq(notes.customerId, sourceId))
        .returning({ id: notes.id })
        .all().length,
  )

  registerCustomerReferenceCount(
    'notes',
    (db, customerId) =>
      db.select({ n: count() }).from(notes).where(eq(notes.customerId, customerId)).get()?.n ?? 0,
  )
}
