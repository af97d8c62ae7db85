// HTTP conventions (docs/architecture.md, "One request") applied to every route: request ids, the transport limits, a
// bounded JSON body parser, `Location` on a 201, and one error handler that turns every failure
// into a problem document.
import { SQLiteError } from 'bun:sqlite'
import type { TSchema } from '@sinclair/typebox'
import { Elysia, ValidationError } from 'elysia'
import { DEFAULT_MAX_JSON_DEPTH } from '../../config'
import type { Logger } from '../foundation/log'
import {
  ApiError,
  type FieldError,
  type ProblemCode,
  problemResponse,
  unavailable,
} from '../foundation/problem'
import { beginRequest, requestInfo } from '../foundation/request-context'
import { commitsPending, leaveWriteTurn } from '../tenancy/transaction'
import type { ConnectionBalance } from './connection-balance'
import type { Drain } from './drain'
import {
  assertBodyShape,
  assertBodyValid,
  assertJsonDepth,
  type BodySchemas,
  clipMessage,
  isRawBodyRoute,
} from './request-body'

/**
 * Transport limits, checked before routing. Bun's own parser refuses beyond its limits with a bare
 * status line; `serve` sets its ceiling above these (see PARSER_HEADER_CEILING) so that requests
 * between the two get a problem document like every other error.
 */
export const MAX_REQUEST_TARGET_BYTES = 8 * 1024
export const MAX_HEADER_SECTION_BYTES = 16 * 1024
const implementedMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/** The request line's target (path and query) as the client sent it. */
function requestTarget(url: string): string {
  return url.slice(url.indexOf('/', url.indexOf('//') + 2))
}

/** Like Bun's own refusals, these end the connection: what follows on it is unlikely to be sane. */
const refuse = (code: ProblemCode, detail: string) =>
  new ApiError(code, detail, { headers: { connection: 'close' } })

function transportRefusal(request: Request): ApiError | null {
  if (!implementedMethods.has(request.method))
    return refuse('not_implemented', `The ${request.method} method is not supported`)
  const target = requestTarget(request.url)
  if (target.length > MAX_REQUEST_TARGET_BYTES)
    return refuse(
      'uri_too_long',
      `Request targets (path and query) are limited to ${MAX_REQUEST_TARGET_BYTES} bytes`,
    )
  // The request line, every `name: value` line and the blank line after them, as Bun counts them.
  let size = request.method.length + target.length + 14
  for (const [name, value] of request.headers) size += name.length + value.length + 4
  if (size > MAX_HEADER_SECTION_BYTES)
    return refuse(
      'headers_too_large',
      `The request line and headers are limited to ${MAX_HEADER_SECTION_BYTES} bytes`,
    )
  return null
}

const jsonContentType = /^application\/([\w.+-]*\+)?json\b/i

/** The body, refused as soon as it (declared or as it arrives) passes the limit: never buffered beyond it. */
export async function readBody(request: Request, maxBodyBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? 0)
  if (declared > maxBodyBytes) throw tooLarge(maxBodyBytes)
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of request.body ?? []) {
    size += chunk.byteLength
    if (size > maxBodyBytes) throw tooLarge(maxBodyBytes)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

interface BodyLimits {
  maxBodyBytes: number
  maxJsonDepth: number
}

/**
 * The JSON body, refused by its size, its depth and its shape in that order, each before the next
 * walks it, and before authentication as the size is (request-body.ts says why). Its schema is
 * checked later, where Elysia would: after authentication, so a caller without the permission
 * learns nothing of the schema.
 */
async function parseJsonBody(
  request: Request,
  contentType: string,
  limits: BodyLimits,
  schema: TSchema | undefined,
): Promise<unknown> {
  const bytes = await readBody(request, limits.maxBodyBytes)
  // An empty body is an empty object, so "object (may be empty)" routes accept a bare POST.
  if (bytes.byteLength === 0) return {}
  if (contentType && !jsonContentType.test(contentType)) {
    throw new ApiError(
      'unsupported_media_type',
      `Request bodies must be application/json, not ${contentType}`,
    )
  }
  assertJsonDepth(bytes, limits.maxJsonDepth)
  let body: unknown
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    throw new ApiError('validation_failed', 'The request body is not valid JSON', {
      errors: [{ path: 'body', message: 'malformed JSON' }],
    })
  }
  assertBodyShape(schema, body)
  return body
}

const tooLarge = (max: number) =>
  new ApiError('payload_too_large', `Request bodies are limited to ${max} bytes`)

