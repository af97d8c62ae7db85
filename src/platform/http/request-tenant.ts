// Which tenant a request is for, read from the request alone before any routing or body parsing:
// a cluster node passes a request to the node that owns its tenant (cluster/routing.ts), an HTTP
// worker to the worker that holds it (worker-affinity.ts). Node-local paths (probes, docs, the
// operator API other than one tenant's routes) are for no tenant.
import { withBearerCookie } from '../auth/bearer-cookie'
import { hashToken, tenantOfToken } from '../auth/tokens'

/** `token`: the tenant comes from a bearer token, which its owner alone can check. */
export type Target = { id?: string; slug?: string; token?: true } | { place: true }

const nodeLocal = /^\/(?:$|health|docs|openapi|problems|\.well-known|admin\/)/
const adminTenant = /^\/admin\/v1\/tenants\/([^/]+)/
const mediaTenant = /^\/media\/(?:uploads|files)\/([^/]+)\//
const tenantCreations = new Set(['POST /admin/v1/tenants', 'POST /admin/v1/tenants/import'])

const tenantBearer = /^bearer\s+((?:vps_|tpk_live_)\S*)$/i

/**
 * The tenant a request is for, or null when this node answers it whoever owns what. A `vps_` or
 * `tpk_live_` token's own tenant comes first (the one it names, else, for a token from before
 * tokens named it, the one `legacyTokenTenant` finds by its hash): its owner holds its row.
 */
export function tenantTarget(
  request: Request,
  path: string,
  defaultSlug: string,
  legacyTokenTenant: (tokenHash: string) => string | undefined = () => undefined,
): Target | null {
  if (tenantCreations.has(`${request.method} ${path}`)) return { place: true }
  const admin = adminTenant.exec(path)
  if (admin) return { id: decodeURIComponent(admin[1]!), slug: decodeURIComponent(admin[1]!) }
  if (nodeLocal.test(path)) return null
  const media = mediaTenant.exec(path)
  if (media) return { id: decodeURIComponent(media[1]!) }
  // The browser's event stream sends its token and tenant in cookies (auth/bearer-cookie.ts).
  const headers = path === '/events/stream' ? withBearerCookie(request.headers) : request.headers
  const token = tenantBearer.exec(headers.get('authorization') ?? '')?.[1]
  const tokenTenant = token && (tenantOfToken(token) ?? legacyTokenTenant(hashToken(token)))
  if (tokenTenant) return { id: tokenTenant, token: true }
  const id = headers.get('x-tenant-id')
  if (id) return { id }
  const slug = headers.get('x-tenant-slug')
  if (slug) return { slug }
  // A tenant token whose tenant nobody knows: this node refuses it (401).
  if (token !== undefined) return null
  return { slug: defaultSlug }
}
