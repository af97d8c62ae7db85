import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { int } from '../../platform/foundation/types'

const clubType = t.Union([t.Literal('Traditional'), t.Literal('Subscription')], {
  description:
    '`Traditional`: the winery picks each release (curated shipments); `Subscription`: the member receives a fixed selection on the cadence.',
})
const availability = t.Union([t.Literal('Available'), t.Literal('Not Available')])

export const Cadence = t.Object(
  {
    unit: t.Union([t.Literal('day'), t.Literal('week'), t.Literal('month'), t.Literal('year')]),
    count: int({ minimum: 1, maximum: 366 }),
  },
  {
    additionalProperties: false,
    description: 'Every `count` `unit`s, e.g. `{unit: month, count: 3}` is quarterly.',
  },
)

export const Club = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    title: t.String(),
    type: clubType,
    content: t.Nullable(t.String()),
    publishDate: t.Nullable(t.String({ format: 'date-time' })),
    slug: t.String(),
    seo: t.Object({ title: t.Nullable(t.String()), description: t.Nullable(t.String()) }),
    webStatus: availability,
    adminStatus: availability,
    cadence: Cadence,
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/Club' },
)

const optionalText = (max: number) => t.Optional(t.Nullable(t.String({ maxLength: max })))

const clubFields = {
  type: t.Optional(clubType),
  content: optionalText(100_000),
  publishDate: t.Optional(t.Nullable(t.String({ format: 'date-time' }))),
  seo: t.Optional(
    t.Object(
      { title: optionalText(200), description: optionalText(1000) },
      { additionalProperties: false, description: 'Only the members sent change; null clears one.' },
    ),
  ),
  webStatus: t.Optional(
    t.Union([availability], { description: 'Whether the club is offered on the web store.' }),
  ),
  adminStatus: t.Optional(
    t.Union([availability], { description: 'Whether staff can sign members up in the admin and POS.' }),
  ),
  cadence: t.Optional(Cadence),
}

const title = t.String({ minLength: 1, maxLength: 200 })
const slug = t.String({
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  maxLength: 100,
  description: 'Lower-case words joined by dashes; unique within the tenant.',
})

export const CreateClub = t.Object({ title, slug, ...clubFields }, { additionalProperties: false })

export const UpdateClub = t.Object(
  { title: t.Optional(title), slug: t.Optional(slug), ...clubFields },
  {
    additionalProperties: false,
    description: 'Partial update: only the fields sent change; null clears a field.',
  },
)

export const ClubListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over title and slug.' })),
  ...pagingQuery(100),
})

export const ClubList = t.Object({ clubs: t.Array(Club), total: int({ minimum: 0 }) })
export const ClubParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateClubInput = typeof CreateClub.static
export type UpdateClubInput = typeof UpdateClub.static
export type ClubView = typeof Club.static
