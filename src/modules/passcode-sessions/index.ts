import { family } from '../../platform/family'
import * as model from './model'
import { passcodeSessionRoutes } from './routes'

export const passcodeSessionsFamily = family({
  name: 'passcode-sessions',
  tags: {
    Auth: 'POS passcode sessions: staff sign in at a location with a passcode and get a `vps_` token.',
  },
  models: { passcodeSessions: model },
  routes: (platform) => [passcodeSessionRoutes(platform)],
})
