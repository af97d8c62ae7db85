// Sample values from TypeBox (JSON) schemas: a value each schema accepts where one can be built, for
// walks over the route table that need requests to get past validation.
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { newId } from '../src/platform/foundation/ids'

export type Schema = Record<string, any>

export interface SampleContext {
  /** What any `...locationId` property gets. */
  locationId: string
}

export function checks(schema: Schema, value: unknown): boolean | undefined {
  try {
    return Value.Check(schema as TSchema, value)
  } catch {
    return undefined // a kind or format TypeBox does not know: cannot tell
  }
}

const patternCandidates = [
  'Sample',
  'sample',
  'sample-slug',
  'ABC',
  'USD',
  'US',
  '12:00',
  '2031-03-14',
  '2031-03',
  '#336699',
  '+15555550123',
  '1',
  'sample@example.com',
  '1234',
]

function sampleString(schema: Schema, key: string, context: SampleContext): string {
  if (/locationId$/i.test(key)) return context.locationId
  const format = schema.format as string | undefined
  let value: string
  if (format === 'date' || format === 'calendar-date') value = '2031-03-14'
  else if (format === 'date-time') value = '2031-03-14T12:00:00.000Z'
  else if (format === 'email') value = 'sample@example.com'
  else if (format === 'uri' || format === 'url') value = 'https://example.com/sample'
  else if (format === 'uuid' || /Id$/.test(key)) value = newId()
  else if (format === 'time') value = '12:00:00'
  else if (/email/i.test(key)) value = 'sample@example.com'
  else if (/date$/i.test(key)) value = '2031-03-14'
  else if (/(At|Time)$/.test(key)) value = '2031-03-14T12:00:00.000Z'
  else if (/url$/i.test(key)) value = 'https://example.com/sample'
  else value = 'Sample'
  if (schema.pattern) {
    const re = new RegExp(schema.pattern)
    if (!re.test(value)) value = patternCandidates.find((c) => re.test(c)) ?? value
  }
  if (schema.minLength && value.length < schema.minLength) value = value.padEnd(schema.minLength, 'x')
  if (schema.maxLength && value.length > schema.maxLength) value = value.slice(0, schema.maxLength)
  return value
}

function sampleNumber(schema: Schema): number {
  let value = 1
  if (typeof schema.minimum === 'number') value = Math.max(value, schema.minimum)
  if (typeof schema.exclusiveMinimum === 'number') value = Math.max(value, schema.exclusiveMinimum + 1)
  if (typeof schema.maximum === 'number') value = Math.min(value, schema.maximum)
  return value
}

/** A value the schema accepts, when one can be built; best effort otherwise. */
export function sampleOf(schema: Schema | undefined, context: SampleContext, key = ''): unknown {
  const sample = (inner: Schema | undefined, innerKey = '') => sampleOf(inner, context, innerKey)
  if (!schema) return undefined
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum)) return schema.enum[0]
  if ('default' in schema && checks(schema, schema.default)) return schema.default
  for (const union of [schema.anyOf, schema.oneOf]) {
    if (!Array.isArray(union)) continue
    const variants = union.filter((v: Schema) => v.type !== 'null')
    for (const variant of variants) {
      const value = sample(variant, key)
      if (checks(variant, value) !== false) return value
    }
    return sample(variants[0] ?? union[0], key)
  }
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const name of schema.required ?? []) out[name] = sample(schema.properties?.[name], name)
      // The location is optional where x-location-id may name it instead: name it in the body.
      if (schema.properties?.locationId && !('locationId' in out) && !key)
        out.locationId = sample(schema.properties.locationId, 'locationId')
      return out
    }
    case 'array': {
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items, key.replace(/s$/, '')))
    }
    case 'string':
      return sampleString(schema, key, context)
    case 'integer':
    case 'number':
      return sampleNumber(schema)
    case 'boolean':
      return false
    case 'null':
      return null
  }
  try {
    return Value.Create(schema as TSchema)
  } catch {
    return undefined
  }
}
