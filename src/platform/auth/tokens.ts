// Opaque bearer tokens (`vps_`, `tpk_live_`, `opk_`): 32 random bytes, base64url, behind a prefix that
// names their kind. Only the SHA-256 of a token is stored, so a leaked database grants nothing.

export const PASSCODE_SESSION_PREFIX = 'vps_'
export const CREDENTIAL_PREFIX = 'tpk_live_'
/** Operator keys open the operator API (/admin) and nothing else. */
export const OPERATOR_KEY_PREFIX = 'opk_'

export function newOpaqueToken(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return prefix + Buffer.from(bytes).toString('base64url')
}

export const hashToken = (token: string): string => new Bun.CryptoHasher('sha256').update(token).digest('hex')

/** The identity provider name of the staff auth identity mapping (staff_identities.provider). */
export const IDENTITY_PROVIDER = 'idp'
