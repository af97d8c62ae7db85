// The object types tags attach to, the fields of each that Dynamic tag conditions may test, the
// operators each kind of field allows, and the pure evaluation of conditions against a record.
import { type Calendar, dateOnCalendar, isCalendarDate } from '../../platform/foundation/dates'
import { ApiError, type FieldError } from '../../platform/foundation/problem'
import type { TagCondition } from './schema'

/** Path slug of `/tag/{objectType}` to the `objectType` value tags carry. */
export const objectTypes = {
  customer: 'Customer',
  'club-membership': 'ClubMembership',
  order: 'Order',
  reservation: 'Reservation',
} as const

export type TagObjectType = keyof typeof objectTypes
export type TagObjectTypeName = (typeof objectTypes)[TagObjectType]

export const isTagObjectType = (value: string): value is TagObjectType => Object.hasOwn(objectTypes, value)

/** The path slug of an `objectType` value tags carry (`ClubMembership` → `club-membership`). */
export const tagObjectTypeOf = (name: string): TagObjectType | undefined =>
  (Object.keys(objectTypes) as TagObjectType[]).find((slug) => objectTypes[slug] === name)

export type FieldKind = 'string' | 'number' | 'boolean' | 'date'

/** The fields conditions may name, per object type. Money fields are integer cents. */
export const conditionFields: Record<TagObjectType, Record<string, FieldKind>> = {
  customer: {
    firstName: 'string',
    lastName: 'string',
    email: 'string',
    phone: 'string',
    company: 'string',
    status: 'string',
    city: 'string',
    region: 'string',
    postalCode: 'string',
    countryCode: 'string',
    marketingOptIn: 'boolean',
    birthDate: 'date',
    anniversaryDate: 'date',
    createdAt: 'date',
    lifetimeValue: 'number',
    orderCount: 'number',
    lastOrderDate: 'date',
    clubMembershipCount: 'number',
  },
  'club-membership': {
    status: 'string',
    clubId: 'string',
    customerId: 'string',
    orderDeliveryMethod: 'string',
    signupDate: 'date',
    cancelDate: 'date',
    lastProcessedDate: 'date',
    nextProcessDate: 'date',
    currentNumberOfShipments: 'number',
    createdAt: 'date',
  },
  order: {
    status: 'string',
    source: 'string',
    fulfillmentMode: 'string',
    locationId: 'string',
    customerId: 'string',
    couponCode: 'string',
    subtotal: 'number',
    discountTotal: 'number',
    taxTotal: 'number',
    tipTotal: 'number',
    total: 'number',
    createdAt: 'date',
  },
  reservation: {
    status: 'string',
    paymentStatus: 'string',
    reservationTypeId: 'string',
    locationId: 'string',
    customerId: 'string',
    guestCount: 'number',
    reservationDate: 'date',
    createdAt: 'date',
  },
}

const emptiness = ['isEmpty', 'isNotEmpty'] as const
const comparisons = ['greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual'] as const

/** The operators each kind of field allows. */
export const operatorsByKind: Record<FieldKind, readonly string[]> = {
  string: [
    'equals',
    'notEquals',
    'contains',
    'notContains',
    'startsWith',
    'endsWith',
    'in',
    'notIn',
    ...emptiness,
  ],
  number: ['equals', 'notEquals', ...comparisons, ...emptiness],
  boolean: ['equals', ...emptiness],
  date: ['equals', 'notEquals', 'before', 'after', 'onOrBefore', 'onOrAfter', 'withinLastDays', ...emptiness],
}

export const allOperators = [...new Set(Object.values(operatorsByKind).flat())]

