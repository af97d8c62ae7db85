import { describe, expect, test } from 'bun:test'
import { ConfigError, defaultTenantPoolMemory, loadConfig } from '../../src/config'

describe('configuration', () => {
  test('defaults', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 3000,
      defaultTenantSlug: 'default',
      tenantPoolSize: undefined,
      tenantPoolMemory: defaultTenantPoolMemory(),
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
    [{ TENANT_POOL_MEMORY: '512 apples' }, 'TENANT_POOL_MEMORY'],
    [{ TENANT_POOL_MEMORY: '64KiB' }, 'TENANT_POOL_MEMORY'],
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

  test('the pool memory takes a unit, and defaults to a quarter of the machine, at most 4 GiB', () => {
    expect(loadConfig({ TENANT_POOL_MEMORY: '512MiB' }).tenantPoolMemory).toBe(512 * 2 ** 20)
    expect(loadConfig({ TENANT_POOL_MEMORY: '1.5GB' }).tenantPoolMemory).toBe(1.5e9)
    expect(loadConfig({ TENANT_POOL_MEMORY: '2097152' }).tenantPoolMemory).toBe(2 ** 21)
    expect(defaultTenantPoolMemory()).toBeLessThanOrEqual(4 * 2 ** 30)
    expect(loadConfig({ TENANT_POOL_SIZE: '500' }).tenantPoolSize).toBe(500)
  })
})
