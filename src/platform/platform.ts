// Everything a running service holds open: configuration, logger, databases and the verifier.
// Built once per app (tests build one per test over a fresh data directory).
import type { Config } from '../config'
import type { AuthDeps } from './auth/authenticate'
import { type DevIssuer, openDevIssuer } from './auth/dev-issuer'
import { createTokenVerifier } from './auth/jwt'
import { type AuthPlugin, authPlugin } from './auth/plugin'
import { createLogger, type Logger } from './log'
import { openPaymentProvider } from './payments'
import type { PaymentProvider } from './payments/provider'
import { type DatabaseHandle, openControlDatabase, TenantPool } from './tenancy/databases'

export interface Platform {
  config: Config
  log: Logger
  control: DatabaseHandle
  pool: TenantPool
  /** The built-in development issuer; null when AUTH_JWKS_URL names a real identity provider. */
  devIssuer: DevIssuer | null
  auth: AuthPlugin
  /** Where cards are kept: the configured PAYMENT_PROVIDER. */
  payments: PaymentProvider
  close(): void
}

export interface PlatformOptions {
  /** In-process tests only: honour `x-staff-user-id`. Never reachable from the environment. */
  trustStaffUserIdHeader?: boolean
  /** In-process tests only: a payment provider to use instead of the configured one. */
  paymentProvider?: PaymentProvider
}

export async function openPlatform(config: Config, options: PlatformOptions = {}): Promise<Platform> {
  const log = createLogger(config.logLevel)
  const sqliteOptions = { synchronous: config.sqliteSynchronous, busyTimeoutMs: config.sqliteBusyTimeoutMs }
  const control = openControlDatabase(config.dataDir, sqliteOptions)
  const pool = new TenantPool(config.dataDir, config.tenantPoolSize, sqliteOptions)
  const devIssuer = config.authJwksUrl
    ? null
    : await openDevIssuer(config.dataDir, config.authIssuer, config.authAudience)
  const verifyToken = createTokenVerifier({
    jwks: config.authJwksUrl ? { url: config.authJwksUrl } : { keys: devIssuer!.jwks },
    issuer: config.authIssuer,
    audience: config.authAudience,
  })
  const deps: AuthDeps = {
    config,
    control: control.db,
    pool,
    verifyToken,
    trustStaffUserIdHeader: options.trustStaffUserIdHeader ?? false,
  }
  return {
    config,
    log,
    control,
    pool,
    devIssuer,
    auth: authPlugin(deps),
    payments: options.paymentProvider ?? openPaymentProvider(config),
    close() {
      pool.close()
      control.sqlite.close(false)
    },
  }
}