/** Why `value` does not suit `operator` on a field of `kind`, or null when it does. */
function valueProblem(kind: FieldKind, operator: string, value: TagCondition['value']): string | null {
  if ((emptiness as readonly string[]).includes(operator))
    return value === undefined || value === null ? null : `${operator} takes no value`
  if (operator === 'in' || operator === 'notIn') {
    if (!Array.isArray(value) || value.length === 0 || value.length > 100)
      return `${operator} takes a list of 1 to 100 strings`
    return value.every((v) => typeof v === 'string' && v.length > 0)
      ? null
      : `${operator} takes non-empty strings`
  }
  switch (kind) {
    case 'string':
      return typeof value === 'string' && value.length > 0 ? null : `${operator} takes a non-empty string`
    case 'number':
      return Number.isSafeInteger(value) ? null : `${operator} takes an integer (money fields are in cents)`
    case 'boolean':
      return typeof value === 'boolean' ? null : `${operator} takes true or false`
    case 'date':
      if (operator === 'withinLastDays')
        return Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= 36_500
          ? null
          : 'withinLastDays takes a whole number of days, 1..36500'
      return typeof value === 'string' && isCalendarDate(value)
        ? null
        : `${operator} takes a date (YYYY-MM-DD)`
  }
}

/** Every problem of a list of conditions for an object type, with `body/conditions/N/...` paths. */
export const conditionErrors = (objectType: TagObjectType, conditions: readonly TagCondition[]) =>
  conditionErrorsOver(conditionFields[objectType], objectTypes[objectType], conditions)

/**
 * Every problem of a list of conditions over a catalogue of fields (the fields of `typeName`
 * records: a tag's object type, a Dynamic collection's products), with `body/conditions/N/...` paths.
 */
export function conditionErrorsOver(
  fields: Readonly<Record<string, FieldKind>>,
  typeName: string,
  conditions: readonly TagCondition[],
): FieldError[] {
  const errors: FieldError[] = []
  conditions.forEach((condition, i) => {
    const kind = Object.hasOwn(fields, condition.field) ? fields[condition.field] : undefined
    if (!kind) {
      errors.push({
        path: `body/conditions/${i}/field`,
        message: `${condition.field} is not a ${typeName} field; expected one of ${Object.keys(fields).join(', ')}`,
      })
      return
    }
    if (!operatorsByKind[kind].includes(condition.operator)) {
      errors.push({
        path: `body/conditions/${i}/operator`,
        message: `${condition.operator} does not apply to ${kind} field ${condition.field}; expected one of ${operatorsByKind[kind].join(', ')}`,
      })
      return
    }
    const problem = valueProblem(kind, condition.operator, condition.value)
    if (problem) errors.push({ path: `body/conditions/${i}/value`, message: problem })
  })
  return errors
}

const isEmptyValue = (v: unknown) => v === undefined || v === null || v === ''

const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000)

/**
 * Whether one (valid) condition holds for a record. Strings compare case-insensitively; dates
 * compare by their date on the tenant's calendar (a timestamp in the tenant's zone); a missing value satisfies
 * only isEmpty and the negative operators (notEquals, notContains, notIn).
 */
export function conditionHolds(
  kind: FieldKind,
  condition: TagCondition,
  actual: unknown,
  calendar: Calendar,
): boolean {
  const { operator, value } = condition
  if (operator === 'isEmpty') return isEmptyValue(actual)
  if (operator === 'isNotEmpty') return !isEmptyValue(actual)
  if (isEmptyValue(actual))
    return operator === 'notEquals' || operator === 'notContains' || operator === 'notIn'
  switch (kind) {
    case 'string': {
      const a = String(actual).toLowerCase()
      const list = Array.isArray(value) ? value.map((v) => v.toLowerCase()) : []
      const v = typeof value === 'string' ? value.toLowerCase() : ''
      switch (operator) {
        case 'equals':
          return a === v
        case 'notEquals':
          return a !== v
        case 'contains':
          return a.includes(v)
        case 'notContains':
          return !a.includes(v)
        case 'startsWith':
          return a.startsWith(v)
        case 'endsWith':
          return a.endsWith(v)
        case 'in':
          return list.includes(a)
        case 'notIn':
          return !list.includes(a)
      }
      return false
    }
    case 'number': {
      const a = Number(actual)
      const v = value as number
      if (Number.isNaN(a)) return false
      switch (operator) {
        case 'equals':
          return a === v
        case 'notEquals':
          return a !== v
        case 'greaterThan':
          return a > v
        case 'greaterThanOrEqual':
          return a >= v
        case 'lessThan':
          return a < v
        case 'lessThanOrEqual':
          return a <= v
      }
      return false
    }
    case 'boolean':
      return operator === 'equals' && actual === value
    case 'date': {
      const a = dateOnCalendar(String(actual), calendar)
      if (a === null) return false
      if (operator === 'withinLastDays') {
        const age = daysBetween(a, calendar.today)
        return age >= 0 && age < (value as number)
      }
      const v = value as string
      switch (operator) {
        case 'equals':
          return a === v
        case 'notEquals':
          return a !== v
        case 'before':
          return a < v
        case 'after':
          return a > v
        case 'onOrBefore':
          return a <= v
        case 'onOrAfter':
          return a >= v
      }
      return false
    }
  }
}

