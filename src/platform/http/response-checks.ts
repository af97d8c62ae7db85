// Response schemas are checked on every request only where asked (RESPONSE_VALIDATION; on for
// in-process apps, so tests and the test kit check every response). In production the check cost
// about a tenth of a read, and the tests already hold every response to the OpenAPI document
// (tests/contract.ts), so `serve` skips it.
//
// Elysia skips a response schema that carries `noValidate: true` when it composes a route. The mark
// goes on the schema objects themselves, non-enumerable so the OpenAPI document built from the
// same objects never shows it. Elysia reads the same mark on input schemas, so an object that is
// also some route's body, query, params, headers or cookie keeps its check everywhere.
import type { AnyElysia } from 'elysia'

type Schema = Record<string, unknown>

const INPUTS = ['body', 'query', 'params', 'headers', 'cookie'] as const

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && ('type' in value || 'anyOf' in value || '$ref' in value)

/** A route's response schemas: one schema (for 200) or one per status. */
function responseSchemas(response: unknown): Schema[] {
  if (isSchema(response)) return [response]
  if (typeof response !== 'object' || response === null) return []
  return Object.values(response).filter(isSchema)
}

/** Marks the response schemas of the app's routes unchecked (answers how many); call before the first request. */
export function skipResponseChecks(app: AnyElysia): number {
  const inputs = new Set<unknown>()
  for (const route of app.routes) for (const key of INPUTS) inputs.add(route.hooks[key])
  let marked = 0
  for (const route of app.routes)
    for (const schema of responseSchemas(route.hooks.response)) {
      if (inputs.has(schema) || schema.noValidate === true) continue
      Object.defineProperty(schema, 'noValidate', { value: true, configurable: true })
      marked++
    }
  return marked
}
