// GET /gift-card/lookup: finding a card by its code without becoming a way to guess codes.
// Every miss is the same 404 after the same work (a hash lookup; see findByCode), and each
// staff subject may miss only LOOKUP_MISS_LIMIT times per window before lookups answer 429. The
// misses are counted in a table the HTTP workers of one `serve` share, so a guesser gets the same
// number of tries whichever worker answers.
import { SharedWindowLimiter } from '../../platform/auth/rate-limit'
import type { Actor } from '../../platform/foundation/actor'
import { ApiError } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { codeNotFound, findByCode } from './cards'
import { presentGiftCard } from './ledger'

export const LOOKUP_MISS_LIMIT = 20
export const LOOKUP_WINDOW_MS = 10 * 60 * 1000

/** The misses of every subject, per window (`dataDir` null: this process only). */
export const lookupMisses = (dataDir: string | null, now: () => number = Date.now) =>
  new SharedWindowLimiter(dataDir, LOOKUP_WINDOW_MS, now, 'gift-card-lookup-misses')

export function lookupGiftCard(db: Queryable, actor: Actor, code: string, misses: SharedWindowLimiter) {
  const key = `${actor.tenantId} ${actor.subject}`
  const missed = misses.peek(key)
  if (missed.count >= LOOKUP_MISS_LIMIT) {
    throw new ApiError('rate_limited', 'Too many gift card lookups missed; try again later', {
      headers: { 'retry-after': String(missed.resetSeconds) },
    })
  }
  const card = findByCode(db, code)
  if (card) return presentGiftCard(card)
  misses.take(key, LOOKUP_MISS_LIMIT)
  throw codeNotFound()
}
