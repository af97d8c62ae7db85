// Every environment variable the service reads, parsed and validated in one place.
// A bad value stops start-up with one line naming the variable (see ConfigError).
import { resolve } from 'node:path'

export type SqliteSynchronous = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA'

export interface Config {
  port: number
  host: string
  dataDir: string
  defaultTenantSlug: string
  tenantPoolSize: number
  /** JWKS of the identity provider; when absent the built-in development issuer is on. */
  authJwksUrl: string | undefined
  authIssuer: string
  authAudience: string
  authTrustIdentityHeaders: boolean
  sqliteSynchronous: SqliteSynchronous
  sqliteBusyTimeoutMs: number
  maxBodyBytes: number
  passcodeSessionTtlSeconds: number
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent'
  paymentGateway: PaymentGateway
  /** Secret API key of the Stripe account; required when paymentGateway is `stripe`. */
  stripeSecretKey: string | undefined
  /** Base URL of the Stripe API; tests point it at a local fake server. */
  stripeApiUrl: string
}

export type PaymentGateway = 'sandbox' | 'stripe'

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

function text(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim()
  return value ? value : fallback
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(name, `expected ${min}..${max}, got ${value}`)
  return value
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase()
  if (!raw) return fallback
  if (raw === 'true' || raw === '1') return true
  if (raw === 'false' || raw === '0') return false
  throw new ConfigError(name, `expected true or false, got "${raw}"`)
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  const match = values.find((v) => v.toLowerCase() === raw.toLowerCase())
  if (!match) throw new ConfigError(name, `expected one of ${values.join(', ')}, got "${raw}"`)
  return match
}

function url(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim()
  if (!raw) return undefined
  try {
    const parsed = new URL(raw)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error()
    return parsed.toString()
  } catch {
    throw new ConfigError(name, `expected an http(s) URL, got "${raw}"`)
  }
}

function slug(env: Env, name: string, fallback: string): string {
  const value = text(env, name, fallback)
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(value)) throw new ConfigError(name, `expected a slug, got "${value}"`)
  return value
}

function stripeSecretKey(env: Env, gateway: PaymentGateway): string | undefined {
  const value = env.STRIPE_SECRET_KEY?.trim() || undefined
  if (gateway === 'stripe' && !value)
    throw new ConfigError('STRIPE_SECRET_KEY', 'required when PAYMENT_PROVIDER=stripe')
  if (value && !/^(sk|rk)_[A-Za-z0-9_]+$/.test(value))
    throw new ConfigError(
      'STRIPE_SECRET_KEY',
      'expected a Stripe secret or restricted key (sk_... or rk_...)',
    )
  return value
}

export function loadConfig(env: Env = process.env): Config {
  const paymentGateway = oneOf(env, 'PAYMENT_PROVIDER', ['sandbox', 'stripe'] as const, 'sandbox')
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: text(env, 'HOST', '0.0.0.0'),
    dataDir: resolve(text(env, 'DATA_DIR', './tenants')),
    defaultTenantSlug: slug(env, 'DEFAULT_TENANT_SLUG', 'default'),
    tenantPoolSize: integer(env, 'TENANT_POOL_SIZE', 256, 1, 100_000),
    authJwksUrl: url(env, 'AUTH_JWKS_URL'),
    authIssuer: text(env, 'AUTH_ISSUER', 'restaurant-ops-dev'),
    authAudience: text(env, 'AUTH_AUDIENCE', 'restaurant-ops'),
    authTrustIdentityHeaders: boolean(env, 'AUTH_TRUST_IDENTITY_HEADERS', false),
    sqliteSynchronous: oneOf(env, 'SQLITE_SYNCHRONOUS', ['OFF', 'NORMAL', 'FULL', 'EXTRA'], 'NORMAL'),
    sqliteBusyTimeoutMs: integer(env, 'SQLITE_BUSY_TIMEOUT_MS', 5000, 0, 600_000),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1_048_576, 1024, 1_073_741_824),
    passcodeSessionTtlSeconds: integer(env, 'PASSCODE_SESSION_TTL', 12 * 3600, 60, 30 * 86400),
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'], 'info'),
    paymentGateway,
    stripeSecretKey: stripeSecretKey(env, paymentGateway),
    stripeApiUrl: url(env, 'STRIPE_API_URL') ?? 'https://api.stripe.com/',
  }
}

/** Defaults for in-process use (tests, CLI helpers), overridable field by field. */
export function configFor(overrides: Partial<Config>): Config {
  return { ...loadConfig({}), logLevel: 'silent', ...overrides }
}
