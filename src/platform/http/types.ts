// Strict schema helpers for JSON bodies, where two of Elysia's `t` shorthands are too lenient.
import {
  type IntegerOptions,
  type TInteger,
  type TLiteral,
  type TSchema,
  type TUnion,
  Type,
} from '@sinclair/typebox'
import { t } from 'elysia'

type Literals<T extends readonly string[]> = Extract<{ -readonly [K in keyof T]: TLiteral<T[K]> }, TSchema[]>

/**
 * A string enum as a union of literals. (Elysia's `t.UnionEnum` gives the schema a `default` of
 * its first value, which silently fills a missing required field; this does not.)
 */
export const oneOf = <const T extends readonly [string, ...string[]]>(
  values: T,
  options: { description?: string } = {},
): TUnion<Literals<T>> =>
  t.Union(values.map((v) => t.Literal(v)) as TSchema[], options) as TUnion<Literals<T>>

/**
 * A JSON integer, and only that. (Elysia's `t.Integer` also accepts numeric strings, so a body
 * `price: "45.00"` would pass as 45: wrong for money.) Query and path integers keep `t.Integer`.
 */
export const int = (options: IntegerOptions = {}): TInteger => Type.Integer(options)
