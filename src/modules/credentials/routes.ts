// /credentials: the tenant's `tpk_live_` tables-API credentials (src/platform/auth/credentials.ts),
// made and revoked by an owner as the command line does. The token is answered once, at creation.
import { Elysia } from 'elysia'
import { createCredential, listCredentials, revokeCredential } from '../../platform/auth/credentials'
import type { Platform } from '../../platform/platform'
import { CreateCredential, CreatedCredential, Credential, CredentialList, CredentialParams } from './model'

export const credentialRoutes = (platform: Platform) =>
  new Elysia({ name: 'credentials', prefix: '/credentials', detail: { tags: ['Credentials'] } })
    .use(platform.auth)
    .get(
      '',
      ({ tenant }) => ({ credentials: listCredentials(platform.control.db, platform.pool, tenant.id) }),
      {
        permission: 'credentials:read',
        tenantWide: true,
        response: CredentialList,
        detail: {
          summary: 'List tables-API credentials',
          description: 'Oldest first, revoked ones included. Never the token: only its last four characters.',
        },
      },
    )
    .post(
      '',
      ({ tenant, actor, body, set }) => {
        set.status = 201
        return createCredential(
          platform.control.db,
          platform.pool,
          platform.authDeps.access,
          { ...body, tenantId: tenant.id },
          actor,
        )
      },
      {
        permission: 'credentials:manage',
        tenantWide: true,
        body: CreateCredential,
        response: { 201: CreatedCredential },
        detail: {
          summary: 'Create a tables-API credential',
          description:
            'Answers the credential and its `tpk_live_` token, shown only here. The credential opens the tables-API routes (`/tables-api/v1/...`) its scopes allow, at the locations listed, up to its rate limit. Audited as `credential.create`.',
        },
      },
    )
    .post(
      '/:id/revoke',
      ({ tenant, actor, params }) =>
        revokeCredential(platform.control.db, platform.pool, params.id, { actor, tenantId: tenant.id }),
      {
        permission: 'credentials:manage',
        tenantWide: true,
        params: CredentialParams,
        response: Credential,
        detail: {
          'x-problems': ['conflict'],
          summary: 'Revoke a tables-API credential',
          description:
            'From the next request on, its token is refused with 401. Revoking twice is 409; another tenant’s credential is 404. Audited as `credential.revoke`.',
        },
      },
    )
