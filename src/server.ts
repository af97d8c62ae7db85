// createApp: the platform plugins and every module, composed into one Elysia app.
import { type AnyElysia, Elysia } from 'elysia'
import { type Config, configFor } from './config'
import { accessSources } from './modules/access'
import { apiTags } from './modules/api-tags'
import { appRoutes } from './modules/apps/routes'
import { auditEntryRoutes } from './modules/audit-entries/routes'
import { backupRoutes, operatorBackupRoutes } from './modules/backups/routes'
import { cashRoutes } from './modules/cash/routes'
import { registerClubMembershipJobs } from './modules/club-memberships/jobs'
import { clubMembershipRoutes } from './modules/club-memberships/routes'
import { registerClubReleaseJobs } from './modules/club-releases/jobs'
import { clubReleaseRoutes } from './modules/club-releases/routes'
import { clubRoutes } from './modules/clubs/routes'
import { clusterRoutes } from './modules/cluster/routes'
import { collectionRoutes } from './modules/collections/routes'
import { couponRoutes } from './modules/coupons/routes'
import { credentialRoutes } from './modules/credentials/routes'
import { customerRoutes } from './modules/customers/routes'
import { dueWorkSources } from './modules/due-work'
import { registerEraJobs } from './modules/era/jobs'
import { eraRoutes } from './modules/era/routes'
import { eventCatalogue } from './modules/events'
import { experienceRoutes } from './modules/experiences/routes'
import { registerGiftCardJobs } from './modules/gift-cards/jobs'
import { giftCardRoutes } from './modules/gift-cards/routes'
import { healthRoutes } from './modules/health/routes'
import { inventoryRoutes } from './modules/inventory/routes'
import { laborRoutes } from './modules/labor/routes'
import { shiftRoutes } from './modules/labor/shift-routes'
import { registerLegacyReservationJobs } from './modules/legacy-reservations/jobs'
import { legacyReservationRoutes } from './modules/legacy-reservations/routes'
import { reservationTypeRoutes } from './modules/legacy-reservations/type-routes'
import { locationRoutes } from './modules/locations/routes'
import { registerMediaJobs } from './modules/media/jobs'
import { mediaRoutes } from './modules/media/routes'
import { mediaFileRoutes } from './modules/media/uploads'
import { modelFiles } from './modules/models'
import { noteRoutes } from './modules/notes/routes'
import { registerOffPremiseJobs } from './modules/off-premise/jobs'
import { offPremiseOrderRoutes } from './modules/off-premise/order-routes'
import { offPremiseSettingsRoutes } from './modules/off-premise/routes'
import { orderActionRoutes } from './modules/orders/action-routes'
import { orderRoutes, orderSettingsRoutes } from './modules/orders/routes'
import { serviceOrdersPort } from './modules/orders-port'
import { partnerRoutes } from './modules/partners/routes'
import { passcodeSessionRoutes } from './modules/passcode-sessions/routes'
import { paymentMixRoutes, paymentRoutes } from './modules/payments/routes'
import { productRoutes } from './modules/products/routes'
import { orderShippingRoutes, shippingRoutes } from './modules/shipping/routes'
import { staffRoutes } from './modules/staff/routes'
import { tablesMetaRoutes } from './modules/tables-meta/routes'
import { tablesReservationRoutes } from './modules/tables-reservations/routes'
import { registerTagJobs } from './modules/tags/jobs'
import { tagRoutes } from './modules/tags/routes'
import { taxRoutes } from './modules/taxes/routes'
import { registerTenantJobs } from './modules/tenants/removal'
import { tenantAdminRoutes } from './modules/tenants/routes'
import { vendorRoutes } from './modules/vendors/routes'
import { webhookRoutes } from './modules/webhooks/routes'
import { tablesWebhookRoutes } from './modules/webhooks/tables-routes'
import { wineListRoutes } from './modules/wine-lists/routes'
import { clusterRouting } from './platform/cluster/routing'
import { allowedMethods } from './platform/http/allowed-methods'
import { consoleRoutes } from './platform/http/console'
import { httpConventions } from './platform/http/conventions'
import { createdLocation } from './platform/http/created-location'
import { mountDocs } from './platform/http/docs'
import type { Drain } from './platform/http/drain'
import { problemPageRoutes } from './platform/http/problem-pages'
import { type BodySchemas, takeOverBodyChecks } from './platform/http/request-body'
import { skipResponseChecks } from './platform/http/response-checks'
import { openPlatform, type Platform, type PlatformOptions } from './platform/platform'

