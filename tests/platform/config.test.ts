import { describe, expect, test } from 'bun:test'
import { availableParallelism } from 'node:os'
import { poolShare } from '../../src/cli/workers'
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
    [{ WORKERS: '0' }, 'WORKERS'],
    [{ WORKERS: 'all' }, 'WORKERS'],
    [
      {
        WORKERS: '2',
        CLUSTER_ETCD_URL: 'http://127.0.0.1:2379',
        LITESTREAM_REPLICA_URL: 'file:///tmp/replica',
      },
      'WORKERS',
    ],
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

  test("WORKERS defaults to the machine's cores, is one on a cluster node; the pool is split between the processes", () => {
    expect(loadConfig({}).workers).toBe(availableParallelism())
    expect(loadConfig({ WORKERS: '2' }).workers).toBe(2)
    expect(loadConfig({ WORKERS: '1' }).workers).toBe(1)
    const clustered = { CLUSTER_ETCD_URL: 'http://127.0.0.1:2379', LITESTREAM_REPLICA_URL: 'file:///tmp/r' }
    expect(loadConfig(clustered).workers).toBe(1)
    const four = loadConfig({ WORKERS: '4', TENANT_POOL_MEMORY: '1024MiB', TENANT_POOL_SIZE: '1000' })
    // The primary a thirty-second; four workers a quarter of the rest each.
    expect(poolShare(four, 'primary')).toMatchObject({ tenantPoolMemory: 32 * 2 ** 20, tenantPoolSize: 32 })
    expect(poolShare(four, 'worker')).toMatchObject({ tenantPoolMemory: 248 * 2 ** 20, tenantPoolSize: 243 })
    const one = loadConfig({ WORKERS: '1', TENANT_POOL_MEMORY: '1000MiB' })
    expect(poolShare(one, 'primary')).toBe(one)
  })
})
