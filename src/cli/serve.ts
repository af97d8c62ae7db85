// `serve`: open the platform, create the embedded default on an empty data directory, listen,
// and shut down gracefully on SIGTERM/SIGINT.
import type { Config } from '../config'
import { openPlatform } from '../platform/platform'
import { buildApp } from '../server'
import { ensureEmbeddedDefault } from './bootstrap'

export async function serve(config: Config): Promise<void> {
  const platform = await openPlatform(config)
  const { log } = platform
  ensureEmbeddedDefault(platform)
  if (platform.devIssuer) {
    log.warn(
      'DEVELOPMENT ISSUER ON: AUTH_JWKS_URL is not set, so this server trusts tokens it mints itself ' +
        '(`bun src/main.ts token ...`). Set AUTH_JWKS_URL to your identity provider before production use.',
      { jwks: '/.well-known/jwks.json', issuer: config.authIssuer, audience: config.authAudience },
    )
  }
  if (config.authTrustIdentityHeaders) {
    log.warn(
      'AUTH_TRUST_IDENTITY_HEADERS=true: x-auth-provider/x-auth-user-id are trusted. Never in production.',
    )
  }
  const app = buildApp(platform).listen({
    port: config.port,
    hostname: config.host,
    // Above MAX_BODY_BYTES so the app's own check answers with a problem document.
    maxRequestBodySize: config.maxBodyBytes + 1024,
  })
  platform.jobs.start()
  const url = `http://${app.server?.hostname}:${app.server?.port}`
  log.info('listening', { url, dataDir: config.dataDir })
  console.log(JSON.stringify({ listening: url, port: app.server?.port, dataDir: config.dataDir }))

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('shutting down', { signal })
    await app.stop()
    // Lets webhook requests in flight finish and record their attempts before the databases close.
    await platform.shutdown()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}
