// The `permission` macro every protected route declares: `{ permission: 'vendors:read' }`.
// It authenticates in the transform phase, before body validation, so an anonymous caller gets
// 401 rather than a validation error, and it puts the primitive into the route's OpenAPI detail,
// where the route-table test finds it.
import { Elysia } from 'elysia'
import { type AuthDeps, authenticate, type RequestAuth } from './authenticate'
import type { Permission } from './permissions'

let instances = 0

export function authPlugin(deps: AuthDeps) {
  const resolved = new WeakMap<Request, RequestAuth>()
  // One plugin per platform: the seed keeps Elysia from deduplicating two apps' plugins.
  return new Elysia({ name: 'auth', seed: ++instances }).macro({
    permission: (permission: Permission) => ({
      detail: { 'x-permission': permission, security: [{ bearerAuth: [] }] },
      async transform({ request, route }) {
        resolved.set(request, await authenticate(deps, request, route, permission))
      },
      resolve({ request }) {
        const auth = resolved.get(request)
        if (!auth) throw new Error('authentication did not run before resolve')
        return { db: auth.db, actor: auth.actor, tenant: auth.tenant, permissions: auth.permissions }
      },
    }),
  })
}

export type AuthPlugin = ReturnType<typeof authPlugin>