type Issue = Pick<ValidationError['all'][number], 'message'> & { summary?: string; schema?: unknown }

const isLiteral = (branch: { const?: unknown; type?: unknown }) => branch.const !== undefined
const isNumericString = (branch: { type?: unknown; format?: unknown }) =>
  branch.type === 'string' && (branch.format === 'integer' || branch.format === 'numeric')

/** The number a `t.Integer` / `t.Numeric` parameter must spell, with its bounds. */
function numberRule(schema: { type?: unknown; minimum?: number; maximum?: number }): string {
  const kind = schema.type === 'integer' ? 'an integer' : 'a number'
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    return `must be ${kind} from ${schema.minimum} to ${schema.maximum}`
  if (schema.minimum !== undefined) return `must be ${kind} of at least ${schema.minimum}`
  if (schema.maximum !== undefined) return `must be ${kind} of at most ${schema.maximum}`
  return `must be ${kind}`
}

/**
 * What is wrong, in the client's terms: the allowed values of an enum (a union of literals), the
 * number a numeric parameter must spell, else TypeBox's own summary.
 */
function issueMessage(issue: Issue): string {
  const schema = (issue.schema ?? {}) as { anyOf?: Record<string, unknown>[] }
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : []
  const literals = branches.filter(isLiteral)
  if (literals.length > 0 && literals.length + 1 >= branches.length) {
    const nullable = literals.length < branches.length ? ' (or null)' : ''
    return `must be one of: ${literals.map((b) => b.const).join(', ')}${nullable}`
  }
  const number = branches.find((b) => !isNumericString(b))
  if (branches.some(isNumericString) && number) return numberRule(number)
  return issue.summary || issue.message
}

/**
 * Elysia checks a numeric query or path parameter while decoding it, where the parameter's name
 * is not known (its error's type is `property`): the name is that of the one parameter whose value
 * is the refused number.
 */
function decodedParameter(request: Request | undefined, value: unknown): string {
  if (!request) return 'query'
  for (const [name, raw] of new URL(request.url).searchParams)
    if (raw === String(value) || Number(raw) === value) return `query/${name}`
  return 'query'
}

function validationProblem(error: ValidationError, request?: Request): ApiError {
  const errors: FieldError[] = []
  for (const issue of error.all) {
    const pointer = 'path' in issue && issue.path ? issue.path : ''
    const message = clipMessage(issueMessage(issue))
    const path =
      error.type === 'property'
        ? decodedParameter(request, 'value' in issue ? issue.value : error.value)
        : `${error.type}${pointer}`
    if (!errors.some((e) => e.path === path)) errors.push({ path, message })
  }
  const first = errors[0]
  return new ApiError('validation_failed', first ? `${first.path}: ${first.message}` : 'Invalid request', {
    errors,
  })
}

