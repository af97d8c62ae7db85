// Opaque bearer tokens (`vps_`, `tpk_live_`, `opk_`): 32 random bytes, base64url, behind a prefix that
// names their kind. Only the SHA-256 of a token is stored, so a leaked database grants nothing.
//
// A tenant's tokens (`vps_`, `tpk_live_`) name their tenant: `<prefix><tenant id>.<random>`. Their
// rows live in that tenant's own database (schema.ts), so the token alone says which database to
// read, on whichever node serves the tenant. The id is no secret: the row is found by the hash of
// the whole token, in that one tenant's database. Tokens issued before carry no '.': their tenant
// is found in the control database's `legacy_token_tenants` (credential-store.ts).

export const PASSCODE_SESSION_PREFIX = 'vps_'
export const CREDENTIAL_PREFIX = 'tpk_live_'
/** Operator keys open the operator API (/admin) and nothing else. */
export const OPERATOR_KEY_PREFIX = 'opk_'

const randomPart = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')

export function newOpaqueToken(prefix: string): string {
  return prefix + randomPart()
}

/** A token of the tenant's: the tenant it belongs to, then the secret. */
export function newTenantToken(prefix: string, tenantId: string): string {
  return `${prefix}${tenantId}.${randomPart()}`
}

/** Longer than any id this service makes: what a token may claim as its tenant. */
const MAX_TENANT_ID_LENGTH = 100

/**
 * The tenant a `vps_` or `tpk_live_` token names; null for a token issued before tokens named it
 * (or not of that shape). The random part is base64url, which has no '.'.
 */
export function tenantOfToken(token: string): string | null {
  const prefix = token.startsWith(CREDENTIAL_PREFIX)
    ? CREDENTIAL_PREFIX
    : token.startsWith(PASSCODE_SESSION_PREFIX)
      ? PASSCODE_SESSION_PREFIX
      : null
  if (prefix === null) return null
  const dot = token.lastIndexOf('.')
  if (dot <= prefix.length || dot - prefix.length > MAX_TENANT_ID_LENGTH) return null
  return token.slice(prefix.length, dot)
}

export const hashToken = (token: string): string => new Bun.CryptoHasher('sha256').update(token).digest('hex')

/** The identity provider name of the staff auth identity mapping (staff_identities.provider). */
export const IDENTITY_PROVIDER = 'idp'
