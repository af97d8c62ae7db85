// Option tokens: what availability offers and create redeems. A compact JWT (HS256, `jose`)
// signed with a per-tenant secret kept in the tenant database, expiring after 15 minutes. It
// names the experience version, location, start, party size, price and payment option, so the
// price a guest was shown is the price booked, and nothing in it can be changed undetected.

import { eq } from 'drizzle-orm'
import { errors, jwtVerify, SignJWT } from 'jose'
import { nowIso } from '../../platform/foundation/ids'
import { ApiError } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import { type PaymentOption, paymentOptions } from '../experiences'
import { tablesSigningKeys } from './schema'

export const OPTION_TOKEN_TTL_SECONDS = 15 * 60
const KEY_ID = 'option-token'
const TOKEN_TYPE = 'tables-option+jwt'

export interface OptionClaims {
  experienceId: string
  experienceVersionId: string
  locationId: string
  startsAt: string
  partySize: number
  currency: string
  subtotalAmount: number
  taxAmount: number
  totalAmount: number
  paymentOption: PaymentOption
}

function storedSigningKey(db: Db): Uint8Array | undefined {
  const stored = db.select().from(tablesSigningKeys).where(eq(tablesSigningKeys.id, KEY_ID)).get()
  return stored ? Buffer.from(stored.secret, 'base64url') : undefined
}

/** The tenant's signing secret, made on first use (concurrent first uses agree on one). */
function signingKey(db: Db): Uint8Array {
  const stored = storedSigningKey(db)
  if (stored) return stored
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
  inWriteTransaction(db, (tx) =>
    tx
      .insert(tablesSigningKeys)
      .values({ id: KEY_ID, secret, createdAt: nowIso() })
      .onConflictDoNothing()
      .run(),
  )
  const row = db.select().from(tablesSigningKeys).where(eq(tablesSigningKeys.id, KEY_ID)).get()
  return Buffer.from(row!.secret, 'base64url')
}

export async function signOptionToken(
  db: Db,
  claims: OptionClaims,
  now: Date = new Date(),
): Promise<{ token: string; expiresAt: string }> {
  const issuedAt = Math.floor(now.getTime() / 1000)
  const expiresAt = issuedAt + OPTION_TOKEN_TTL_SECONDS
  const token = await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: TOKEN_TYPE })
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(signingKey(db))
  return { token, expiresAt: new Date(expiresAt * 1000).toISOString() }
}

const invalidToken = (message: string) =>
  new ApiError('validation_failed', message, { errors: [{ path: 'body/optionToken', message }] })

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0
const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0

/** The claims of a genuine, unexpired token; 400 `validation_failed` for anything else. */
export async function verifyOptionToken(db: Db, token: string): Promise<OptionClaims> {
  let payload: Record<string, unknown>
  // Verifying never makes the key: without one, this tenant has issued no token, and a refused
  // request must write nothing.
  const key = storedSigningKey(db)
  if (!key) throw invalidToken('the option token is not valid (not issued by this tenant’s availability)')
  try {
    const verified = await jwtVerify(token, key, { algorithms: ['HS256'], typ: TOKEN_TYPE })
    payload = verified.payload
  } catch (error) {
    if (error instanceof errors.JWTExpired)
      throw invalidToken('the option token has expired; ask for availability again')
    throw invalidToken('the option token is not valid (altered, or not issued by this tenant’s availability)')
  }
  const claims = payload as Partial<OptionClaims>
  const wellFormed =
    isString(claims.experienceId) &&
    isString(claims.experienceVersionId) &&
    isString(claims.locationId) &&
    isString(claims.startsAt) &&
    Number.isInteger(claims.partySize) &&
    (claims.partySize as number) >= 1 &&
    isString(claims.currency) &&
    isCount(claims.subtotalAmount) &&
    isCount(claims.taxAmount) &&
    isCount(claims.totalAmount) &&
    (paymentOptions as readonly unknown[]).includes(claims.paymentOption)
  if (!wellFormed) throw invalidToken('the option token is not valid (missing claims)')
  return claims as OptionClaims
}
