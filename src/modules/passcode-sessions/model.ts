import { t } from 'elysia'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'

export const CreatePasscodeSession = t.Object(
  {
    locationId: t.String({ minLength: 1, maxLength: 200, description: 'The location the POS device is at.' }),
    staffUserId: t.String({ minLength: 1, maxLength: 200 }),
    passcode: t.String({ pattern: '^[0-9]{4,8}$', description: '4 to 8 digits.' }),
  },
  { additionalProperties: false },
)

export const PasscodeSession = t.Object({
  token: t.String({
    description:
      '`vps_`, the tenant id, `.` and 43 base64url characters; shown only here. Acts for its own tenant, on any node.',
  }),
  expiresAt: t.String({ format: 'date-time' }),
  staffUserId: t.String(),
  locationId: t.String(),
})

export const OpenPasscodeSession = t.Object(
  {
    id: t.String(),
    staffUserId: t.String(),
    locationId: t.String(),
    createdAt: t.String({ format: 'date-time' }),
    expiresAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/OpenPasscodeSession' },
)

export const OpenPasscodeSessionList = t.Object({
  passcodeSessions: t.Array(OpenPasscodeSession),
  page: pageInfoSchema,
})

export const OpenPasscodeSessionQuery = t.Object({ ...pagingQuery(100) })