export interface AppOptions extends Omit<PlatformOptions, 'access' | 'dueWork'> {
  config?: Config
}

/** Every resource family, in the order they appear in the route table and OpenAPI. */
function moduleRoutes(platform: Platform): AnyElysia[] {
  const { auth, config } = platform
  const webhookOptions = { allowPrivateTargets: config.webhookAllowPrivateTargets }
  return [
    healthRoutes(platform),
    passcodeSessionRoutes(platform),
    staffRoutes(auth, platform.control.db),
    locationRoutes(auth),
    auditEntryRoutes(auth),
    tablesMetaRoutes(platform),
    experienceRoutes(auth),
    tablesReservationRoutes(auth),
    reservationTypeRoutes(auth),
    legacyReservationRoutes(auth),
    vendorRoutes(auth),
    customerRoutes(auth, platform),
    clubRoutes(auth),
    clubMembershipRoutes(auth),
    clubReleaseRoutes(auth, registerClubReleaseJobs(platform, serviceOrdersPort)),
    productRoutes(auth),
    wineListRoutes(auth),
    collectionRoutes(auth, '/collection'),
    collectionRoutes(auth, '/collections'),
    tagRoutes(auth),
    noteRoutes(auth),
    taxRoutes(auth),
    couponRoutes(auth, '/coupon'),
    couponRoutes(auth, '/coupons'),
    inventoryRoutes(auth),
    orderRoutes(auth, serviceOrdersPort),
    orderActionRoutes(auth, serviceOrdersPort, platform.messages),
    orderSettingsRoutes(auth),
    paymentRoutes(auth, { provider: platform.payments, port: serviceOrdersPort }),
    paymentMixRoutes(auth),
    offPremiseOrderRoutes(auth, serviceOrdersPort, platform.messages),
    shippingRoutes(auth),
    orderShippingRoutes(auth),
    offPremiseSettingsRoutes(auth),
    giftCardRoutes(auth),
    cashRoutes(auth),
    appRoutes(auth),
    mediaRoutes(auth, platform),
    mediaFileRoutes(platform),
    webhookRoutes(auth, webhookOptions),
    tablesWebhookRoutes(auth, webhookOptions),
    laborRoutes(auth),
    shiftRoutes(auth),
    partnerRoutes(auth),
    ...eraRoutes(auth, registerEraJobs(platform)),
    credentialRoutes(platform),
    backupRoutes(platform),
    tenantAdminRoutes(platform),
    clusterRoutes(platform),
    operatorBackupRoutes(platform),
  ]
}

/** `drain`: the graceful stop of `serve` (see platform/http/drain.ts). */
export function buildApp(platform: Platform, drain?: Drain): AnyElysia {
  registerClubMembershipJobs(platform)
  registerTagJobs(platform)
  registerGiftCardJobs(platform)
  registerLegacyReservationJobs(platform)
  registerMediaJobs(platform)
  registerOffPremiseJobs(platform)
  registerTenantJobs(platform)
  // Typed as AnyElysia: composing every module in one chained type exceeds what tsc can represent,
  // and nothing consumes the app's route types (no Eden client).
  const app: AnyElysia = new Elysia({ normalize: false, encodeSchema: false })
  const bodySchemas: BodySchemas = new Map()
  app.use(
    httpConventions({
      maxBodyBytes: platform.config.maxBodyBytes,
      maxJsonDepth: platform.config.maxJsonDepth,
      log: platform.log,
      drain,
      allow: allowedMethods(app),
      bodySchemas,
      location: createdLocation(app),
    }),
  )
  if (platform.cluster) app.use(clusterRouting(platform.cluster, platform.config.defaultTenantSlug))
  for (const routes of moduleRoutes(platform)) app.use(routes)
  if (platform.devIssuer) {
    const jwks = platform.devIssuer.jwks
    app.get('/.well-known/jwks.json', () => jwks, { detail: { hide: true } })
  }
  app.use(problemPageRoutes())
  app.use(consoleRoutes())
  mountDocs(app, { tags: apiTags, events: eventCatalogue, models: modelFiles })
  takeOverBodyChecks(app, bodySchemas)
  if (!platform.config.responseValidation) skipResponseChecks(app)
  return app
}

export type App = ReturnType<typeof buildApp>

export async function createApp(options: AppOptions = {}): Promise<{ app: App; platform: Platform }> {
  const platform = await openPlatform(options.config ?? configFor({}), {
    ...options,
    access: accessSources,
    dueWork: dueWorkSources,
    serving: true,
  })
  return { app: buildApp(platform), platform }
}
