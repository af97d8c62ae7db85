// Standard Webhooks signatures (https://www.standardwebhooks.com): the signed content is
// `${webhook-id}.${webhook-timestamp}.${body}`, HMAC-SHA256 keyed with the base64 bytes after the
// secret's `whsec_` prefix, sent as `webhook-signature: v1,<base64>`; during a secret rotation's
// grace period, one signature per secret, space-separated (`v1,<new> v1,<old>`).
import { createHmac, randomBytes } from 'node:crypto'

const SECRET_PREFIX = 'whsec_'

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export const newSigningSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`

export function signPayload(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  )
  const digest = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')
  return `v1,${digest}`
}

/** The `webhook-signature` header: a signature with each secret, space-separated. */
export const signatureHeader = (
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
) => secrets.map((secret) => signPayload(secret, messageId, timestampSeconds, body)).join(' ')
