// Tenants as a service across processes (issue 23): operator keys and tenant lifecycle commands on
// the command line act at once on a running server over the same data directory.
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { runCli, sharedDataDir, sourceCommand } from './cli'

describe('tenant and operator-key commands against a running server', () => {
  const shared = sharedDataDir()
  const { env } = shared
  const dataDir = env.DATA_DIR
  const cli = async (...args: string[]) => {
    const result = await runCli(sourceCommand, args, env)
    if (result.code !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`)
    return result.json
  }

  test('create, suspend, resume, export, import and delete; keys made and revoked', async () => {
    const tenant = await cli(
      'tenant',
      'create',
      '--slug',
      'napa',
      '--name',
      'Napa',
      '--seed',
      'empty',
      '--owner-subject',
      'napa-owner',
    )
    expect(tenant).toMatchObject({ slug: 'napa', status: 'active', seed: 'empty' })
    const key = await cli('operator-key', 'create', '--name', 'ci')
    expect(key.token).toStartWith('opk_')
    const server = await shared.startServer()
    const ownerToken = (await cli('token', '--tenant', 'napa', '--subject', 'napa-owner')).token
    const asOwner = (slug = 'napa') =>
      fetch(`${server.url}/locations`, {
        headers: { authorization: `Bearer ${ownerToken}`, 'x-tenant-slug': slug },
      })
    const asOperator = (path: string) =>
      fetch(`${server.url}/admin/v1${path}`, { headers: { authorization: `Bearer ${key.token}` } })
    expect((await asOwner()).status).toBe(200)
    expect((await asOperator('/tenants/napa')).status).toBe(200)

    await cli('tenant', 'suspend', '--tenant', 'napa')
    const suspended = await asOwner()
    expect(suspended.status).toBe(403)
    expect(((await suspended.json()) as { code: string }).code).toBe('tenant_suspended')
    await cli('tenant', 'resume', '--tenant', 'napa')
    expect((await asOwner()).status).toBe(200)

    const out = join(dataDir, 'napa-export.sqlite')
    expect(await cli('tenant', 'export', '--tenant', 'napa', '--out', out)).toMatchObject({
      tenant: 'napa',
      path: out,
    })
    const imported = await cli(
      'tenant',
      'import',
      '--file',
      out,
      '--slug',
      'napa-copy',
      '--name',
      'Napa copy',
    )
    expect(imported.tenant.slug).toBe('napa-copy')
    expect((await asOwner('napa-copy')).status).toBe(200)

    const deleted = await cli('tenant', 'delete', '--tenant', 'napa')
    expect(existsSync(deleted.finalSnapshot)).toBe(true)
    expect(readdirSync(dataDir).filter((name) => name.startsWith(tenant.id))).toEqual([])
    expect((await asOwner()).status).toBe(404)

    const keys = await cli('operator-key', 'list')
    expect(keys.operatorKeys).toMatchObject([
      { name: 'ci', status: 'active', tokenHint: key.token.slice(-4) },
    ])
    expect(JSON.stringify(keys)).not.toContain(key.token)
    await cli('operator-key', 'revoke', '--id', key.id)
    expect((await asOperator('/tenants')).status).toBe(401)

    const failed = await runCli(sourceCommand, ['tenant', 'suspend', '--tenant', 'ghost'], env)
    expect(failed.code).not.toBe(0)
    expect(failed.stderr).toContain('tenant "ghost" not found')
  })
})
