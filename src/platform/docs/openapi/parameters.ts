// Parameters: the context headers every tenant route reads (tenant, location), and paging, shared
// in components/parameters; each route's own parameters with 3.1 schemas and their description
// on the parameter, where documentation tools show it.
import { DEFAULT_LIMIT } from '../../foundation/paging'
import { canonicalJson, isSchema, normalizeSchema, type Schema } from './json-schema'
import type { RouteFacts } from './routes'

export type Parameter = Schema & { name: string; in: string; schema?: unknown }

const MAX_SHARED_LIMIT = 100

export const contextParameters: Record<string, Parameter> = {
  TenantId: {
    name: 'x-tenant-id',
    in: 'header',
    description:
      'The tenant, by id. Without it (and without `x-tenant-slug`) the default tenant; an unknown tenant is 404 `tenant_not_found`. A token bound to a tenant (passcode session, credential) must name that tenant if it names one.',
    schema: { type: 'string', minLength: 1, maxLength: 200 },
  },
  TenantSlug: {
    name: 'x-tenant-slug',
    in: 'header',
    description: 'The tenant, by slug (when `x-tenant-id` is absent).',
    schema: { type: 'string', minLength: 1, maxLength: 200 },
  },
  LocationId: {
    name: 'x-location-id',
    in: 'header',
    description:
      'Where the request acts: scopes location-bound roles, lists, defaults of writes and audit entries. A location outside the caller’s scope is 403.',
    schema: { type: 'string', minLength: 1, maxLength: 200 },
  },
  Page: {
    name: 'page',
    in: 'query',
    description: 'Page number, from 1.',
    schema: { type: 'integer', minimum: 1, default: 1 },
  },
  Limit: {
    name: 'limit',
    in: 'query',
    description: `Page size, 1..${MAX_SHARED_LIMIT}.`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_SHARED_LIMIT, default: DEFAULT_LIMIT },
  },
}

const ref = (name: string) => ({ $ref: `#/components/parameters/${name}` }) as unknown as Parameter
const contextHeaders = ['TenantId', 'TenantSlug', 'LocationId'] as const

/** The parameters of one place (`path`, `query`, `header`) from the route's object schema. */
function parametersIn(place: 'path' | 'query' | 'header', object: Schema | undefined): Parameter[] {
  const properties = isSchema(object?.properties) ? object.properties : {}
  const required = new Set((object?.required as string[] | undefined) ?? [])
  return Object.entries(properties).map(([name, raw]) => {
    const schema = normalizeSchema(raw) as Schema
    const { description, ...rest } = schema
    return {
      name,
      in: place,
      required: place === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    }
  })
}

/** The shared parameter this one is, if it is exactly that. */
function sharedName(parameter: Parameter): string | undefined {
  const shared =
    parameter.in === 'query' &&
    (parameter.name === 'page' ? 'Page' : parameter.name === 'limit' ? 'Limit' : undefined)
  if (!shared) return undefined
  const { required: _, ...rest } = parameter
  return canonicalJson(rest) === canonicalJson(contextParameters[shared]) ? shared : undefined
}

/** Path, query and header parameters of a route; the context headers on every tenant route. */
export function operationParameters(route: RouteFacts): Parameter[] {
  const { params, query, headers } = route.schemas
  const path = params
    ? parametersIn('path', params)
    : route.params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }))
  const own = [...path, ...parametersIn('query', query), ...parametersIn('header', headers)].map((p) => {
    const shared = sharedName(p)
    return shared ? ref(shared) : p
  })
  if (route.permission === undefined) return own
  const context = contextHeaders
    .filter((name) => !route.headers.includes(contextParameters[name]!.name))
    .map(ref)
  return [...own, ...context]
}
