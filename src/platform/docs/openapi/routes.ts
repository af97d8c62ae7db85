// What the document needs to know about each route, read from Elysia's route table: the options
// a route declares (permission, credential scope, located record, the inputs it validates, its
// responses) decide its parameters, its security and the problems it can answer.
import { Kind } from '@sinclair/typebox'
import type { AnyElysia } from 'elysia'
import type { ProblemCode } from '../../foundation/problem'
import { createdRecords } from '../../http/created-location'
import { isRawBodyRoute } from '../../http/request-body'
import { isSchema, type Schema } from './json-schema'

export interface RouteFacts {
  method: string
  /** The OpenAPI path template: `/order/{id}/line/{lineId}`. */
  path: string
  detail: Record<string, unknown>
  permission?: string
  credentialScope?: string
  /** A bearer token is required: a permission, or `detail.security` on a public route. */
  bearer: boolean
  /** The path names a record that lives at a location (`locatedBy`). */
  located: boolean
  params: string[]
  /** Query parameter names. */
  query: string[]
  /** Header names the route validates, lower-case. */
  headers: string[]
  /** The route reads its body as raw bytes (request-body.ts rawBodyRoute). */
  rawBody: boolean
  /** Its 201 sends `Location`: it creates a record the API serves (created-location.ts). */
  locatesCreated: boolean
  /** Problem codes the route adds to what its options imply: `detail['x-problems']`. */
  problems: ProblemCode[]
  /** The route's schemas as plain JSON (TypeBox's symbols dropped). */
  schemas: {
    params?: Schema
    query?: Schema
    headers?: Schema
    body?: Schema
    /** By status. */
    responses: Record<string, Schema>
  }
}

const json = (schema: unknown): Schema | undefined =>
  isSchema(schema) ? (JSON.parse(JSON.stringify(schema)) as Schema) : undefined

const propertyNames = (schema: Schema | undefined): string[] =>
  isSchema(schema?.properties) ? Object.keys(schema.properties) : []

/** `response: Schema` is the 200; `response: {201: Schema, 409: Schema}` names its statuses. */
function responsesOf(response: unknown): Record<string, Schema> {
  if (!isSchema(response)) return {}
  if (Kind in response) return { '200': json(response)! }
  return Object.fromEntries(Object.entries(response).map(([status, schema]) => [status, json(schema)!]))
}

export const openApiPath = (path: string): string => path.replace(/:([^/]+)/g, '{$1}')

export function routeFacts(app: AnyElysia): RouteFacts[] {
  const created = createdRecords(app)
  return app.routes.flatMap((route) => {
    const hooks = route.hooks as Record<string, unknown>
    const detail = (hooks.detail ?? {}) as Record<string, unknown>
    if (detail.hide) return []
    const schemas = {
      params: json(hooks.params),
      query: json(hooks.query),
      headers: json(hooks.headers),
      body: json(hooks.body),
      responses: responsesOf(hooks.response),
    }
    return [
      {
        method: route.method.toLowerCase(),
        path: openApiPath(route.path),
        detail,
        permission: detail['x-permission'] as string | undefined,
        credentialScope: detail['x-credential-scope'] as string | undefined,
        bearer:
          detail['x-permission'] !== undefined ||
          (Array.isArray(detail.security) && detail.security.length > 0),
        located: typeof detail['x-located-by'] === 'string',
        params: [...route.path.matchAll(/:([^/]+)/g)].map((m) => m[1]!),
        query: propertyNames(schemas.query),
        headers: propertyNames(schemas.headers).map((h) => h.toLowerCase()),
        rawBody: isRawBodyRoute(route.method, route.path),
        locatesCreated: created.has(`${route.method.toUpperCase()} ${route.path}`),
        problems: (detail['x-problems'] as ProblemCode[] | undefined) ?? [],
        schemas,
      },
    ]
  })
}
