// `serve`: open the platform, create the embedded default on an empty data directory, start
// replication when configured, listen, and shut down gracefully on SIGTERM/SIGINT.
import type { Config } from '../config'
import { backedUpDatabases } from '../platform/backup/databases'
import { LitestreamSupervisor, resolveLitestreamBinary } from '../platform/backup/litestream'
import { writeServeLock } from '../platform/backup/restore'
import { openPlatform, type Platform } from '../platform/platform'
import { buildApp } from '../server'
import { ensureEmbeddedDefault } from './bootstrap'

function startReplication(platform: Platform): LitestreamSupervisor | null {
  const { config, log } = platform
  if (!config.litestreamReplicaUrl) return null
  const binary = resolveLitestreamBinary(config.litestreamBin)
  if (!binary)
    throw new Error('LITESTREAM_REPLICA_URL is set but no Litestream binary was found (set LITESTREAM_BIN)')
  const supervisor = new LitestreamSupervisor({
    binary,
    configPath: `${config.dataDir}/litestream.yml`,
    replicaUrl: config.litestreamReplicaUrl,
    s3: config.litestreamS3,
    log,
    listDatabases: () => backedUpDatabases(config.dataDir, platform.control.db),
  })
  supervisor.start()
  log.info('litestream replicating', { replica: config.litestreamReplicaUrl, binary })
  return supervisor
}

export async function serve(config: Config): Promise<void> {
  const platform = await openPlatform(config)
  const { log } = platform
  const releaseLock = writeServeLock(config.dataDir)
  ensureEmbeddedDefault(platform)
  platform.replication = startReplication(platform)
  // Tenants may be created by the CLI in another process: pick them up for replication.
  const tenantWatch = setInterval(() => platform.replication?.syncDatabases(), 5000)
  tenantWatch.unref()
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
  const url = `http://${app.server?.hostname}:${app.server?.port}`
  log.info('listening', { url, dataDir: config.dataDir })
  console.log(JSON.stringify({ listening: url, port: app.server?.port, dataDir: config.dataDir }))

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('shutting down', { signal })
    clearInterval(tenantWatch)
    // Stop accepting, let in-flight requests finish, then stop replication after its last sync.
    await app.stop()
    await platform.replication?.stop()
    platform.close()
    releaseLock()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}
