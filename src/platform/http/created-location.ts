// `Location` on a 201 names the record the request created where the API serves it: the request's
// path and the new record's id, when a GET route is there (`POST /order` answers
// `Location: /order/<id>`). The id is the 201 body's `id`, or `data.id` in a `{data}` envelope.
// The header (conventions.ts) and the OpenAPI document (openapi/response-headers.ts) both follow
// this rule, so the document declares Location on exactly the 201s that send it.
import { Kind } from '@sinclair/typebox'
import type { AnyElysia } from 'elysia'

type Schema = { [keyword: string]: unknown }

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const hasStringId = (schema: unknown) =>
  isObject(schema) &&
  isObject(schema.properties) &&
  isObject(schema.properties.id) &&
  schema.properties.id.type === 'string'

/** Where a 201 schema holds the created record's id: `id` or `data.id`; undefined for neither. */
function idPathOf(schema: unknown): string[] | undefined {
  if (hasStringId(schema)) return ['id']
  const data = isObject(schema) && isObject(schema.properties) ? schema.properties.data : undefined
  return hasStringId(data) ? ['data', 'id'] : undefined
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')

/** The 201 schema a route declares (`response: {201: Schema}`), if any. */
function createdSchemaOf(response: unknown): unknown {
  return isObject(response) && !(Kind in response) ? response[201] : undefined
}

/**
 * Routes whose 201 names a record served at their path plus one parameter, by `METHOD path`
 * (Elysia's `:param` spelling), with where the new id is in the body.
 */
export function createdRecords(app: AnyElysia): Map<string, string[]> {
  const gets = app.routes.filter((route) => route.method.toUpperCase() === 'GET').map((route) => route.path)
  const records = new Map<string, string[]>()
  for (const route of app.routes) {
    const idPath = idPathOf(createdSchemaOf((route.hooks as { response?: unknown }).response))
    if (!idPath) continue
    const child = new RegExp(`^${escapeRegExp(route.path)}/:[^/]+$`)
    if (gets.some((get) => child.test(get)))
      records.set(`${route.method.toUpperCase()} ${route.path}`, idPath)
  }
  return records
}

/**
 * `(method, route, pathname, body) => Location` of a 201, or undefined where the route creates no
 * record the API serves. Built on first use: the table is complete only once every module is mounted.
 */
export function createdLocation(
  app: AnyElysia,
): (method: string, route: string, pathname: string, body: unknown) => string | undefined {
  let records: Map<string, string[]> | undefined
  return (method, route, pathname, body) => {
    records ??= createdRecords(app)
    const idPath = records.get(`${method} ${route}`)
    if (!idPath) return undefined
    const id = idPath.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), body)
    return typeof id === 'string' ? `${pathname}/${encodeURIComponent(id)}` : undefined
  }
}
