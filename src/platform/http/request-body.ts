// The request body: the routes that read their own, and the limits and the check of a JSON body.
//
// Elysia's ValidationError serialises the refused value into its message, pretty-printed, once
// more per error (up to 64): a 50 KB body nested 10,000 deep cost 1.2 s of CPU and 400 MB. So a
// JSON body is refused here, in order, each step before the next walks it:
// 1. by its bytes, when it nests deeper than MAX_JSON_DEPTH (before it is parsed);
// 2. by its shape, when an object or array holds more keys or items than its schema could accept;
// 3. by its schema, where Elysia would check it (after authentication), with errors that name
//    fields and never carry a value. Elysia's own check of a body is switched off.
import { Kind, OptionalKind, type TSchema } from '@sinclair/typebox'
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler'
import { type AnyElysia, mapValueError } from 'elysia'
import { ApiError, type FieldError } from '../foundation/problem'

/** Keys an object may carry beyond its declared ones before its shape is refused. */
export const MAX_UNKNOWN_KEYS = 32
/** Keys of a map, or items of an array, whose schema sets no bound of its own. */
export const MAX_UNBOUNDED_ENTRIES = 1000
/** Errors listed in one problem document, and the length of each message. */
const MAX_LISTED_ERRORS = 10
const MAX_MESSAGE_CHARS = 200

type Schema = TSchema & {
  type?: unknown
  anyOf?: Schema[]
  properties?: Record<string, Schema>
  patternProperties?: Record<string, Schema>
  additionalProperties?: boolean | Schema
  items?: Schema
  maxItems?: number
  maxProperties?: number
}

/**
 * Routes (method and path pattern, e.g. `PUT /media/uploads/:tenantId/:assetId`) that read their
 * request body themselves, as raw bytes of any content type, with their own size limit: the JSON
 * body's parser and checks leave them alone. A route registers itself with `rawBodyRoute` and
 * declares a `parse` hook of its own that hands Elysia the unread stream.
 */
const rawBodyRoutes = new Set<string>()

export function rawBodyRoute(method: string, path: string): string {
  rawBodyRoutes.add(`${method.toUpperCase()} ${path}`)
  return path
}

export const isRawBodyRoute = (method: string, path: string): boolean =>
  rawBodyRoutes.has(`${method.toUpperCase()} ${path}`)

const refusal = (path: string, message: string) =>
  new ApiError('validation_failed', `${path}: ${message}`, { errors: [{ path, message }] })

const OPEN = 0x7b // {
const CLOSE = 0x7d // }
const OPEN_ARRAY = 0x5b // [
const CLOSE_ARRAY = 0x5d // ]
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Where the string opened by the quote at `open` closes: the next quote no backslash escapes. */
function closingQuote(bytes: Uint8Array, open: number): number {
  let quote = bytes.indexOf(QUOTE, open + 1)
  for (;;) {
    if (quote === -1) return bytes.length
    let backslashes = 0
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote
    quote = bytes.indexOf(QUOTE, quote + 1)
  }
}

/**
 * Refuses bytes whose objects and arrays nest deeper than `maxDepth`, before they are parsed.
 * Strings are skipped with the native search, so a long one costs next to nothing.
 */
export function assertJsonDepth(bytes: Uint8Array, maxDepth: number): void {
  let depth = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]
    if (byte === QUOTE) i = closingQuote(bytes, i)
    else if (byte === OPEN || byte === OPEN_ARRAY) {
      if (++depth > maxDepth)
        throw refusal('body', `nests objects and arrays deeper than ${maxDepth} levels (MAX_JSON_DEPTH)`)
    } else if (byte === CLOSE || byte === CLOSE_ARRAY) depth--
  }
}

/** The branches of a schema that could describe a value of this JSON kind. */
function branchesOf(schema: Schema | undefined, kind: 'object' | 'array'): Schema[] {
  if (!schema) return []
  if (Array.isArray(schema.anyOf)) return schema.anyOf.flatMap((branch) => branchesOf(branch, kind))
  return schema.type === kind ? [schema] : []
}

/**
 * A map holds its maxProperties; an object its declared keys and MAX_UNKNOWN_KEYS more: an open
 * object ignores them, and a closed one's schema check names each (better than a count here).
 */
function objectKeyLimit(schema: Schema): number {
  const declared = Object.keys(schema.properties ?? {}).length
  const isMap = schema.patternProperties !== undefined || typeof schema.additionalProperties === 'object'
  if (isMap) return declared + (schema.maxProperties ?? MAX_UNBOUNDED_ENTRIES)
  return schema.maxProperties ?? declared + MAX_UNKNOWN_KEYS
}

