// The command line from source, and a real server on a port using what the CLI created.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { CLI_PASSCODE, exerciseCommandLine, freshDataDir, runCli, runtimes, startServer } from './cli'

for (const [runtime, command] of runtimes) {
  describe(runtime, () => {
    describe('command line', () => {
      test('tenant, location, staff, token, list and migrate print one JSON object each', async () => {
        const { tenant, location, staff, token, list, migrate, env } = await exerciseCommandLine(command())
        expect(tenant).toMatchObject({
          code: 0,
          json: { slug: 'napa', name: 'Napa Cellars', timezone: 'America/Los_Angeles' },
        })
        expect(location).toMatchObject({
          code: 0,
          json: { name: 'Tasting Room', timezone: 'America/Los_Angeles' },
        })
        expect(staff).toMatchObject({
          code: 0,
          json: {
            email: 'ana@napa.test',
            subject: 'auth0|ana',
            role: 'manager',
            locationId: location.json.id,
          },
        })
        expect(staff.json.passcodeHash).toBeUndefined()
        expect(token.code).toBe(0)
        expect(token.json.token.split('.')).toHaveLength(3)
        expect(list.json.tenants.map((t: { slug: string }) => t.slug)).toEqual(['napa'])
        expect(migrate).toMatchObject({ code: 0, json: { control: [], tenants: { napa: [] } } })
        // The passcode is stored only as a hash.
        for (const file of readdirSync(env.DATA_DIR)) {
          expect(readFileSync(`${env.DATA_DIR}/${file}`).includes(CLI_PASSCODE)).toBe(false)
        }
      })

      test('failures exit non-zero with a message on stderr', async () => {
        const env = { DATA_DIR: freshDataDir() }
        const cases: [string[], RegExp][] = [
          [['tenant', 'create', '--slug', 'x'], /--name is required/],
          [['tenant', 'create', '--slug', 'Bad Slug', '--name', 'x'], /slug/],
          [['location', 'create', '--tenant', 'ghost', '--name', 'x'], /tenant "ghost" not found/],
          [['token', '--tenant', 'ghost', '--subject', 'x'], /not found/],
          [['frobnicate'], /unknown command/],
          [['tenant', 'create', '--bogus'], /bogus/],
        ]
        for (const [args, message] of cases) {
          const result = await runCli(command(), args, env)
          expect(result.code).not.toBe(0)
          expect(result.stderr).toMatch(message)
        }
        const badConfig = await runCli(command(), ['tenant', 'list'], { ...env, TENANT_POOL_SIZE: 'lots' })
        expect(badConfig.code).toBe(1)
        expect(badConfig.stderr.trim().split('\n')[0]).toBe(
          'configuration error: TENANT_POOL_SIZE: expected a whole number, got "lots"',
        )
      })

      test('a duplicate tenant or staff email is refused', async () => {
        const env = { DATA_DIR: freshDataDir() }
        expect((await runCli(command(), ['tenant', 'create', '--slug', 'a', '--name', 'A'], env)).code).toBe(
          0,
        )
        const again = await runCli(command(), ['tenant', 'create', '--slug', 'a', '--name', 'A'], env)
        expect(again.code).toBe(1)
        expect(again.stderr).toContain('already exists')
      })
    })

    describe('serve', () => {
      test('an empty data directory gets the embedded default, and a minted token works over HTTP', async () => {
        const env = { DATA_DIR: freshDataDir() }
        const server = await startServer(command(), env)
        try {
          const root = await (await fetch(`${server.url}/`)).json()
          expect(root).toMatchObject({ name: 'restaurant-ops', docsUrl: '/docs' })
          const { json } = await runCli(
            command(),
            ['token', '--tenant', 'default', '--subject', 'owner'],
            env,
          )
          const headers = { authorization: `Bearer ${json.token}`, 'content-type': 'application/json' }
          const created = await fetch(`${server.url}/vendor`, {
            method: 'POST',
            headers,
            body: '{"name":"Napa Glass"}',
          })
          expect(created.status).toBe(201)
          const listed = (await (await fetch(`${server.url}/vendor`, { headers })).json()) as any
          expect(listed.page.total).toBe(1)
          // The docs page and its script are served with no files beside the binary.
          expect((await fetch(`${server.url}/docs/scalar.js`)).status).toBe(200)
          expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200)
          // So are the operator console's page and its compiled assets.
          const page = await fetch(`${server.url}/console`)
          expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
          const script = (await page.text()).match(/\/console\/app\.js\?v=\w+/)?.[0]
          const assets = await Promise.all(
            [script, '/console/app.css'].map((path) => fetch(`${server.url}${path}`)),
          )
          expect(assets.map((r) => [r.status, r.headers.get('content-type')])).toEqual([
            [200, 'text/javascript; charset=utf-8'],
            [200, 'text/css; charset=utf-8'],
          ])
          expect((await assets[0]!.text()).length).toBeGreaterThan(10_000)
          // x-staff-user-id is never honoured over a real socket.
          const staffHeader = await fetch(`${server.url}/vendor`, {
            headers: { 'x-staff-user-id': json.staffUserId },
          })
          expect(staffHeader.status).toBe(401)
        } finally {
          await server.stop()
        }
      })
    })
  })
}
