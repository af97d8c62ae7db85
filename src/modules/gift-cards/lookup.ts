// GET /gift-card/lookup: finding a card by its code without becoming a way to guess codes.
// Every miss is the same 404 after the same work (a hash lookup; see findByCode), and each
// staff subject may miss only LOOKUP_MISS_LIMIT times per window before lookups answer 429.
import { LRUCache } from 'lru-cache'
import type { Actor } from '../../platform/foundation/actor'
import { ApiError } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { codeNotFound, findByCode } from './cards'
import { presentGiftCard } from './ledger'

export const LOOKUP_MISS_LIMIT = 20
export const LOOKUP_WINDOW_MS = 10 * 60 * 1000

interface Window {
  misses: number
  resetAt: number
}

const windows = new LRUCache<string, Window>({ max: 50_000, ttl: LOOKUP_WINDOW_MS })

export function lookupGiftCard(db: Queryable, actor: Actor, code: string, now = Date.now()) {
  const key = `${actor.tenantId} ${actor.subject}`
  const window = windows.get(key)
  if (window && window.resetAt > now && window.misses >= LOOKUP_MISS_LIMIT) {
    const retryAfter = Math.ceil((window.resetAt - now) / 1000)
    throw new ApiError('rate_limited', 'Too many gift card lookups missed; try again later', {
      headers: { 'retry-after': String(retryAfter) },
    })
  }
  const card = findByCode(db, code)
  if (card) return presentGiftCard(card)
  if (!window || window.resetAt <= now) windows.set(key, { misses: 1, resetAt: now + LOOKUP_WINDOW_MS })
  else window.misses++
  throw codeNotFound()
}
