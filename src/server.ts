// createApp: the platform plugins and every module, composed into one Elysia app.
import { Elysia } from 'elysia'
import { type Config, configFor } from './config'
import { couponRoutes } from './modules/coupons/routes'
import { healthRoutes } from './modules/health/routes'
import { noteRoutes } from './modules/notes/routes'
import { tagRoutes } from './modules/tags/routes'
import { taxRoutes } from './modules/taxes/routes'
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
    .use(tagRoutes(platform.auth))
    .use(noteRoutes(platform.auth))
    .use(taxRoutes(platform.auth))
    .use(couponRoutes(platform.auth, '/coupon'))
    .use(couponRoutes(platform.auth, '/coupons'))
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
