// The problem document schema, one shared response per problem status, and the statuses each
// operation can answer, derived from what its route declares. Modules never write these: a route
// adds a problem its options do not imply with `detail: { 'x-problems': ['rate_limited'] }`.
import { STATUS_CODES } from 'node:http'
import { type ProblemCode, problemCodesOf, problemStatus, problemTypes } from '../../foundation/problem'
import type { Schema } from './json-schema'
import { headerRef, rateLimitHeaders } from './response-headers'
import type { RouteFacts } from './routes'

const allCodes = Object.keys(problemStatus) as ProblemCode[]

export const problemSchema: Schema = {
  type: 'object',
  description:
    'An RFC 9457 problem document (`application/problem+json`). Members beyond these carry the state a refusal depends on (`currentStatus`, `currentVersion`, ...).',
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
  properties: {
    type: {
      type: 'string',
      format: 'uri-reference',
      description: 'Where the problem type is explained (`/problems/{code}`, relative to this service).',
    },
    title: { type: 'string', description: 'The problem type, in words.' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string', description: 'What went wrong with this request.' },
    code: {
      type: 'string',
      enum: allCodes,
      description: allCodes.map((code) => `\`${code}\`: ${problemTypes[code].title}.`).join(' '),
    },
    requestId: { type: 'string', description: 'The `x-request-id` of the request, for support.' },
    errors: {
      type: 'array',
      description: 'Each field that failed validation.',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: {
          path: {
            type: 'string',
            description:
              'Where: `body/<pointer>`, `query/<name>`, `params/<name>` or `headers/<name>`, e.g. `body/lines/0/quantity`.',
          },
          message: { type: 'string' },
        },
      },
    },
  },
}

const header = (description: string, type = 'string') => ({ description, schema: { type } })

/** Response headers that come with some problem statuses, besides `x-request-id` on all. */
const problemHeaders: Partial<Record<number, Record<string, unknown>>> = {
  401: { 'WWW-Authenticate': header('`Bearer`.') },
  405: { Allow: header('The methods the path has.') },
  409: { 'Retry-After': header('With `idempotency_key_in_use`: when to retry.', 'integer') },
  429: { 'Retry-After': headerRef('RetryAfter'), ...rateLimitHeaders },
  503: { 'Retry-After': headerRef('RetryAfter') },
}

/** `Payload Too Large` -> `PayloadTooLarge`: the component name of a status's response. */
export const problemResponseName = (status: number): string =>
  (STATUS_CODES[status] ?? `Status ${status}`)
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')

/** Every problem status as a shared response: its codes, headers and the problem schema. */
export function problemResponses(): Record<string, Schema> {
  const statuses = [...new Set<number>(Object.values(problemStatus))].sort((a, b) => a - b)
  return Object.fromEntries(
    statuses.map((status) => {
      const codes = problemCodesOf(status)
      return [
        problemResponseName(status),
        {
          description: `${STATUS_CODES[status]}: ${codes.map((c) => `\`${c}\` (${problemTypes[c].title.toLowerCase()})`).join(', ')}.`,
          headers: { 'x-request-id': headerRef('RequestId'), ...problemHeaders[status] },
          content: {
            'application/problem+json': {
              schema: {
                allOf: [
                  { $ref: '#/components/schemas/Problem' },
                  { type: 'object', properties: { code: { type: 'string', enum: codes } } },
                ],
              },
            },
          },
        },
      ]
    }),
  )
}

const has = (route: RouteFacts, header: string) => route.headers.includes(header)

/** The problem statuses a route can answer, from its options and its inputs. */
export function problemStatusesOf(route: RouteFacts): number[] {
  // Any request: transport limits (conventions.ts), an internal error, a busy or stopping server.
  const statuses = new Set<number>([414, 431, 500, 503])
  const tenantRoute = route.permission !== undefined
  const body = route.schemas.body !== undefined || route.rawBody
  const validates = route.params.length + route.query.length + route.headers.length > 0 || body
  if (validates || tenantRoute) statuses.add(400)
  // Authenticating reads the tenant and location headers: 400 when they disagree with the path,
  // 404 for an unknown tenant or location, 403 outside the caller's reach.
  if (tenantRoute || route.bearer) for (const status of [400, 401, 403, 404]) statuses.add(status)
  if (route.params.length > 0 || route.located) statuses.add(404)
  if (route.schemas.body) for (const status of [413, 415]) statuses.add(status)
  if (route.rawBody) statuses.add(413)
  if (route.method !== 'get' && route.method !== 'head' && tenantRoute) statuses.add(409)
  if (has(route, 'idempotency-key')) for (const status of [409, 422]) statuses.add(status)
  if (has(route, 'if-match')) for (const status of [412, 428]) statuses.add(status)
  if (route.credentialScope) statuses.add(429)
  for (const code of route.problems) statuses.add(problemStatus[code])
  return [...statuses].sort((a, b) => a - b)
}
