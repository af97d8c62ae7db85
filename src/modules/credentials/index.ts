import { family } from '../../platform/family'
import * as model from './model'
import { credentialRoutes } from './routes'

export const credentialsFamily = family({
  name: 'credentials',
  tags: {
    Credentials:
      'Tables-API credentials (`tpk_live_`) of the tenant: made (the token shown once), listed and revoked by an owner.',
  },
  models: { credentials: model },
  routes: (platform) => [credentialRoutes(platform)],
})
