import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import {
  App,
  AppData,
  AppList,
  AppListQuery,
  AppParams,
  AppSync,
  AppSyncList,
  AppSyncParams,
  CreateApp,
  DeletedApp,
  PostAppSync,
  PutAppData,
  UpdateApp,
} from './model'
import { createApp, deleteApp, getApp, getAppData, listApps, putAppData, syncApp, updateApp } from './service'
import { appSyncView, listAppSyncs, postAppSync } from './sync-service'

export const appRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'apps', detail: { tags: ['Apps'] } })
    .use(auth)
    .get('/apps', ({ db, query }) => listApps(db, { q: query.q, status: query.status, ...pageOf(query) }), {
      permission: 'apps:read',
      query: AppListQuery,
      response: AppList,
      detail: {
        summary: 'List apps',
        description: 'Ordered by name; `q` matches slug, name or description.',
      },
    })
    .post(
      '/apps',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createApp(db, actor, body)
      },
      {
        permission: 'apps:write',
        body: CreateApp,
        response: { 201: App },
        detail: {
          summary: 'Create an app',
          description: 'Starts `active` (unless sent) with `syncStatus` `idle`. A duplicate `slug` is 409.',
        },
      },
    )
    .get('/apps/:id', ({ db, params }) => getApp(db, params.id), {
      permission: 'apps:read',
      params: AppParams,
      response: App,
      detail: { summary: 'Get an app' },
    })
    .put('/apps/:id', ({ db, actor, params, body }) => updateApp(db, actor, params.id, body), {
      permission: 'apps:write',
      params: AppParams,
      body: UpdateApp,
      response: App,
      detail: { summary: 'Update an app', description: 'Partial: fields not sent keep their value.' },
    })
    .delete('/apps/:id', ({ db, actor, params }) => deleteApp(db, actor, params.id), {
      permission: 'apps:write',
      params: AppParams,
      response: DeletedApp,
      detail: {
        summary: 'Delete an app',
        description: 'Deletes the app with its data and its app sync records; answers `{message}`.',
      },
    })
    .get('/apps/:id/data', ({ db, params }) => getAppData(db, params.id), {
      permission: 'apps:read',
      params: AppParams,
      response: AppData,
      detail: {
        summary: 'Get an app’s data',
        description: 'The app’s free-form settings object; `{}` with `updatedAt` null before the first PUT.',
      },
    })
    .put('/apps/:id/data', ({ db, actor, params, body }) => putAppData(db, actor, params.id, body.data), {
      permission: 'apps:write',
      params: AppParams,
      body: PutAppData,
      response: AppData,
      detail: { summary: 'Replace an app’s data', description: 'The whole object is replaced.' },
    })
    .post('/apps/:id/sync', ({ db, actor, params }) => syncApp(db, actor, params.id), {
      permission: 'apps:write',
      params: AppParams,
      response: App,
      detail: {
        summary: 'Request a sync from an app',
        description:
          'Records a sync request; this service moves no data itself. `syncStatus` becomes `synced` and `lastSyncedAt` now ' +
          '(the time of the request, not of any data transfer), and an `app` `sync` event (payload: the app) is emitted: the app, ' +
          'subscribed to it by webhook, does the syncing and reports each object’s outcome with `POST /app-sync`. The app’s data ' +
          'and its sync records are not touched. Answers the app. An inactive app is refused with 409.',
      },
    })
    .post(
      '/app-sync',
      ({ db, actor, body, set }) => {
        const { created, sync } = postAppSync(db, actor, body)
        set.status = created ? 201 : 200
        return appSyncView(sync)
      },
      {
        permission: 'apps:write',
        body: PostAppSync,
        response: { 200: AppSync, 201: AppSync },
        detail: {
          summary: 'Report an object’s sync status',
          description:
            'One record per (`appId`, `objectType`, `objectId`): the first report creates it (201), later ones update ' +
            'status, issues and actions (200). Every report is kept as an attempt with its issues. `appId`, when sent, must name an app.',
        },
      },
    )
    .get('/app-syncs/:objectId', ({ db, params }) => listAppSyncs(db, params.objectId), {
      permission: 'apps:read',
      params: AppSyncParams,
      response: AppSyncList,
      detail: {
        summary: 'Get an object’s sync records',
        description:
          'Every app’s record for the object, most recent activity first, each with its latest 50 attempts. None is `{appSyncs: []}`.',
      },
    })
