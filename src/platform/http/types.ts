// Strict schema helpers for JSON bodies, where Elysia's `t` shorthands are too lenient:
// `t.Integer`/`t.Number` accept numeric strings ("45.00" would pass as money), `t.Boolean`
// accepts "true"/"false" strings, and `t.UnionEnum` gives its schema a default of its first
// value, silently filling a missing required field. Query and path parameters keep Elysia's `t`
// (they are strings on the wire).
import {
  type IntegerOptions,
  type NumberOptions,
  type SchemaOptions,
  type TBoolean,
  type TInteger,
  type TLiteral,
  type TNumber,
  type TUnion,
  Type,
} from '@sinclair/typebox'
import { t } from 'elysia'

type LiteralsOf<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> }

/** A string enum as a union of literals: validation, the static type and an OpenAPI `anyOf`. */
export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  options?: SchemaOptions,
): TUnion<LiteralsOf<T>> {
  return t.Union(
    values.map((value) => t.Literal(value)),
    options,
  ) as unknown as TUnion<LiteralsOf<T>>
}

/** A JSON integer, and only that. */
export const int = (options: IntegerOptions = {}): TInteger => Type.Integer(options)

/** A JSON number, and only that (never money: money is `int()` minor units). */
export const num = (options: NumberOptions = {}): TNumber => Type.Number(options)

/** A JSON boolean, and only that. */
export const bool = (options: SchemaOptions = {}): TBoolean => Type.Boolean(options)