/** The schema a map or object gives one of its keys. */
function propertySchema(schemas: Schema[], key: string): Schema | undefined {
  if (schemas.length !== 1) return undefined
  const [schema] = schemas as [Schema]
  const declared = schema.properties?.[key]
  if (declared) return declared
  if (typeof schema.additionalProperties === 'object') return schema.additionalProperties
  const patterns = Object.values(schema.patternProperties ?? {})
  return patterns.length === 1 ? patterns[0] : undefined
}

/**
 * Refuses a parsed body holding more keys or items, anywhere in it, than its schema could accept.
 * Where the schema is silent (no schema, or several branches that fit), the bounds are the
 * unbounded ones: a body cannot grow without limit through a union.
 */
export function assertBodyShape(schema: Schema | undefined, value: unknown, path = 'body'): void {
  if (typeof value !== 'object' || value === null) return
  if (Array.isArray(value)) {
    const branches = branchesOf(schema, 'array')
    const limit = branches.length
      ? Math.max(...branches.map((b) => b.maxItems ?? MAX_UNBOUNDED_ENTRIES))
      : MAX_UNBOUNDED_ENTRIES
    if (value.length > limit) throw refusal(path, `holds more than ${limit} items`)
    const items = branches.length === 1 ? branches[0]?.items : undefined
    for (let i = 0; i < value.length; i++) assertBodyShape(items, value[i], `${path}/${i}`)
    return
  }
  const branches = branchesOf(schema, 'object')
  const keys = Object.keys(value)
  const limit = branches.length ? Math.max(...branches.map(objectKeyLimit)) : MAX_UNBOUNDED_ENTRIES
  if (keys.length > limit) throw refusal(path, `holds more than ${limit} keys`)
  for (const key of keys)
    assertBodyShape(propertySchema(branches, key), (value as Record<string, unknown>)[key], `${path}/${key}`)
}

const checks = new WeakMap<TSchema, TypeCheck<TSchema>>()

/** The schema's compiled check, compiled once. */
export function checkOf(schema: TSchema): TypeCheck<TSchema> {
  let check = checks.get(schema)
  if (!check) {
    check = TypeCompiler.Compile(schema)
    checks.set(schema, check)
  }
  return check
}

/** A field's message, cut to a length no refused value can stretch (some messages quote the value). */
export const clipMessage = (text: string) =>
  text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text

/**
 * Checks a body against its route's schema as Elysia would (an optional body may be empty) and
 * refuses it with the first errors, each naming its field; `describe` words an error for the client.
 */
export function assertBodyValid(
  schema: TSchema,
  value: unknown,
  describe: (issue: NonNullable<ReturnType<typeof mapValueError>>) => string,
): void {
  const isEmpty = typeof value === 'object' && value !== null && Object.keys(value).length === 0
  if (schema[OptionalKind] === 'Optional' && isEmpty) return
  const check = checkOf(schema)
  if (check.Check(value)) return
  const errors: FieldError[] = []
  for (const error of check.Errors(value)) {
    const issue = mapValueError(error)
    if (!issue) continue
    const path = `body${issue.path}`
    if (!errors.some((e) => e.path === path)) errors.push({ path, message: clipMessage(describe(issue)) })
    if (errors.length >= MAX_LISTED_ERRORS) break
  }
  const first = errors[0]
  const detail = first ? `${first.path}: ${first.message}` : 'Invalid request body'
  throw new ApiError('validation_failed', detail, { errors })
}

/** Body schemas by route (`METHOD /path/:param`) whose check `assertBodyValid` took over from Elysia. */
export type BodySchemas = Map<string, TSchema>

/**
 * Takes the check of every JSON body of the app over from Elysia, whose refusal would serialise
 * the body into its message: each route's body schema is marked `noValidate` (non-enumerable, so
 * the OpenAPI document never shows it; no body schema is also a response's) and put in `into`, the
 * map the app's conventions (conventions.ts) check bodies by, where Elysia would have. The mark is
 * on the schema, a module constant: every app of the process that mounts a module's routes must
 * take its checks over too. Call once every route is mounted, before the first request.
 */
export function takeOverBodyChecks(app: AnyElysia, into: BodySchemas): void {
  for (const route of app.routes) {
    const body: unknown = route.hooks.body
    if (typeof body !== 'object' || body === null || !(Kind in body)) continue
    if (isRawBodyRoute(route.method, route.path)) continue
    Object.defineProperty(body, 'noValidate', { value: true, configurable: true })
    into.set(`${route.method.toUpperCase()} ${route.path}`, body as TSchema)
  }
}
