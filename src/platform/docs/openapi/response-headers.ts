// The response headers clients rely on, declared from the route table and shared in
// components/headers: `x-request-id` on every response, `Retry-After` on every 429 and 503,
// `Location` on each 201 that creates a record the API serves (created-location.ts), `ETag`
// wherever a record whose change requires `if-match` is answered, and the RateLimit fields on the
// tables API (the routes a credential may call). Shared problem responses carry theirs (problems.ts).
import { acceptableRequestId } from '../../foundation/request-context'
import { VERSION_TAG_PATTERN } from '../../http/version-tag'
import type { Operation, Schema } from './json-schema'
import type { RouteFacts } from './routes'

export const headerComponents: Record<string, Schema> = {
  RequestId: {
    description:
      'The id of the request: the `x-request-id` it sent when that is 1..128 of `A-Za-z0-9._:-`, else a new one. Problem documents repeat it as `requestId`.',
    required: true,
    schema: { type: 'string', pattern: acceptableRequestId.source },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  Location: {
    description: 'The created record, where GET answers it: this path and the new id.',
    required: true,
    schema: { type: 'string', format: 'uri-reference' },
  },
  ETag: {
    description: 'The record’s `version`, as `if-match` takes it: the digits alone, not a quoted entity tag.',
    required: true,
    schema: { type: 'string', pattern: VERSION_TAG_PATTERN.source },
  },
  RateLimit: {
    description:
      'Where the credential’s limit stands (sent to credentials only): `limit=<n>, remaining=<n>, reset=<seconds>`.',
    schema: { type: 'string', pattern: '^limit=[0-9]+, remaining=[0-9]+, reset=[0-9]+$' },
  },
  RateLimitLimit: {
    description: 'Requests the tables-API credential may make in the window (sent to credentials only).',
    schema: { type: 'integer', minimum: 1 },
  },
  RateLimitRemaining: {
    description: 'Requests the credential has left in the window.',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitReset: {
    description: 'Seconds until the window starts again.',
    schema: { type: 'integer', minimum: 1 },
  },
  RateLimitPolicy: {
    description: 'The credential’s limit and its window in seconds: `<limit>;w=<seconds>`.',
    schema: { type: 'string', pattern: '^[0-9]+;w=[0-9]+$' },
  },
}

export const headerRef = (name: string): Schema => ({
  $ref: `#/components/headers/${name}`,
})

/** What a credential's request is answered with (platform/auth/rate-limit.ts). */
export const rateLimitHeaders: Record<string, Schema> = {
  RateLimit: headerRef('RateLimit'),
  'RateLimit-Limit': headerRef('RateLimitLimit'),
  'RateLimit-Remaining': headerRef('RateLimitRemaining'),
  'RateLimit-Reset': headerRef('RateLimitReset'),
  'RateLimit-Policy': headerRef('RateLimitPolicy'),
}

/** A path template with its parameters unnamed (`/order/{}/payments`), to compare templates. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}')

/** The record an operation with `if-match` changes: its path up to its last parameter. */
const recordOf = (path: string) => path.slice(0, path.lastIndexOf('}') + 1)

/** Adds the headers each route's own responses carry. */
export function declareResponseHeaders(
  paths: Record<string, Record<string, Operation>>,
  routes: RouteFacts[],
): void {
  const conditional = routes.filter((route) => route.headers.includes('if-match'))
  const versioned = new Set(conditional.map((route) => shape(recordOf(route.path))))
  for (const route of routes) {
    // The record itself: its GET, the 201 that made it, the answer to a conditional change.
    const answersVersioned =
      route.headers.includes('if-match') ||
      (route.method === 'get' && versioned.has(shape(route.path))) ||
      (route.locatesCreated && versioned.has(`${shape(route.path)}/{}`))
    for (const [status, response] of Object.entries(paths[route.path]![route.method]!.responses)) {
      if ('$ref' in response) continue
      const code = Number(status)
      const headers: Record<string, Schema> = { 'x-request-id': headerRef('RequestId') }
      if (code === 429 || code === 503) headers['Retry-After'] = headerRef('RetryAfter')
      if (code === 201 && route.locatesCreated) headers.Location = headerRef('Location')
      if (answersVersioned && code >= 200 && code < 300 && response.content) headers.ETag = headerRef('ETag')
      if (route.credentialScope) Object.assign(headers, rateLimitHeaders)
      response.headers = { ...(response.headers as Record<string, Schema> | undefined), ...headers }
    }
  }
}