/** Maps anything thrown while handling a request to the ApiError that describes it. */
export function toApiError(
  error: unknown,
  elysiaCode: string | number,
  request?: Request,
  allow?: (pathname: string) => string | undefined,
): ApiError {
  if (error instanceof ApiError) return error
  // Elysia wraps what a parse hook throws in its ParseError; ours carries the real problem.
  if (error instanceof Error && error.cause instanceof ApiError) return error.cause
  // A response that fails its own schema is our bug, not the caller's: 500, and logged.
  if (error instanceof ValidationError && error.type === 'response') {
    return new ApiError('internal', 'The response did not match its documented schema')
  }
  if (error instanceof ValidationError) return validationProblem(error, request)
  if (elysiaCode === 'PARSE') return new ApiError('validation_failed', 'The request body could not be parsed')
  if (elysiaCode === 'NOT_FOUND') {
    const methods = request && allow?.(new URL(request.url).pathname)
    if (methods)
      return new ApiError('method_not_allowed', `This path does not have the ${request.method} method`, {
        headers: { allow: methods },
      })
    return new ApiError('not_found', 'No route matches this method and path')
  }
  if (error instanceof SQLiteError) {
    if (error.code?.startsWith('SQLITE_CONSTRAINT_UNIQUE') || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
      return new ApiError('conflict', 'A record with the same unique value already exists')
    if (error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
      return new ApiError('conflict', 'The change would break a reference between records')
    if (error.code?.startsWith('SQLITE_BUSY')) return unavailable('The database is busy; retry shortly')
  }
  return new ApiError('internal', 'An unexpected error occurred')
}

const MAX_LOGGED_ERROR_CHARS = 2000

/**
 * What a failed request's log line says of its error. Elysia's ValidationError carries the whole
 * value it refused in its message (request-body.ts), so a response that failed its schema is named by
 * its first error alone; any other error's text is clipped.
 */
function loggedError(error: unknown): string {
  if (error instanceof ValidationError) {
    const first = error.valueError
    return `${error.type} did not match its schema${first ? ` at ${first.path || '/'}: ${first.message}` : ''}`
  }
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error)
  return text.length > MAX_LOGGED_ERROR_CHARS ? `${text.slice(0, MAX_LOGGED_ERROR_CHARS)}…` : text
}

/**
 * Group commit: a response goes out only once the writes it made, or could have read, are
 * committed; a failed commit fails the request. Its handler is done: it leaves its turn at writing
 * (tenancy/transaction.ts).
 */
async function awaitCommits({ request }: { request: Request }): Promise<void> {
  leaveWriteTurn(request)
  const pending = commitsPending()
  if (pending) await pending
}

export function httpConventions(options: {
  maxBodyBytes: number
  /** MAX_JSON_DEPTH; DEFAULT_MAX_JSON_DEPTH when not given. */
  maxJsonDepth?: number
  log: Logger
  /** The graceful stop of `serve`; absent when nothing stops the app gracefully (tests). */
  drain?: Drain
  /** Keeps the HTTP workers' shares of client connections even (an HTTP worker of `serve`). */
  balance?: ConnectionBalance
  /** The `Allow` value of a known path (allowed-methods.ts), to answer a wrong method with 405. */
  allow?: (pathname: string) => string | undefined
  /** The app's body schemas whose checks it took over (request-body.ts `takeOverBodyChecks`). */
  bodySchemas?: BodySchemas
  /** The `Location` of a 201's created record (created-location.ts). */
  location?: (method: string, route: string, pathname: string, body: unknown) => string | undefined
}) {
  const { drain, balance } = options
  const limits = {
    maxBodyBytes: options.maxBodyBytes,
    maxJsonDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
  }
  return (
    new Elysia({ name: 'http-conventions' })
      .onRequest(({ request, server, set }) => {
        // Null for a request another worker passed on (worker-affinity.ts): not a client connection.
        const client = server?.requestIP(request)
        const info = beginRequest(request, client?.address ?? null)
        set.headers['x-request-id'] = info.requestId
        if (client && balance?.closesConnection(client.address, client.port)) set.headers.connection = 'close'
        const refusal = transportRefusal(request) ?? drain?.admit(set.headers)
        if (refusal) return problemResponse(refusal, info.requestId)
      })
      .onAfterResponse({ as: 'global' }, ({ set }) => drain?.release(set.headers))
      .onAfterHandle({ as: 'global' }, awaitCommits)
      .onAfterHandle({ as: 'global' }, ({ request, route, set, response }) => {
        if (set.status !== 201 || !options.location) return
        const location = options.location(request.method, route, new URL(request.url).pathname, response)
        if (location) set.headers.location = location
      })
      .onParse({ as: 'global' }, ({ request, route, contentType }) => {
        if (request.method === 'GET' || request.method === 'HEAD') return
        if (isRawBodyRoute(request.method, route)) return
        return parseJsonBody(
          request,
          contentType,
          limits,
          options.bodySchemas?.get(`${request.method} ${route}`),
        )
      })
      // First of the before-handle hooks: where Elysia checks a body, after authentication.
      .onBeforeHandle({ as: 'global' }, ({ request, route, body }) => {
        const schema = options.bodySchemas?.get(`${request.method} ${route}`)
        if (schema) assertBodyValid(schema, body, issueMessage)
      })
      .onError({ as: 'global' }, async ({ error, code, request }) => {
        leaveWriteTurn(request)
        await commitsPending()?.catch(() => {})
        const apiError = toApiError(error, code, request, options.allow)
        const { requestId } = requestInfo(request)
        if (apiError.status >= 500) {
          options.log.error('request failed', {
            requestId,
            method: request.method,
            url: request.url,
            error: loggedError(error),
          })
        }
        return problemResponse(apiError, requestId)
      })
  )
}

/**
 * Checks a body a route read itself (the fields of a multipart form) as a JSON body is checked:
 * its shape, then its schema, each refusal naming the field.
 */
export function assertBodyChecked(schema: TSchema, value: unknown): void {
  assertBodyShape(schema, value)
  assertBodyValid(schema, value, issueMessage)
}
