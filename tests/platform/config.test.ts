import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../src/config'

describe('configuration', () => {
  test('defaults', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 3000,
      defaultTenantSlug: 'default',
      tenantPoolSize: 192,
      authJwksUrl: undefined,
      authTrustIdentityHeaders: false,
      sqliteSynchronous: 'NORMAL',
      shutdownTimeoutMs: 8000,
    })
    expect(config.dataDir).toEndWith('/tenants')
  })

  const bad: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ TENANT_POOL_SIZE: '0' }, 'TENANT_POOL_SIZE'],
    [{ AUTH_JWKS_URL: 'ftp://x' }, 'AUTH_JWKS_URL'],
    [{ AUTH_TRUST_IDENTITY_HEADERS: 'yes please' }, 'AUTH_TRUST_IDENTITY_HEADERS'],
    [{ SQLITE_SYNCHRONOUS: 'SOMETIMES' }, 'SQLITE_SYNCHRONOUS'],
    [{ DEFAULT_TENANT_SLUG: 'Not A Slug' }, 'DEFAULT_TENANT_SLUG'],
    [{ SHUTDOWN_TIMEOUT_MS: '5s' }, 'SHUTDOWN_TIMEOUT_MS'],
    [{ SHUTDOWN_TIMEOUT_MS: '999' }, 'SHUTDOWN_TIMEOUT_MS'],
  ]
  for (const [env, variable] of bad) {
    test(`a bad ${variable} is refused with a message naming it`, () => {
      expect(() => loadConfig(env)).toThrow(ConfigError)
      expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `))
    })
  }

  test('values are parsed', () => {
    expect(
      loadConfig({
        PORT: '8080',
        AUTH_TRUST_IDENTITY_HEADERS: 'true',
        SQLITE_SYNCHRONOUS: 'full',
        AUTH_JWKS_URL: 'https://idp.test/jwks',
        SHUTDOWN_TIMEOUT_MS: '25000',
      }),
    ).toMatchObject({
      port: 8080,
      authTrustIdentityHeaders: true,
      sqliteSynchronous: 'FULL',
      authJwksUrl: 'https://idp.test/jwks',
      shutdownTimeoutMs: 25_000,
    })
  })
})