/**
 * Whether a Dynamic tag's conditions hold for a record of its object type: all of them
 * (`appliesToCondition` `All`) or at least one (`Any`). The tenant's `calendar` dates timestamps and
 * anchors `withinLastDays`.
 */
export const matchesConditions = (
  objectType: TagObjectType,
  tag: ConditionSet,
  record: Record<string, unknown>,
  calendar: Calendar,
): boolean => conditionsMatch(conditionFields[objectType], tag, record, calendar)

/** A Dynamic tag's or collection's conditions and how they combine. */
export interface ConditionSet {
  appliesToCondition: 'All' | 'Any' | null
  conditions: readonly TagCondition[]
}

/** The evaluator: whether a set of conditions over a catalogue of fields holds for a record's view. */
export function conditionsMatch(
  fields: Readonly<Record<string, FieldKind>>,
  tag: ConditionSet,
  record: Record<string, unknown>,
  calendar: Calendar,
): boolean {
  const results = tag.conditions.map((c) => {
    const kind = Object.hasOwn(fields, c.field) ? fields[c.field] : undefined
    return kind ? conditionHolds(kind, c, record[c.field], calendar) : false
  })
  if (results.length === 0) return false
  return tag.appliesToCondition === 'Any' ? results.some(Boolean) : results.every(Boolean)
}

/** A tag's or collection's type with its conditions. */
export interface ConditionShape {
  type: 'Manual' | 'Dynamic'
  appliesToCondition: 'All' | 'Any' | null
  conditions: TagCondition[]
}

/**
 * Checks a whole Manual or Dynamic shape (`things`: "tags", "collections"): Manual ones have no
 * conditions; Dynamic ones 1..25 valid conditions over `fields`, `appliesToCondition` defaulting
 * to All. 400 naming each problem.
 */
export function assertConditionShape(
  fields: Readonly<Record<string, FieldKind>>,
  typeName: string,
  things: string,
  shape: ConditionShape,
): ConditionShape {
  const fail = (errors: FieldError[], detail = errors[0]!.message) => {
    throw new ApiError('validation_failed', detail, { errors })
  }
  if (shape.type === 'Manual') {
    const errors = []
    if (shape.conditions.length > 0)
      errors.push({ path: 'body/conditions', message: `Manual ${things} have no conditions` })
    if (shape.appliesToCondition !== null)
      errors.push({ path: 'body/appliesToCondition', message: `Manual ${things} have no appliesToCondition` })
    if (errors.length) fail(errors)
    return shape
  }
  if (shape.conditions.length === 0)
    fail([{ path: 'body/conditions', message: `Dynamic ${things} need at least one condition` }])
  const errors = conditionErrorsOver(fields, typeName, shape.conditions)
  if (errors.length) fail(errors, `${errors[0]!.path}: ${errors[0]!.message}`)
  return { ...shape, appliesToCondition: shape.appliesToCondition ?? 'All' }
}
