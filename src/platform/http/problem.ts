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

const titles: Record<ProblemCode, string> = {
  validation_failed: 'Validation failed',
  unauthenticated: 'Authentication required',
  payment_required: 'Payment required',
  forbidden: 'Forbidden',
  tenant_suspended: 'Tenant suspended',
  not_found: 'Not found',
  tenant_not_found: 'Tenant not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  idempotency_key_in_use: 'Idempotency key in use',
  option_unavailable: 'Option no longer available',
  precondition_failed: 'Precondition failed',
  payload_too_large: 'Payload too large',
  uri_too_long: 'URI too long',
  unsupported_media_type: 'Unsupported media type',
  idempotency_key_reused: 'Idempotency key reused with another request',
  locked: 'Locked',
  precondition_required: 'Precondition required',
  rate_limited: 'Too many requests',
  headers_too_large: 'Request header fields too large',
  internal: 'Internal error',
  not_implemented: 'Not implemented',
  unavailable: 'Service unavailable',
}

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

export function problemDocument(error: ApiError, requestId: string): Problem {
  return {
    ...error.options.extensions,
    type: `https://restaurant-ops.dev/problems/${error.code.replaceAll('_', '-')}`,
    title: titles[error.code],
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
