import { t } from 'elysia'

export const CreatePasscodeSession = t.Object(
  {
    locationId: t.String({ minLength: 1, maxLength: 200, description: 'The location the POS device is at.' }),
    staffUserId: t.String({ minLength: 1, maxLength: 200 }),
    passcode: t.String({ pattern: '^[0-9]{4,8}$', description: '4 to 8 digits.' }),
  },
  { additionalProperties: false },
)

export const PasscodeSession = t.Object({
  token: t.String({ description: '`vps_` followed by 43 base64url characters; shown only here.' }),
  expiresAt: t.String({ format: 'date-time' }),
  staffUserId: t.String(),
  locationId: t.String(),
})
