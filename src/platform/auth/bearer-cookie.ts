// The bearer token in a cookie, for the one client that cannot send an Authorization header: the
// browser's EventSource. A route that declares `bearerCookie: true` (plugin.ts) takes the token
// and the tenant from these cookies when the request has no Authorization header. The cookies are
// set by a request that did send the header (so no other site can set them), are HttpOnly (no
// script reads them), SameSite=Strict (no other site's page sends them) and sent only to `path`.
// The token stays out of URLs, where logs and history would keep it.

const BEARER_COOKIE = 'ro_bearer'
const TENANT_COOKIE = 'ro_tenant'

/** The request's headers, with the cookies' token and tenant standing in for absent headers. */
export function withBearerCookie(headers: Headers): Headers {
  if (headers.has('authorization')) return headers
  const cookie = headers.get('cookie')
  if (!cookie) return headers
  const jar = new Bun.CookieMap(cookie)
  const token = jar.get(BEARER_COOKIE)
  if (!token) return headers
  const result = new Headers(headers)
  result.set('authorization', `Bearer ${token}`)
  const tenant = jar.get(TENANT_COOKIE)
  if (tenant && !headers.has('x-tenant-id') && !headers.has('x-tenant-slug'))
    result.set('x-tenant-id', tenant)
  return result
}

/** The Set-Cookie values that hand `token` (and its tenant) to the routes under `path` for `maxAgeSeconds`. */
export function bearerCookies(
  token: string,
  tenantId: string,
  options: { path: string; maxAgeSeconds: number; secure: boolean },
): string[] {
  const attributes = {
    path: options.path,
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: options.secure,
    maxAge: options.maxAgeSeconds,
  }
  return [
    new Bun.Cookie(BEARER_COOKIE, token, attributes).serialize(),
    new Bun.Cookie(TENANT_COOKIE, tenantId, attributes).serialize(),
  ]
}
