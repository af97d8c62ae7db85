// Strict schema helpers for JSON bodies, where Elysia's `t` shorthands are too lenient:
// `t.Integer`/`t.Number` accept numeric strings ("45.00" would pass as money), `t.Boolean`
// accepts "true"/"false" strings, and `t.UnionEnum` gives its schema a default of its first
// value, silently filling a missing required field. Query and path parameters keep Elysia's `t`
// (they are strings on the wire).
import {
  type IntegerOptions,
  type NumberOptions,
  type ObjectOptions,
  type SchemaOptions,
  type TBoolean,
  type TInteger,
  type TLiteral,
  type TNumber,
  type TRecord,
  type TString,
  type TUnion,
  type TUnknown,
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

/**
 * The one upper bound of every money field in a request body, in integer minor units:
 * 10,000,000,000 (100,000,000.00 in major units, a hundred million dollars). Far above any real
 * price, order, payment, cash drawer or gift card, yet small enough that sums stay exact in a
 * double: 2^53 / MAX_MONEY is about 900,000, so that many maximal amounts (a drawer's entries, a
 * card's loads, a report's orders) add up exactly, and an order line of 9,999 units at the bound
 * (about 10^14) is exact too.
 */
export const MAX_MONEY = 10_000_000_000

type MoneyOptions = Omit<IntegerOptions, 'maximum' | 'exclusiveMaximum' | 'exclusiveMinimum'>

/** An amount of money in integer minor units, 0..MAX_MONEY (or from a higher `minimum`, such as 1). */
export const money = (options: MoneyOptions = {}): TInteger =>
  Type.Integer({ minimum: 0, ...options, maximum: MAX_MONEY })

/** A signed change of money (a delta, an adjustment) in integer minor units, -MAX_MONEY..MAX_MONEY. */
export const signedMoney = (options: Omit<MoneyOptions, 'minimum'> = {}): TInteger =>
  Type.Integer({ ...options, minimum: -MAX_MONEY, maximum: MAX_MONEY })

/** Keys a free-form object of a request body (metadata, app data, payloads) may hold at its top level. */
export const MAX_FREE_FORM_KEYS = 100

/**
 * A free-form JSON object kept as given: keys of at most 100 characters, at most
 * MAX_FREE_FORM_KEYS of them; what nests inside is bounded by the body's limits (request-body.ts).
 */
export const freeForm = (options: ObjectOptions = {}): TRecord<TString, TUnknown> =>
  t.Record(t.String({ maxLength: 100 }), t.Unknown(), { maxProperties: MAX_FREE_FORM_KEYS, ...options })

/** A JSON number, and only that (never money: money is `money()` minor units). */
export const num = (options: NumberOptions = {}): TNumber => Type.Number(options)

/** A JSON boolean, and only that. */
export const bool = (options: SchemaOptions = {}): TBoolean => Type.Boolean(options)

/**
 * A link a client may open or render (a website, an image, an app's page): an absolute http(s) URL.
 * `format: 'uri'` alone takes any scheme, `javascript:` and `data:` too.
 */
export const webUrl = (maxLength: number): TString =>
  Type.String({
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$',
    maxLength,
    description: 'An absolute http(s) URL.',
  })
