// TypeBox schemas (as JSON) rewritten as OpenAPI 3.1 and client generators read them best:
// Elysia's `t.Integer` / `t.Numeric` are a union with a numeric *string* (its query coercion),
// which would type every count and amount `string | number`; `t.Nullable(X)` is `anyOf [X, null]`
// where a type list says it plainly (with `null` in an enum too); a union of literals is an
// `anyOf` of `const`s where an `enum` says it plainly. Each rewrite is here, once.

export type Schema = { [keyword: string]: unknown }

export const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** JSON with sorted keys: equal for equal schemas, whatever order their keywords came in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (!isSchema(value)) return JSON.stringify(value)
  const keys = Object.keys(value).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`
}

/** Keywords whose value is one subschema, a list of them, or a map of them. */
const single = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else']
const lists = ['anyOf', 'oneOf', 'allOf', 'prefixItems']
const maps = ['properties', 'patternProperties', '$defs', 'dependentSchemas']

/** A copy of the node with `fn` applied to each of its direct subschemas. */
export function mapChildren(schema: Schema, fn: (child: unknown) => unknown): Schema {
  const node: Schema = { ...schema }
  for (const key of single) if (isSchema(node[key])) node[key] = fn(node[key])
  for (const key of lists) if (Array.isArray(node[key])) node[key] = (node[key] as unknown[]).map(fn)
  for (const key of maps) {
    const members = node[key]
    if (isSchema(members)) node[key] = Object.fromEntries(Object.entries(members).map(([k, s]) => [k, fn(s)]))
  }
  return node
}

/** Rebuilds a schema bottom-up: `visit` sees each node after its subschemas were rebuilt. */
export function mapSchema(schema: unknown, visit: (node: Schema) => Schema): unknown {
  return isSchema(schema) ? visit(mapChildren(schema, (child) => mapSchema(child, visit))) : schema
}

/** Elysia's coercion branch of a query number: `{type: string, format: integer|numeric, default: 0}`. */
const isNumericString = (node: unknown) =>
  isSchema(node) && node.type === 'string' && (node.format === 'integer' || node.format === 'numeric')

const isNull = (node: unknown) => isSchema(node) && node.type === 'null'

/**
 * `t.Integer()` / `t.Numeric()` as their number alone: the union's own keywords (description,
 * bounds, default) over the number branch. On the wire a query value is a string either way;
 * the schema says what it must spell.
 */
function withoutNumericString(node: Schema): Schema {
  const branches = node.anyOf
  if (!Array.isArray(branches) || !branches.some(isNumericString)) return node
  const rest = branches.filter((b) => !isNumericString(b))
  if (rest.length !== 1 || !isSchema(rest[0])) return { ...node, anyOf: rest }
  const { anyOf: _, ...outer } = node
  return { ...outer, ...rest[0] }
}

/** `anyOf` of string `const`s (a `oneOf()` union of literals) as one `enum`; `null` kept as a type. */
function literalsAsEnum(node: Schema): Schema {
  const branches = node.anyOf
  if (!Array.isArray(branches) || branches.length < 2) return node
  const literals = branches.filter((b) => !isNull(b))
  if (!literals.every((b) => isSchema(b) && typeof b.const === 'string')) return node
  const nullable = literals.length < branches.length
  const { anyOf: _, ...outer } = node
  const values: unknown[] = literals.map((b) => (b as Schema).const)
  return {
    ...outer,
    type: nullable ? ['string', 'null'] : 'string',
    enum: nullable ? [...values, null] : values,
  }
}

/**
 * `X | null` as a type list when X is one plain type, with `null` in its enum if it has one.
 * Elysia's `t.Nullable` also marks the union with 3.0's `nullable`, which 3.1 does not know.
 */
function nullableAsType({ nullable: _, ...node }: Schema): Schema {
  const anyOf = node.anyOf
  if (!Array.isArray(anyOf) || anyOf.length !== 2 || !anyOf.some(isNull)) return node
  const other = anyOf.find((b) => !isNull(b))
  // A named schema ($id) stays whole, to become a $ref.
  if (!isSchema(other) || typeof other.type !== 'string' || '$id' in other) return node
  const { anyOf: __, ...outer } = node
  const merged: Schema = { ...other, ...outer, type: [other.type, 'null'] }
  if (Array.isArray(merged.enum) && !merged.enum.includes(null)) merged.enum = [...merged.enum, null]
  return merged
}

/** TypeBox's `calendar-date` (platform/foundation/dates.ts) is RFC 3339's full-date, which JSON Schema calls `date`. */
function standardFormat(node: Schema): Schema {
  return node.format === 'calendar-date' ? { ...node, format: 'date' } : node
}

/**
 * Without `additionalProperties: false`: Elysia writes it into the (shared) top-level object of a
 * route's schema when it first compiles that route, so whether a model carries it depends on which
 * routes have been called; the document states the rule once instead (bodies refuse unknown fields).
 */
function openObject(node: Schema): Schema {
  if (node.additionalProperties !== false) return node
  const { additionalProperties: _, ...rest } = node
  return rest
}

/** Every rewrite above, on every node of a schema. `$id`s stay for components.ts to lift. */
export const normalizeSchema = (schema: unknown): unknown =>
  mapSchema(schema, (node) =>
    openObject(standardFormat(nullableAsType(literalsAsEnum(withoutNumericString(node))))),
  )

/** An OpenAPI operation, as the document's builders pass it around. */
export type Operation = Schema & {
  requestBody?: Schema & { content: Record<string, { schema?: unknown }> }
  responses: Record<string, Schema>
}
