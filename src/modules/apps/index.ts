import { CRUD } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import * as model from './model'
import { App } from './model'
import { appRoutes } from './routes'

export const appsFamily = family({
  name: 'apps',
  tags: {
    Apps: 'Installed apps, their data and sync records.',
  },
  models: { apps: model },
  events: [
    {
      object: 'app',
      readPermission: 'apps:read',
      actions: [...CRUD, 'sync'],
      emittedBy: '`/apps` and `POST /apps/{id}/sync`',
      payload: 'the app',
      schema: App,
    },
  ],
  routes: (platform) => [appRoutes(platform.auth)],
})
