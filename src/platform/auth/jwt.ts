// Bearer JWT verification with jose: signature against the JWKS, issuer, audience, expiry and
// subject. Only asymmetric algorithms are accepted, so `alg: none` and HMAC forgeries fail.
import { createLocalJWKSet, createRemoteJWKSet, type JSONWebKeySet, type JWTPayload, jwtVerify } from 'jose'
import { LRUCache } from 'lru-cache'
import { ApiError, unavailable } from '../foundation/problem'

const algorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']

export interface VerifiedToken {
  subject: string
  claims: JWTPayload
}

export type TokenVerifier = (token: string) => Promise<VerifiedToken>

export function createTokenVerifier(options: {
  jwks: { url: string } | { keys: JSONWebKeySet }
  issuer: string
  audience: string
}): TokenVerifier {
  const keySet =
    'url' in options.jwks
      ? createRemoteJWKSet(new URL(options.jwks.url))
      : createLocalJWKSet(options.jwks.keys)
  // Verified tokens, kept until they expire: signature checks dominate a cheap request. Only the
  // subject is cached; the staff user behind it is still read per request, so a deactivation or
  // role change applies at once.
  const verified = new LRUCache<string, VerifiedToken>({ max: 10_000 })
  return async (token) => {
    const cached = verified.get(token)
    if (cached && (cached.claims.exp ?? 0) * 1000 > Date.now()) return cached
    try {
      const { payload } = await jwtVerify(token, keySet, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms,
        requiredClaims: ['sub', 'exp'],
      })
      if (!payload.sub) throw new Error('empty subject')
      const result = { subject: payload.sub, claims: payload }
      verified.set(token, result, { ttl: Math.max(1, (payload.exp ?? 0) * 1000 - Date.now()) })
      return result
    } catch (error) {
      if (error instanceof ApiError) throw error
      const code = (error as { code?: string }).code
      if (code === 'ERR_JWKS_TIMEOUT' || error instanceof TypeError) {
        throw unavailable('The identity provider key set could not be fetched', 5)
      }
      const reason = code === 'ERR_JWT_EXPIRED' ? 'the token has expired' : 'the token is not valid'
      throw new ApiError('unauthenticated', `Bearer token refused: ${reason}`, {
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      })
    }
  }
}
