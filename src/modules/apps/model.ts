import { t } from 'elysia'
import { pageTotalSchema, pagingQuery } from '../../platform/foundation/paging'
import { freeForm, webUrl } from '../../platform/foundation/types'

const appStatus = t.Union([t.Literal('active'), t.Literal('inactive')], {
  description: 'Inactive apps keep their data but cannot be synced.',
})
const syncStatus = t.Union([t.Literal('idle'), t.Literal('synced')], {
  description:
    '`idle` until the first `POST /apps/{id}/sync`, `synced` after: a sync was requested (the app reports what it synced with `POST /app-sync`).',
})
const slug = t.String({
  pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
  description: 'Lower-case letters, digits and dashes; unique within the tenant.',
})
const optionalText = (max: number) => t.Optional(t.Nullable(t.String({ maxLength: max })))
const dateTime = t.String({ format: 'date-time' })

export const App = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    slug: t.String(),
    name: t.String(),
    description: t.Nullable(t.String()),
    homepageUrl: t.Nullable(t.String()),
    status: appStatus,
    syncStatus,
    lastSyncedAt: t.Nullable(dateTime),
    createdAt: dateTime,
    updatedAt: dateTime,
  },
  { $id: '#/components/schemas/App' },
)

const appFields = {
  description: optionalText(2000),
  homepageUrl: t.Optional(t.Nullable(webUrl(2000))),
  status: t.Optional(appStatus),
}

export const CreateApp = t.Object(
  { slug, name: t.String({ minLength: 1, maxLength: 200 }), ...appFields },
  { additionalProperties: false },
)

export const UpdateApp = t.Object(
  { slug: t.Optional(slug), name: t.Optional(t.String({ minLength: 1, maxLength: 200 })), ...appFields },
  {
    additionalProperties: false,
    description:
      'Partial update: only the fields sent change; null clears a field. Sync fields change only by sync.',
  },
)

export const AppListQuery = t.Object({
  q: t.Optional(
    t.String({ maxLength: 200, description: 'Case-insensitive search over slug, name and description.' }),
  ),
  status: t.Optional(appStatus),
  ...pagingQuery(100),
})

export const AppList = t.Object({ apps: t.Array(App), page: pageTotalSchema })
export const AppParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })
export const DeletedApp = t.Object({ message: t.String() })

export const AppData = t.Object(
  {
    appId: t.String(),
    data: t.Record(t.String(), t.Unknown()),
    updatedAt: t.Nullable(dateTime),
  },
  { $id: '#/components/schemas/AppData' },
)

export const PutAppData = t.Object(
  { data: freeForm({ description: 'Replaces the whole object.' }) },
  { additionalProperties: false },
)

const syncState = t.Union(
  [t.Literal('Success'), t.Literal('Pending'), t.Literal('Warning'), t.Literal('Error')],
  {
    description: 'How the app’s last sync of the object went.',
  },
)

const AppSyncActionIn = t.Object(
  {
    httpType: t.Union([
      t.Literal('GET'),
      t.Literal('POST'),
      t.Literal('PUT'),
      t.Literal('PATCH'),
      t.Literal('DELETE'),
    ]),
    url: webUrl(2000),
    label: t.String({ minLength: 1, maxLength: 100 }),
  },
  { additionalProperties: false },
)

export const PostAppSync = t.Object(
  {
    appId: t.Optional(
      t.String({ minLength: 1, maxLength: 200, description: 'The reporting app; must exist.' }),
    ),
    objectType: t.String({ minLength: 1, maxLength: 100, description: 'e.g. `Order`, `Customer`.' }),
    objectId: t.String({ minLength: 1, maxLength: 200 }),
    status: syncState,
    issues: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 1000 }), { maxItems: 50 })),
    actions: t.Optional(t.Array(AppSyncActionIn, { maxItems: 10 })),
  },
  { additionalProperties: false },
)

const AppSyncAttempt = t.Object({
  id: t.String(),
  status: t.String(),
  activityDate: dateTime,
  issues: t.Array(t.Object({ id: t.String(), appSyncAttemptId: t.String(), issue: t.String() })),
})

const appSyncFields = {
  id: t.String(),
  appId: t.Nullable(t.String()),
  objectType: t.String(),
  objectId: t.String(),
  status: t.String(),
  issues: t.Array(t.String()),
  actions: t.Array(t.Object({ id: t.String(), httpType: t.String(), url: t.String(), label: t.String() })),
  lastActivityDate: dateTime,
  createdAt: dateTime,
  updatedAt: dateTime,
}

export const AppSync = t.Object(appSyncFields, { $id: '#/components/schemas/AppSync' })
export const AppSyncWithAttempts = t.Object({ ...appSyncFields, attempts: t.Array(AppSyncAttempt) })
export const AppSyncList = t.Object({ appSyncs: t.Array(AppSyncWithAttempts) })
export const AppSyncParams = t.Object({ objectId: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateAppInput = typeof CreateApp.static
export type UpdateAppInput = typeof UpdateApp.static
export type PostAppSyncInput = typeof PostAppSync.static
