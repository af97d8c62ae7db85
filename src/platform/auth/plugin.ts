// The route options every protected route declares.
//
// `permission: '<primitive>'` (required on every non-public route; the route-table test walks
// the app and fails without it). Authenticates in the transform phase (after the body is parsed,
// before validation), so an anonymous caller gets 401 rather than a validation error, and a
// `vps_` session naming another location (path, query, body or x-location-id) gets 403 before
// anything runs. The primitive goes into the route's OpenAPI detail as `x-permission`.
//
// `credentialScope: 'reservations:read' | 'reservations:write' | 'webhooks:manage'` (tables-API
// routes only, i.e. paths under /tables-api/v1/). A route that declares it accepts BOTH staff
// authentication (JWT, passcode session, ... checked against `permission` as usual) AND a
// `tpk_live_` credential that holds this scope. A credential is refused (403) on any route
// without `credentialScope`, on any location outside its allowlist (path `locationId`, query,
// body or x-location-id), and beyond its rate limit (429 `rate_limited`, Retry-After and
// RateLimit-* headers). The scope goes into the OpenAPI detail as `x-credential-scope`.
//
//   .get('/locations/:locationId/reservations', handler, {
//     permission: 'reservations:read',
//     credentialScope: 'reservations:read',
//     params: ..., query: ..., response: ..., detail: { summary, description },
//   })
//
// `tenantWide: true` (routes of what belongs to the business as a whole, such as its webhooks,
// whose deliveries carry every location's events): the permission must be held at every
// location; a location-bound principal is 403 whatever the request names.
//
// `bearerCookie: true` (the event stream, for the browser's EventSource): with no Authorization
// header, the token and tenant come from the cookies bearer-cookie.ts describes.
//
// `locatedBy: <LocatedBy>` (routes whose path names a record that lives at a location): before
// the handler runs, the record named by the path parameter is looked up and, when it lives at a
// location outside the request's scope, the request is 404 as if the record did not exist. See
// location-scope.ts for the whole rule.
//
// The handler receives `db`, `actor`, `tenant`, `permissions` and `locations` (the request's
// LocationScope: lists filter by it with `scopeCondition`), and `reach` and `recheck`
// (authenticate.ts) for long-lived responses. For a credential, `actor.kind` is 'credential', `actor.subject` is `credential:<id>`,
// `actor.staffUserId` is null and `actor.locationId` the location the request is at (so audit
// entries name the credential); `permissions` is the credential's scopes.
import { type DocumentDecoration, Elysia } from 'elysia'
import { notFound } from '../foundation/problem'
import type { DatabaseHandle } from '../tenancy/databases'
import { leaveWriteTurn, writeTurn } from '../tenancy/transaction'
import { type AuthDeps, type Authenticated, authenticate, type RequestAuth } from './authenticate'
import type { CredentialScope } from './credentials'
import { type LocatedBy, reaches } from './location-scope'
import type { Permission } from './permissions'

let instances = 0

const CREDENTIAL_SCOPE_KEY = 'x-credential-scope'
const LOCATED_BY_KEY = 'x-located-by'
const TENANT_WIDE_KEY = 'x-tenant-wide'
const BEARER_COOKIE_KEY = 'x-bearer-cookie'

/** Located resources by their `x-located-by` key: the macro may have turned the option into it. */
const locatedByKey = new Map<string, LocatedBy>()

/**
 * 404 for the record the path names when it lives at a location outside the request's scope.
 * Checked right after authentication, before validation, so the answer does not depend on the
 * rest of the request: to this caller the record does not exist.
 */
function assertLocatedWithin(auth: RequestAuth, located: LocatedBy, params: Record<string, string>) {
  if (auth.locations.all) return
  const id = params[located.param]
  if (id === undefined) throw new Error(`locatedBy names a missing path parameter :${located.param}`)
  if (!reaches(auth.locations, located.locationOf(auth.db, id))) throw notFound(located.kind, id)
}

export function authPlugin(deps: AuthDeps) {
  const resolved = new WeakMap<Request, Authenticated>()
  const held = new WeakMap<Request, DatabaseHandle>()
  // One plugin per platform: the seed keeps Elysia from deduplicating two apps' plugins.
  const authOf = (request: Request) => {
    const auth = resolved.get(request)
    if (!auth) throw new Error('authentication did not run before resolve')
    return auth
  }
  return new Elysia({ name: 'auth', seed: ++instances })
    .macro({
      locatedBy: (located: LocatedBy) => {
        const key = `${located.kind}:${located.param}`
        locatedByKey.set(key, located)
        return { detail: { [LOCATED_BY_KEY]: key } as DocumentDecoration }
      },
    })
    .macro({
      tenantWide: (tenantWide: true) => ({ detail: { [TENANT_WIDE_KEY]: tenantWide } as DocumentDecoration }),
    })
    .macro({
      bearerCookie: (accepted: true) => ({ detail: { [BEARER_COOKIE_KEY]: accepted } as DocumentDecoration }),
    })
    .macro({
      credentialScope: (scope: CredentialScope) => ({
        detail: { [CREDENTIAL_SCOPE_KEY]: scope } as DocumentDecoration,
      }),
    })
    .macro({
      permission: (permission: Permission) => {
        // Read from the same route's options: `credentialScope` and `locatedBy` are either still
        // there (declared after `permission`) or already merged into `detail` (declared before it).
        let credentialScope: CredentialScope | undefined
        let tenantWide = false
        let bearerCookie = false
        let located: LocatedBy | undefined
        return {
          introspect(options: Record<string, unknown>) {
            const detail = options.detail as Record<string, unknown> | undefined
            credentialScope = (options.credentialScope ?? detail?.[CREDENTIAL_SCOPE_KEY]) as
              | CredentialScope
              | undefined
            tenantWide = (options.tenantWide ?? detail?.[TENANT_WIDE_KEY]) === true
            bearerCookie = (options.bearerCookie ?? detail?.[BEARER_COOKIE_KEY]) === true
            located =
              (options.locatedBy as LocatedBy | undefined) ??
              locatedByKey.get(detail?.[LOCATED_BY_KEY] as string)
          },
          detail: { 'x-permission': permission, security: [{ bearerAuth: [] }] },
          async transform({ request, route, params, query, body, set }) {
            const auth = await authenticate(
              deps,
              request,
              route,
              { permission, credentialScope, tenantWide, bearerCookie },
              { params, query, body, responseHeaders: set.headers as Record<string, string | number> },
            )
            // Kept open until the response is sent: the pool may evict the tenant while the
            // handler awaits (a payment provider, a webhook target).
            held.set(request, deps.pool.hold(auth.tenant.id))
            if (located) assertLocatedWithin(auth, located, params as Record<string, string>)
            resolved.set(request, auth)
            // A request that may write waits for the tenant's write lock here, off the event loop.
            if (request.method !== 'GET' && request.method !== 'HEAD') await writeTurn(auth.db, request)
          },
          afterResponse({ request }) {
            leaveWriteTurn(request)
            const handle = held.get(request)
            if (!handle) return
            held.delete(request)
            deps.pool.release(handle)
          },
          resolve({ request }) {
            const { db, actor, tenant, permissions, locations, reach, recheck } = authOf(request)
            return { db, actor, tenant, permissions, locations, reach, recheck }
          },
        }
      },
    })
}

export type AuthPlugin = ReturnType<typeof authPlugin>
