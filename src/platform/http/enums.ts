// String enums for TypeBox schemas. Use `oneOf` rather than Elysia's `t.UnionEnum`: on Elysia
// 1.4, a required `t.UnionEnum` property that is missing from a body is silently filled with
// the enum's first value instead of failing validation.

import type { SchemaOptions, TLiteral, TUnion } from '@sinclair/typebox'
import { t } from 'elysia'

type LiteralsOf<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> }

/** A union of string literals: validation, the static type and an OpenAPI `anyOf` of consts. */
export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  options?: SchemaOptions,
): TUnion<LiteralsOf<T>> {
  return t.Union(
    values.map((value) => t.Literal(value)),
    options,
  ) as unknown as TUnion<LiteralsOf<T>>
}
