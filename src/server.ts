// createApp: the platform plugins and every module, composed into one Elysia app.
import { type AnyElysia, Elysia } from 'elysia'
import { type Config, configFor } from './config'
import {
  apiTags,
  dueWorkSources,
  eventCatalogue,
  modelFiles,
  mountFamilies,
  registerFamilies,
} from './modules'
import { accessSources } from './modules/access'
import { clusterRouting } from './platform/cluster/routing'
import { consoleRoutes } from './platform/docs/console'
import { mountDocs } from './platform/docs/docs'
import { problemPageRoutes } from './platform/docs/problem-pages'
import { allowedMethods } from './platform/http/allowed-methods'
import type { ConnectionBalance } from './platform/http/connection-balance'
import { httpConventions } from './platform/http/conventions'
import { createdLocation } from './platform/http/created-location'
import type { Drain } from './platform/http/drain'
import { type BodySchemas, takeOverBodyChecks } from './platform/http/request-body'
import { skipResponseChecks } from './platform/http/response-checks'
import { workerAffinity } from './platform/http/worker-affinity'

import { openPlatform, type Platform, type PlatformOptions } from './platform/platform'

export interface AppOptions extends Omit<PlatformOptions, 'access' | 'dueWork'> {
  config?: Config
}

/**
 * `serving`: what `serve` brings, its graceful stop (platform/http/drain.ts) and, in an HTTP worker,
 * the workers' connection balance (platform/http/connection-balance.ts).
 */
export function buildApp(
  platform: Platform,
  serving: { drain?: Drain; balance?: ConnectionBalance } = {},
): AnyElysia {
  registerFamilies()
  // Typed as AnyElysia: composing every module in one chained type exceeds what tsc can represent,
  // and nothing consumes the app's route types (no Eden client).
  const app: AnyElysia = new Elysia({ normalize: false, encodeSchema: false })
  const bodySchemas: BodySchemas = new Map()
  app.use(
    httpConventions({
      maxBodyBytes: platform.config.maxBodyBytes,
      maxJsonDepth: platform.config.maxJsonDepth,
      log: platform.log,
      drain: serving.drain,
      balance: serving.balance,
      allow: allowedMethods(app),
      bodySchemas,
      location: createdLocation(app),
    }),
  )
  if (platform.cluster)
    app.use(
      clusterRouting(
        platform.cluster,
        platform.config.defaultTenantSlug,
        platform.authDeps.legacyTokenTenant,
      ),
    )
  if (platform.affinity)
    app.use(workerAffinity(platform.affinity, platform.authDeps.tenants, platform.config.defaultTenantSlug))
  for (const routes of mountFamilies(platform)) app.use(routes)
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
