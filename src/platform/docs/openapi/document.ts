// The OpenAPI 3.1 document of the app, built from Elysia's route table (see issue 21 for what
// client tools need): 3.1 schemas with shared components, stable operation ids, the problems
// every operation can answer, the context headers, the response headers, tags with descriptions,
// security where it differs from the default, and the webhooks subscribers receive.
import type { AnyElysia } from 'elysia'
import type { EventCatalogue } from '../../events/catalogue'
import { exportedSchemas, liftComponents, type SchemaSite } from './components'
import type { Operation, Schema } from './json-schema'
import { operationIds } from './operation-ids'
import { contentsOf, operationOf } from './operations'
import { contextParameters } from './parameters'
import { problemResponses, problemSchema } from './problems'
import { declareResponseHeaders, headerComponents } from './response-headers'
import { routeFacts } from './routes'
import { webhookOperations } from './webhooks'

export interface DocumentOptions {
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } }
  /** Every tag an operation uses, with what its operations are about. */
  tags: Record<string, string>
  /** Every event a subscriber can receive. */
  events: EventCatalogue
  /** The modules' model files, whose export names name the shared schemas. */
  models: Record<string, Record<string, unknown>>
  /** Security schemes besides `bearerAuth`, the default (routes name theirs in `detail.security`). */
  securitySchemes?: Record<string, Schema>
}

type Paths = Record<string, Record<string, Operation>>

function schemaSites(paths: Paths): SchemaSite[] {
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) =>
      [...contentsOf(operation)].map(([where, media]) => ({
        where: `${method.toUpperCase()} ${path} ${where}`,
        get: () => media.schema,
        set: (schema: unknown) => {
          media.schema = schema
        },
      })),
    ),
  )
}

/** `$ref`s of shared responses the operations use. */
function usedResponses(paths: Paths): Record<string, Schema> {
  const refs = new Set(
    Object.values(paths).flatMap((item) =>
      Object.values(item).flatMap((o) => Object.values(o.responses).map((r) => r.$ref)),
    ),
  )
  return Object.fromEntries(
    Object.entries(problemResponses()).filter(([name]) => refs.has(`#/components/responses/${name}`)),
  )
}

export function buildOpenApiDocument(app: AnyElysia, options: DocumentOptions): Schema {
  const routes = routeFacts(app)
  const ids = operationIds(routes)
  const paths: Paths = {}
  for (const route of routes) {
    paths[route.path] ??= {}
    paths[route.path]![route.method] = operationOf(route, ids.get(`${route.method} ${route.path}`)!)
  }
  declareResponseHeaders(paths, routes)
  const webhooks = webhookOperations(options.events)
  const schemas = liftComponents(
    [...schemaSites(paths), ...schemaSites(webhooks)],
    exportedSchemas(options.models),
  )
  const operations = [...Object.values(paths), ...Object.values(webhooks)].flatMap((i) => Object.values(i))
  const usedTags = [...new Set(operations.flatMap((o) => (o.tags as string[] | undefined) ?? []))]
  return {
    openapi: '3.1.0',
    info: options.info,
    servers: [{ url: '/', description: 'This server' }],
    security: [{ bearerAuth: [] }],
    tags: usedTags.map((name) => ({ name, description: options.tags[name] })),
    paths,
    webhooks,
    components: {
      schemas: { ...schemas, Problem: problemSchema },
      parameters: contextParameters,
      responses: usedResponses(paths),
      headers: headerComponents,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A JWT of the identity provider, a `vps_` passcode session or a `tpk_live_` credential.',
        },
        ...options.securitySchemes,
      },
    },
  }
}
