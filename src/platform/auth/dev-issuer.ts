// The built-in development issuer: on only when AUTH_JWKS_URL is not set. Its key pair lives in
// DATA_DIR so tokens minted by the `token` command verify in the running server.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK, SignJWT } from 'jose'

const ALG = 'ES256'

export interface DevIssuer {
  issuer: string
  audience: string
  jwks: JSONWebKeySet
  mint(input: { subject: string; ttlSeconds?: number; claims?: Record<string, unknown> }): Promise<string>
}

interface StoredKeys {
  kid: string
  privateJwk: JWK
  publicJwk: JWK
}

async function loadOrCreateKeys(dataDir: string): Promise<StoredKeys> {
  const path = join(dataDir, 'dev-issuer.json')
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8'))
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true })
  const kid = crypto.randomUUID()
  const keys: StoredKeys = {
    kid,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: ALG },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' },
  }
  mkdirSync(dataDir, { recursive: true })
  // wx: two processes starting at once must not overwrite each other's key.
  try {
    writeFileSync(path, JSON.stringify(keys), { mode: 0o600, flag: 'wx' })
  } catch {
    return JSON.parse(readFileSync(path, 'utf8'))
  }
  return keys
}

export async function openDevIssuer(dataDir: string, issuer: string, audience: string): Promise<DevIssuer> {
  const keys = await loadOrCreateKeys(dataDir)
  const privateKey = await importJWK(keys.privateJwk, ALG)
  return {
    issuer,
    audience,
    jwks: { keys: [keys.publicJwk] },
    mint: ({ subject, ttlSeconds = 3600, claims = {} }) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: ALG, kid: keys.kid, typ: 'JWT' })
        .setSubject(subject)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
        .sign(privateKey),
  }
}
