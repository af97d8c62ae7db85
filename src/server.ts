// createApp: the platform plugins and every module, composed into one Elysia app.
import { Elysia } from 'elysia'
import { type Config, configFor } from './config'
import { clubMembershipRoutes } from './modules/club-memberships/routes'
import { clubRoutes } from './modules/clubs/routes'
import { customerRoutes } from './modules/customers/routes'
import { healthRoutes } from './modules/health/routes'
import { vendorRoutes } from './modules/vendors/routes'
import { httpConventions } from './platform/http/conventions'
import { docsPlugin } from './platform/http/docs'
import { openPlatform, type Platform, type PlatformOptions } from './platform/platform'

export interface AppOptions extends PlatformOptions {
  config?: Config
}

export function buildApp(platform: Platform) {
  const app = new Elysia({ normalize: false })
    .use(httpConventions({ maxBodyBytes: platform.config.maxBodyBytes, log: platform.log }))
    .use(docsPlugin())
    .use(healthRoutes(platform))
    .use(vendorRoutes(platform.auth))
    .use(customerRoutes(platform.auth, platform))
    .use(clubRoutes(platform.auth))
    .use(clubMembershipRoutes(platform.auth))
  if (platform.devIssuer) {
    const jwks = platform.devIssuer.jwks
    app.get('/.well-known/jwks.json', () => jwks, { detail: { hide: true } })
  }
  return app
}

export type App = ReturnType<typeof buildApp>

export async function createApp(options: AppOptions = {}): Promise<{ app: App; platform: Platform }> {
  const platform = await openPlatform(options.config ?? configFor({}), options)
  return { app: buildApp(platform), platform }
}
