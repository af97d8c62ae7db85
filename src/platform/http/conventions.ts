// HTTP conventions of design.md applied to every route: request ids, a bounded JSON body
// parser, and one error handler that turns every failure into a problem document.
import { SQLiteError } from 'bun:sqlite'
import { Elysia, ValidationError } from 'elysia'
import type { Logger } from '../log'
import { ApiError, type FieldError, problemResponse } from './problem'
import { beginRequest, requestInfo } from './request-context'

const jsonContentType = /^application\/([\w.+-]*\+)?json\b/i

async function parseJsonBody(request: Request, contentType: string, maxBodyBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? 0)
  if (declared > maxBodyBytes) throw tooLarge(maxBodyBytes)
  const bytes = await request.arrayBuffer()
  if (bytes.byteLength > maxBodyBytes) throw tooLarge(maxBodyBytes)
  // An empty body is an empty object, so "object (may be empty)" routes accept a bare POST.
  if (bytes.byteLength === 0) return {}
  if (contentType && !jsonContentType.test(contentType)) {
    throw new ApiError(
      'unsupported_media_type',
      `Request bodies must be application/json, not ${contentType}`,
    )
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    throw new ApiError('validation_failed', 'The request body is not valid JSON', {
      errors: [{ path: 'body', message: 'malformed JSON' }],
    })
  }
}

const tooLarge = (max: number) =>
  new ApiError('payload_too_large', `Request bodies are limited to ${max} bytes`)

function validationProblem(error: ValidationError): ApiError {
  const errors: FieldError[] = []
  for (const issue of error.all) {
    const pointer = 'path' in issue && issue.path ? issue.path : ''
    const message = ('summary' in issue && issue.summary) || issue.message
    const path = `${error.type}${pointer}`
    if (!errors.some((e) => e.path === path)) errors.push({ path, message })
  }
  const first = errors[0]
  return new ApiError('validation_failed', first ? `${first.path}: ${first.message}` : 'Invalid request', {
    errors,
  })
}

/** Maps anything thrown while handling a request to the ApiError that describes it. */
export function toApiError(error: unknown, elysiaCode: string | number): ApiError {
  if (error instanceof ApiError) return error
  // Elysia wraps what a parse hook throws in its ParseError; ours carries the real problem.
  if (error instanceof Error && error.cause instanceof ApiError) return error.cause
  // A response that fails its own schema is our bug, not the caller's: 500, and logged.
  if (error instanceof ValidationError && error.type === 'response') {
    return new ApiError('internal', 'The response did not match its documented schema')
  }
  if (error instanceof ValidationError) return validationProblem(error)
  if (elysiaCode === 'PARSE') return new ApiError('validation_failed', 'The request body could not be parsed')
  if (elysiaCode === 'NOT_FOUND') return new ApiError('not_found', 'No route matches this method and path')
  if (error instanceof SQLiteError) {
    if (error.code?.startsWith('SQLITE_CONSTRAINT_UNIQUE') || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
      return new ApiError('conflict', 'A record with the same unique value already exists')
    if (error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
      return new ApiError('conflict', 'The change would break a reference between records')
    if (error.code?.startsWith('SQLITE_BUSY'))
      return new ApiError('unavailable', 'The database is busy; retry shortly', {
        headers: { 'retry-after': '1' },
      })
  }
  return new ApiError('internal', 'An unexpected error occurred')
}

export function httpConventions(options: { maxBodyBytes: number; log: Logger }) {
  return new Elysia({ name: 'http-conventions' })
    .onRequest(({ request, server, set }) => {
      const info = beginRequest(request, server?.requestIP(request)?.address ?? null)
      set.headers['x-request-id'] = info.requestId
    })
    .onParse({ as: 'global' }, ({ request, contentType }) => {
      if (request.method === 'GET' || request.method === 'HEAD') return
      return parseJsonBody(request, contentType, options.maxBodyBytes)
    })
    .onError({ as: 'global' }, ({ error, code, request }) => {
      const apiError = toApiError(error, code)
      const { requestId } = requestInfo(request)
      if (apiError.status >= 500) {
        options.log.error('request failed', {
          requestId,
          method: request.method,
          url: request.url,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        })
      }
      return problemResponse(apiError, requestId)
    })
}
