// The compiled single binary does what the source does: same CLI, same server, docs offline.
import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exerciseCommandLine, freshDataDir, root, runCli, startServer } from './cli'

let binary: string

beforeAll(async () => {
  // Built the way `npm run build` builds dist/restaurant-ops, into a private folder.
  binary = join(mkdtempSync(join(tmpdir(), 'restaurant-ops-bin-')), 'restaurant-ops')
  const build = Bun.spawnSync(
    [
      process.execPath,
      'build',
      'src/main.ts',
      '--compile',
      '--minify-whitespace',
      '--minify-syntax',
      '--outfile',
      binary,
    ],
    { cwd: root, stdout: 'pipe', stderr: 'pipe' },
  )
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`)
}, 120_000)

describe('compiled binary', () => {
  test('runs the command line like the source', async () => {
    const { tenant, location, staff, token, migrate } = await exerciseCommandLine([binary])
    expect(tenant).toMatchObject({ code: 0, json: { slug: 'napa' } })
    expect(location.code).toBe(0)
    expect(staff).toMatchObject({ code: 0, json: { role: 'manager' } })
    expect(token.json.token).toBeString()
    expect(migrate.code).toBe(0)
  })

  test('serves GET /, the API with a minted token, and the docs page with no files beside it', async () => {
    const env = { DATA_DIR: freshDataDir() }
    const server = await startServer([binary], env)
    try {
      expect(await (await fetch(`${server.url}/`)).json()).toMatchObject({ name: 'restaurant-ops' })
      const { json } = await runCli([binary], ['token', '--tenant', 'default', '--subject', 'owner'], env)
      const res = await fetch(`${server.url}/vendor`, { headers: { authorization: `Bearer ${json.token}` } })
      expect(res.status).toBe(200)
      const script = await fetch(`${server.url}/docs/scalar.js`)
      expect(script.status).toBe(200)
      expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000)
      expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200)
    } finally {
      await server.stop()
    }
  })
})
