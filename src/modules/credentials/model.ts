import { t } from 'elysia'
import {
  credentialScopes,
  DEFAULT_CREDENTIAL_RATE_LIMIT,
  MAX_CREDENTIAL_RATE_LIMIT,
} from '../../platform/auth/credentials'
import { int, oneOf } from '../../platform/foundation/types'

export const Credential = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    tenantId: t.String(),
    name: t.String(),
    tokenHint: t.String({ description: 'The last four characters of the token, to tell credentials apart.' }),
    scopes: t.Array(t.String()),
    locationIds: t.Array(t.String(), { description: 'The locations the credential may act at.' }),
    rateLimitPerMinute: t.Integer(),
    createdAt: t.String({ format: 'date-time' }),
    revokedAt: t.Nullable(t.String({ format: 'date-time' })),
    status: oneOf(['active', 'revoked']),
  },
  { $id: '#/components/schemas/Credential' },
)

export const CreatedCredential = t.Object({
  credential: Credential,
  token: t.String({
    description: 'The `tpk_live_` token. Shown only in this response: only its hash is stored.',
  }),
})

export const CredentialList = t.Object({ credentials: t.Array(Credential) })

export const CreateCredential = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200, examples: ['Booking partner'] }),
    scopes: t.Array(oneOf(credentialScopes), {
      minItems: 1,
      maxItems: credentialScopes.length,
      examples: [['reservations:read', 'reservations:write']],
    }),
    locationIds: t.Array(t.String({ minLength: 1, maxLength: 200 }), {
      minItems: 1,
      maxItems: 500,
      description: 'The locations the credential may act at (its allowlist).',
    }),
    rateLimitPerMinute: t.Optional(
      int({
        minimum: 1,
        maximum: MAX_CREDENTIAL_RATE_LIMIT,
        description: `Requests per minute; default ${DEFAULT_CREDENTIAL_RATE_LIMIT}.`,
        examples: [DEFAULT_CREDENTIAL_RATE_LIMIT],
      }),
    ),
  },
  { additionalProperties: false },
)

export const CredentialParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })
