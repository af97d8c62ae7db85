import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { int, oneOf } from '../../platform/foundation/types'
import { allOperators, conditionFields, objectTypes, type TagObjectTypeName } from './fields'

const objectTypeSlugs = Object.keys(objectTypes)

const tagType = t.Union([t.Literal('Manual'), t.Literal('Dynamic')], {
  description:
    'Manual tags are attached to and detached from objects by staff; Dynamic tags apply to every object whose fields meet their `conditions` (evaluated when the tag is created or changed and whenever an object is created or changed; they cannot be attached or detached by hand, 409).',
})

const appliesToCondition = t.Union([t.Literal('All'), t.Literal('Any')], {
  description: 'Dynamic tags: whether all conditions or any one of them must hold. Null for Manual tags.',
})

const fieldCatalogue = Object.entries(conditionFields)
  .map(([type, fields]) => `\`${type}\`: ${Object.keys(fields).join(', ')}`)
  .join('; ')

export const TagConditionSchema = t.Object(
  {
    field: t.String({
      minLength: 1,
      maxLength: 100,
      description: `A field of the object type. ${fieldCatalogue}.`,
    }),
    operator: oneOf(allOperators as [string, ...string[]], {
      description:
        'Strings: equals, notEquals, contains, notContains, startsWith, endsWith, in, notIn (case-insensitive). Numbers (money in cents): equals, notEquals, greaterThan, greaterThanOrEqual, lessThan, lessThanOrEqual. Booleans: equals. Dates: equals, notEquals, before, after, onOrBefore, onOrAfter, withinLastDays (value: days; today counts as day 0), compared on the tenant’s calendar: a timestamp such as `createdAt` takes its date in the tenant’s time zone. Every kind: isEmpty, isNotEmpty (no value).',
    }),
    value: t.Optional(
      t.Nullable(
        t.Union([
          t.String({ maxLength: 200 }),
          int(),
          t.Boolean(),
          t.Array(t.String({ maxLength: 200 }), { maxItems: 100 }),
        ]),
      ),
    ),
  },
  { additionalProperties: false },
)

export const Tag = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    title: t.String(),
    objectType: oneOf(Object.values(objectTypes) as [TagObjectTypeName, ...TagObjectTypeName[]]),
    type: tagType,
    appliesToCondition: t.Nullable(appliesToCondition),
    conditions: t.Array(TagConditionSchema),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/Tag' },
)

const conditionsField = t.Optional(
  t.Array(TagConditionSchema, {
    maxItems: 25,
    description: 'Required (1..25) for Dynamic tags; must be empty for Manual tags.',
  }),
)

export const CreateTag = t.Object(
  {
    title: t.String({
      minLength: 1,
      maxLength: 100,
      description: 'Unique per object type, case-insensitive.',
    }),
    type: t.Optional(tagType),
    appliesToCondition: t.Optional(t.Nullable(appliesToCondition)),
    conditions: conditionsField,
  },
  { additionalProperties: false },
)

export const UpdateTag = t.Object(
  {
    title: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
    type: t.Optional(tagType),
    appliesToCondition: t.Optional(t.Nullable(appliesToCondition)),
    conditions: conditionsField,
  },
  {
    additionalProperties: false,
    description:
      'Partial update; the tag that results is validated as a whole. A Manual tag still attached to objects cannot become Dynamic (409).',
  },
)

export const TagTypeParams = t.Object({
  objectType: t.String({ description: `One of ${objectTypeSlugs.join(', ')}; anything else is 404.` }),
})

export const TagParams = t.Object({
  objectType: t.String({ description: `One of ${objectTypeSlugs.join(', ')}; anything else is 404.` }),
  id: t.String({ minLength: 1, maxLength: 200 }),
})

export const TagListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over the title.' })),
  type: t.Optional(tagType),
  ...pagingQuery(100),
})

export const TagList = t.Object({ tags: t.Array(Tag), total: int({ minimum: 0 }) })

export type CreateTagInput = typeof CreateTag.static
export type UpdateTagInput = typeof UpdateTag.static
export type TagBody = typeof Tag.static
