// One error type for the whole service, with one code-to-status map, rendered as
// RFC 9457 problem documents (application/problem+json).

export const problemStatus = {
  validation_failed: 400,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  tenant_suspended: 403,
  not_found: 404,
  tenant_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_key_in_use: 409,
  option_unavailable: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  locked: 423,
  precondition_required: 428,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
} as const

export type ProblemCode = keyof typeof problemStatus

/** What each problem type means: its title, and the page its `type` URL serves (problem-pages.ts). */
export const problemTypes: Record<ProblemCode, { title: string; explanation: string }> = {
  validation_failed: {
    title: 'Validation failed',
    explanation:
      'A path or query parameter, a header or the JSON body does not match the operation’s schema, or breaks a rule the schema cannot express. `errors` lists each field (`query/limit`, `body/lines/0/quantity`, `headers/if-match`) with what is wrong; fix those and send again.',
  },
  unauthenticated: {
    title: 'Authentication required',
    explanation:
      'No usable credential: the `Authorization: Bearer` token is missing, malformed, expired, revoked or not for this service. Sign in again or send a valid token.',
  },
  payment_required: {
    title: 'Payment required',
    explanation:
      'The payment provider declined the card or the payment could not be taken. The body says why; another card or tender may succeed.',
  },
  forbidden: {
    title: 'Forbidden',
    explanation:
      'The caller is known but may not do this: it lacks the permission primitive the operation requires (`x-permission`), acts at a location outside its scope, or is a credential used outside its scopes or allowlisted locations.',
  },
  tenant_suspended: {
    title: 'Tenant suspended',
    explanation:
      'The business this request addresses is suspended by the operator of this service: every tenant route refuses until it is resumed. Nothing is lost; its data and scheduled work wait.',
  },
  not_found: {
    title: 'Not found',
    explanation:
      'No record with this id exists for this caller (records at locations the caller cannot reach count as absent), or no route matches the path.',
  },
  tenant_not_found: {
    title: 'Tenant not found',
    explanation: 'The `x-tenant-id` or `x-tenant-slug` header (or the default tenant) names no tenant.',
  },
  method_not_allowed: {
    title: 'Method not allowed',
    explanation: 'The path exists but not with this method; the `Allow` header lists the methods it has.',
  },
  conflict: {
    title: 'Conflict',
    explanation:
      'The request contradicts the current state: a unique value already taken, a reference that would break, or a transition the record’s status does not allow. Read the record again; the body often carries its current state.',
  },
  idempotency_key_in_use: {
    title: 'Idempotency key in use',
    explanation:
      'A request with the same `idempotency-key` is still being processed. Retry after `Retry-After` seconds to get its answer.',
  },
  option_unavailable: {
    title: 'Option no longer available',
    explanation:
      'What was chosen (a time slot, a table, an option) was available when read but is not any more. Read the availability again and choose another.',
  },
  precondition_failed: {
    title: 'Precondition failed',
    explanation:
      'The `if-match` version is not the record’s current one: someone changed it since it was read. Read it again (the body carries the current version) and retry with that.',
  },
  payload_too_large: {
    title: 'Payload too large',
    explanation:
      'The request body is larger than the server accepts (MAX_BODY_BYTES, or the upload’s own limit).',
  },
  uri_too_long: {
    title: 'URI too long',
    explanation: 'The request target (path and query) is longer than 8 KiB.',
  },
  unsupported_media_type: {
    title: 'Unsupported media type',
    explanation: 'Request bodies are JSON: send `content-type: application/json` (or no content type).',
  },
  idempotency_key_reused: {
    title: 'Idempotency key reused with another request',
    explanation:
      'This `idempotency-key` was first used with a different request (method, path or body). Use a new key for a new request.',
  },
  locked: {
    title: 'Locked',
    explanation: 'The record is locked by another operation in progress; retry later.',
  },
  precondition_required: {
    title: 'Precondition required',
    explanation:
      'This operation changes a versioned record only with an `if-match` header carrying the version last read.',
  },
  rate_limited: {
    title: 'Too many requests',
    explanation:
      'Too many requests, or too many failed attempts, in the current window. Wait for `Retry-After` seconds; `RateLimit-*` headers say where the limit stands.',
  },
  headers_too_large: {
    title: 'Request header fields too large',
    explanation: 'The request line and headers together are larger than 16 KiB.',
  },
  internal: {
    title: 'Internal error',
    explanation:
      'Something failed on the server. Nothing the request asked for is half done (writes are transactional); report the `requestId` if it persists.',
  },
  not_implemented: {
    title: 'Not implemented',
    explanation: 'The HTTP method is not one this server implements.',
  },
  unavailable: {
    title: 'Service unavailable',
    explanation:
      'The server is busy (database contention), shutting down, or a service it depends on did not answer. Retry after `Retry-After` seconds.',
  },
}

/** Problem codes by status, for documents and pages that list them. */
export const problemCodesOf = (status: number): ProblemCode[] =>
  (Object.keys(problemStatus) as ProblemCode[]).filter((code) => problemStatus[code] === status)

/** Where a problem type is explained: the `type` of its documents, relative to the service's URL. */
export const problemTypeUrl = (code: ProblemCode): string => `/problems/${code.replaceAll('_', '-')}`

export interface FieldError {
  path: string
  message: string
}

export interface Problem {
  type: string
  title: string
  status: number
  detail: string
  code: ProblemCode
  requestId: string
  errors?: FieldError[]
  [extension: string]: unknown
}

export class ApiError extends Error {
  readonly status: number
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly options: {
      errors?: FieldError[]
      headers?: Record<string, string>
      /** Extra members of the problem document, e.g. the current state of a refused transition. */
      extensions?: Record<string, unknown>
    } = {},
  ) {
    super(detail)
    this.name = 'ApiError'
    this.status = problemStatus[code]
  }
}

export const notFound = (entity: string, id?: string): ApiError =>
  new ApiError('not_found', id === undefined ? `${entity} not found` : `${entity} ${id} not found`)

export const conflict = (detail: string, extensions?: Record<string, unknown>): ApiError =>
  new ApiError('conflict', detail, { extensions })

export const invalid = (path: string, message: string): ApiError =>
  new ApiError('validation_failed', message, { errors: [{ path, message }] })

export const forbidden = (detail: string): ApiError => new ApiError('forbidden', detail)

/** 503 with `Retry-After`: the request may succeed as it is once the moment passes. */
export const unavailable = (
  detail: string,
  retryAfterSeconds = 1,
  headers: Record<string, string> = {},
): ApiError =>
  new ApiError('unavailable', detail, { headers: { ...headers, 'retry-after': String(retryAfterSeconds) } })

export function problemDocument(error: ApiError, requestId: string): Problem {
  return {
    ...error.options.extensions,
    type: problemTypeUrl(error.code),
    title: problemTypes[error.code].title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    requestId,
    ...(error.options.errors ? { errors: error.options.errors } : {}),
  }
}

export function problemResponse(error: ApiError, requestId: string): Response {
  return new Response(JSON.stringify(problemDocument(error, requestId)), {
    status: error.status,
    headers: {
      'content-type': 'application/problem+json',
      'x-request-id': requestId,
      ...error.options.headers,
    },
  })
}
