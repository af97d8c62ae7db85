// One OpenAPI operation per route, from what the route declares: its detail (tags, summary,
// description, x-permission, x-credential-scope), its schemas (3.1 JSON Schema, json-schema.ts)
// and the problems it can answer (problems.ts).
import { STATUS_CODES } from 'node:http'
import { isSchema, normalizeSchema, type Operation, type Schema } from './json-schema'
import { operationParameters } from './parameters'
import { problemResponseName, problemStatusesOf } from './problems'
import type { RouteFacts } from './routes'

/** Detail keys that steer the document or the auth plugin rather than describe the operation. */
const internalDetail = new Set(['hide', 'security', 'responses', 'x-located-by', 'x-problems'])

function requestBodyOf(route: RouteFacts): Operation['requestBody'] {
  if (route.rawBody)
    return {
      required: true,
      description: 'The raw bytes, with their own `Content-Type`.',
      content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
    }
  const body = route.schemas.body
  if (!body || route.method === 'get' || route.method === 'head') return undefined
  // An empty body counts as `{}` (conventions.ts): required only when a field is.
  const required = Array.isArray(body.required) && body.required.length > 0
  return { required, content: { 'application/json': { schema: normalizeSchema(body) } } }
}

/**
 * Declared responses: the route's schemas by status (a `t.Void()` one has no content), over any
 * `detail.responses` a route writes for what no schema says (a file download); then every
 * problem status the route can answer, as a shared response.
 */
/** A route's own error schema with a problem's members (a 409 with its extensions) is a problem document. */
const mediaTypeOf = (status: number, schema: Schema) =>
  status >= 400 && isSchema(schema.properties) && 'code' in schema.properties && 'title' in schema.properties
    ? 'application/problem+json'
    : 'application/json'

function responsesOf(route: RouteFacts): Record<string, Schema> {
  const responses: Record<string, Schema> = { ...(route.detail.responses as Record<string, Schema>) }
  for (const [status, schema] of Object.entries(route.schemas.responses)) {
    const description = `${STATUS_CODES[Number(status)] ?? status}.`
    // Content a route's detail declares for the status (an HTML variant) is kept beside the JSON.
    const declared = responses[status]?.content as Record<string, unknown> | undefined
    responses[status] =
      schema.type === 'void'
        ? { description }
        : {
            description,
            content: {
              [mediaTypeOf(Number(status), schema)]: { schema: normalizeSchema(schema) },
              ...declared,
            },
          }
  }
  for (const status of problemStatusesOf(route))
    responses[status] ??= { $ref: `#/components/responses/${problemResponseName(status)}` }
  return responses
}

export function operationOf(route: RouteFacts, operationId: string): Operation {
  const described = Object.entries(route.detail).filter(([key]) => !internalDetail.has(key))
  const parameters = operationParameters(route)
  const requestBody = requestBodyOf(route)
  return {
    ...Object.fromEntries(described),
    operationId,
    // Authenticated is the document's default; public routes say what they need, if anything.
    ...(route.permission ? {} : { security: route.detail.security ?? [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: responsesOf(route),
  }
}

/** Every schema of an operation's bodies, for lifting shared components. */
export function* contentsOf(operation: Operation): Generator<[string, { schema?: unknown }]> {
  for (const [status, response] of Object.entries(operation.responses))
    if (isSchema(response.content))
      for (const media of Object.values(response.content)) yield [status, media as { schema?: unknown }]
  for (const media of Object.values(operation.requestBody?.content ?? {})) yield ['body', media]
}
