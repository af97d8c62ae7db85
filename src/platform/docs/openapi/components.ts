// Shared schemas: every resource once in components/schemas, referenced by `$ref` wherever the
// same schema appears (responses, lists, bodies, event payloads). Names are the code's own: a
// model's `$id: '#/components/schemas/Name'`, else the name a model file exports it under
// (a family's manifest, src/modules/<family>/index.ts). Two schemas are the same when their JSON is, but for a use site's
// description.
import { Kind } from '@sinclair/typebox'
import { canonicalJson, isSchema, mapChildren, mapSchema, normalizeSchema, type Schema } from './json-schema'

const componentPrefix = '#/components/schemas/'

export const schemaRef = (name: string): Schema => ({ $ref: `${componentPrefix}${name}` })

/** Canonical JSON (sorted keys) of a schema, without what a use site may add: `$id`, `description`. */
function identity(schema: Schema): string {
  const { $id: _, description: __, ...rest } = schema
  return canonicalJson(rest)
}

/** A `$ref` in place of a named schema, keeping a use site's own description. */
function refTo(name: string, use: Schema, component: Schema): Schema {
  const ref = schemaRef(name)
  return typeof use.description === 'string' && use.description !== component.description
    ? { ...ref, description: use.description }
    : ref
}

export interface SchemaSite {
  /** Where the schema is, for messages: `GET /vendor/{id} 200`. */
  where: string
  get(): unknown
  set(schema: unknown): void
}

const pascal = (key: string) => key.charAt(0).toUpperCase() + key.slice(1)

/**
 * The object schemas model files export, by export name (parameters excluded: they are not
 * components). A name two files export for different schemas gets each file's prefix.
 */
export function exportedSchemas(files: Record<string, Record<string, unknown>>): Map<string, Schema> {
  const byName = new Map<string, { file: string; schema: Schema }[]>()
  for (const [file, exports] of Object.entries(files))
    for (const [name, value] of Object.entries(exports)) {
      if (!isSchema(value) || !(Kind in value) || value.type !== 'object') continue
      if (!/^[A-Z]/.test(name) || /(Params|Query|Headers)$/.test(name)) continue
      const schema = normalizeSchema(JSON.parse(JSON.stringify(value))) as Schema
      byName.set(name, [...(byName.get(name) ?? []), { file, schema }])
    }
  const named = new Map<string, Schema>()
  for (const [name, found] of byName) {
    const alike = found.every((f) => identity(f.schema) === identity(found[0]!.schema))
    if (alike) named.set(name, found[0]!.schema)
    else for (const { file, schema } of found) named.set(`${pascal(file)}${name}`, schema)
  }
  return named
}

/**
 * Lifts named schemas out of every site into `components/schemas` and puts `$ref`s in their
 * place; strips any `$id` left. Throws when one name stands for two different schemas.
 */
export function liftComponents(sites: SchemaSite[], exported: Map<string, Schema>): Record<string, Schema> {
  const components: Record<string, Schema> = {}
  const byIdentity = new Map<string, string>()
  const register = (name: string, schema: Schema, where: string) => {
    const { $id: _, ...body } = schema
    const existing = components[name]
    if (existing && identity(existing) !== identity(body))
      throw new Error(`OpenAPI: two different schemas are named ${name} (again at ${where})`)
    components[name] ??= body
    if (!byIdentity.has(identity(body))) byIdentity.set(identity(body), name)
  }

  // 1. Schemas that name themselves with $id, innermost first, so outer ones hold $refs already.
  const liftIds = (schema: unknown, where: string) =>
    mapSchema(schema, (node) => {
      const id = node.$id
      if (typeof id !== 'string') return node
      const { $id: _, ...rest } = node
      if (!id.startsWith(componentPrefix)) return rest
      const name = id.slice(componentPrefix.length)
      register(name, node, where)
      return refTo(name, node, components[name]!)
    })
  for (const site of sites) site.set(liftIds(site.get(), site.where))

  // 2. Object schemas the model files export, by their export names.
  for (const [name, schema] of exported) {
    const lifted = liftIds(schema, `the export ${name}`)
    if (isSchema(lifted) && !('$ref' in lifted) && !byIdentity.has(identity(lifted)))
      register(name, lifted, `the export ${name}`)
  }

  // 3. Every occurrence of a named schema, outermost first, becomes a $ref.
  const replace = (schema: unknown, keepRoot = false): unknown => {
    if (!isSchema(schema)) return schema
    const name = keepRoot ? undefined : byIdentity.get(identity(schema))
    if (name) return refTo(name, schema, components[name]!)
    return mapChildren(schema, (child) => replace(child))
  }
  for (const site of sites) site.set(replace(site.get()))
  for (const [name, schema] of Object.entries(components)) components[name] = replace(schema, true) as Schema
  return reachable(components, sites)
}

/** The components some site refers to, directly or through other components. */
function reachable(components: Record<string, Schema>, sites: SchemaSite[]): Record<string, Schema> {
  const used = new Set<string>()
  const visit = (schema: unknown) =>
    mapSchema(schema, (node) => {
      const ref = node.$ref
      if (typeof ref === 'string' && ref.startsWith(componentPrefix)) {
        const name = ref.slice(componentPrefix.length)
        if (!used.has(name)) {
          used.add(name)
          visit(components[name])
        }
      }
      return node
    })
  for (const site of sites) visit(site.get())
  return Object.fromEntries(Object.entries(components).filter(([name]) => used.has(name)))
}
