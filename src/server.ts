// createApp: the platform plugins and every module, composed into one Elysia app.
import { Elysia } from 'elysia'
import { type Config, configFor } from './config'
import { appRoutes } from './modules/apps/routes'
import { collectionRoutes } from './modules/collections/routes'
import { registerGiftCardJobs } from './modules/gift-cards/jobs'
import { giftCardRoutes } from './modules/gift-cards/routes'
import { healthRoutes } from './modules/health/routes'
import { inventoryRoutes } from './modules/inventory/routes'
import { orderActionRoutes } from './modules/orders/action-routes'
import { serviceOrdersPort } from './modules/orders/adapters'
import { orderRoutes } from './modules/orders/routes'
import { productRoutes } from './modules/products/routes'
import { vendorRoutes } from './modules/vendors/routes'
import { webhookRoutes } from './modules/webhooks/routes'
import { tablesWebhookRoutes } from './modules/webhooks/tables-routes'
import { wineListRoutes } from './modules/wine-lists/routes'
import { httpConventions } from './platform/http/conventions'
import { mountDocs } from './platform/http/docs'
import { openPlatform, type Platform, type PlatformOptions } from './platform/platform'

export interface AppOptions extends PlatformOptions {
  config?: Config
}

export function buildApp(platform: Platform) {
  registerGiftCardJobs(platform)
  const app = new Elysia({ normalize: false })
    .use(httpConventions({ maxBodyBytes: platform.config.maxBodyBytes, log: platform.log }))
    .use(healthRoutes(platform))
    .use(vendorRoutes(platform.auth))
    .use(orderRoutes(platform.auth, serviceOrdersPort))
    .use(orderActionRoutes(platform.auth, serviceOrdersPort))
    .use(appRoutes(platform.auth))
    .use(webhookRoutes(platform.auth, { allowPrivateTargets: platform.config.webhookAllowPrivateTargets }))
    .use(
      tablesWebhookRoutes(platform.auth, { allowPrivateTargets: platform.config.webhookAllowPrivateTargets }),
    )
    .use(inventoryRoutes(platform.auth))
    .use(giftCardRoutes(platform.auth))
    .use(productRoutes(platform.auth))
    .use(wineListRoutes(platform.auth))
    .use(collectionRoutes(platform.auth, '/collection'))
    .use(collectionRoutes(platform.auth, '/collections'))
  if (platform.devIssuer) {
    const jwks = platform.devIssuer.jwks
    app.get('/.well-known/jwks.json', () => jwks, { detail: { hide: true } })
  }
  return mountDocs(app)
}

export type App = ReturnType<typeof buildApp>

export async function createApp(options: AppOptions = {}): Promise<{ app: App; platform: Platform }> {
  const platform = await openPlatform(options.config ?? configFor({}), options)
  return { app: buildApp(platform), platform }
}
