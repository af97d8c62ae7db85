// The test kit for client developers, `restaurant-ops/testing`: the real service in-process on a
// free port, over a temporary data directory, with its own development issuer and one tenant
// (empty, or the demo tasting room). Tokens for any role come from that issuer, so requests go
// through the same authentication as in production. Nothing outlives `stop()`.
//
//   const t = await startTestServer({ seed: 'demo' })
//   const { data } = await t.client.GET('/locations')
//   await t.stop()

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRestaurantOpsClient } from '../../client'
import { type Config, configFor } from '../config'
import { listLocationIds } from '../modules/locations'
import { createStaffUser } from '../modules/staff'
import { createTenantWithOwner } from '../modules/tenants'
import type { RoleName } from '../platform/auth/permissions'
import { systemActor } from '../platform/foundation/actor'
import { systemOperator } from '../platform/operator/audit'
import { createApp } from '../server'
import { removeDirectory } from './remove-directory'

export interface TestServerOptions {
  /** `empty` (default): one location and the owner. `demo`: the demo tasting room. */
  seed?: 'empty' | 'demo'
  /** Configuration overrides (the data directory, port and issuer are the kit's). */
  config?: Partial<Config>
}

export interface TestTenant {
  id: string
  slug: string
  /** Its first location. */
  locationId: string
  /** Every location, oldest first (the demo has two). */
  locationIds: string[]
}

export interface TokenRequest {
  /** A built-in role (default `owner`). */
  role?: RoleName
  /** Holds the role at this location only; unset: tenant-wide. */
  locationId?: string
}

/** The typed client of the API (client/index.ts), acting with one bearer token in the tenant. */
export type ApiClient = ReturnType<typeof createRestaurantOpsClient>

export interface TestServer {
  /** `http://127.0.0.1:<port>`. */
  baseUrl: string
  tenant: TestTenant
  /** A JWT of the kit's issuer for a staff user with that role (made on first request, then reused). */
  token(request?: TokenRequest): Promise<string>
  /** A client of the API at `baseUrl`, as the tenant's owner (pass `headers` per call to act as another). */
  client: ApiClient
  /** A client acting with `token` in the kit's tenant. */
  clientFor(token: string): ApiClient
  stop(): Promise<void>
}

const TENANT_SLUG = 'test'
const OWNER_SUBJECT = 'test-owner'

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'restaurant-ops-testkit-'))
  const config = configFor({
    ...options.config,
    dataDir,
    backupDir: join(dataDir, 'backups'),
    authJwksUrl: undefined,
    defaultTenantSlug: TENANT_SLUG,
  })
  const { app, platform } = await createApp({ config })
  const issuer = platform.devIssuer!
  const created = createTenantWithOwner(platform, systemOperator('test-kit'), {
    slug: TENANT_SLUG,
    name: options.seed === 'demo' ? 'Demo Tasting Room' : 'Test Tenant',
    timeZone: 'America/Los_Angeles',
    owner: { subject: OWNER_SUBJECT, email: 'owner@test.example', firstName: 'Test', lastName: 'Owner' },
    seed: options.seed ?? 'empty',
  })
  const { db } = platform.pool.get(created.tenant.id)
  const tenant: TestTenant = {
    id: created.tenant.id,
    slug: TENANT_SLUG,
    locationId: created.location.id,
    locationIds: listLocationIds(db),
  }
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => app.handle(request) })
  const baseUrl = `http://127.0.0.1:${server.port}`

  const subjects = new Map<string, string>([[`owner@`, OWNER_SUBJECT]])
  const subjectFor = ({ role = 'owner', locationId }: TokenRequest): string => {
    const key = `${role}@${locationId ?? ''}`
    let subject = subjects.get(key)
    if (!subject) {
      subject = `test-${role}-${subjects.size}`
      createStaffUser(db, systemActor(tenant.id, 'test-kit'), {
        email: `${subject}@test.example`,
        firstName: 'Test',
        lastName: role,
        subject,
        role,
        locationId,
      })
      subjects.set(key, subject)
    }
    return subject
  }
  const token = (request: TokenRequest = {}) => issuer.mint({ subject: subjectFor(request) })
  const clientFor = (bearer: string): ApiClient =>
    createRestaurantOpsClient({ baseUrl, token: bearer, tenantId: tenant.id })

  return {
    baseUrl,
    tenant,
    token,
    client: clientFor(await token()),
    clientFor,
    async stop() {
      await server.stop(true)
      platform.close()
      removeDirectory(dataDir)
    },
  }
}
