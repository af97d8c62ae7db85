// Operations end to end: graceful shutdown under load loses no acknowledged write; serve
// replicates with Litestream and reports it; the backup command and restore command round trip.
import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { resolveLitestreamBinary } from '../../src/platform/backup/litestream'
import { freshDataDir, runCli, runtimes, startServer } from './cli'

async function ownerToken(command: () => string[], env: Record<string, string>) {
  return (await runCli(command(), ['token', '--tenant', 'default', '--subject', 'owner'], env)).json
    .token as string
}

const defaultTenantFile = (dataDir: string) => {
  const control = new Database(join(dataDir, 'control.sqlite'), { readonly: true })
  const { id } = control.query("SELECT id FROM tenants WHERE slug = 'default'").get() as { id: string }
  control.close()
  return join(dataDir, `${id}.sqlite`)
}

for (const [runtime, command] of runtimes) {
  describe(runtime, () => {
    describe('graceful shutdown', () => {
      test('SIGTERM mid-load: every acknowledged write is in the database afterwards', async () => {
        const env = { DATA_DIR: freshDataDir() }
        const server = await startServer(command(), env)
        const headers = {
          authorization: `Bearer ${await ownerToken(command, env)}`,
          'content-type': 'application/json',
        }
        const acknowledged: string[] = []
        let stopped = false
        const writer = async (n: number) => {
          for (let i = 0; !stopped; i++) {
            try {
              const res = await fetch(`${server.url}/vendor`, {
                method: 'POST',
                headers,
                body: JSON.stringify({ name: `w${n}-${i}` }),
              })
              if (res.status === 201) acknowledged.push(((await res.json()) as { id: string }).id)
            } catch {
              // Refused connections after the listener closes are expected: those writes were never acknowledged.
            }
          }
        }
        const writers = Array.from({ length: 8 }, (_, n) => writer(n))
        while (acknowledged.length < 50) await Bun.sleep(10)
        await server.stop() // SIGTERM, then wait for exit
        stopped = true
        await Promise.all(writers)

        const db = new Database(defaultTenantFile(env.DATA_DIR), { readonly: true })
        const stored = new Set(
          (db.query('SELECT id FROM vendors').all() as { id: string }[]).map((r) => r.id),
        )
        const audited = new Set(
          (
            db.query("SELECT entity_id FROM audit_entries WHERE action = 'vendor.create'").all() as {
              entity_id: string
            }[]
          ).map((r) => r.entity_id),
        )
        db.close()
        expect(acknowledged.length).toBeGreaterThanOrEqual(50)
        expect(acknowledged.filter((id) => !stored.has(id))).toEqual([])
        expect(acknowledged.filter((id) => !audited.has(id))).toEqual([])
        expect(existsSync(join(env.DATA_DIR, 'serve.pid'))).toBe(false)
      }, 60_000)
    })

    const litestream = resolveLitestreamBinary(process.env.LITESTREAM_BIN)

    describe.if(litestream !== null)('serve with Litestream', () => {
      test('replicates every database, reports it on /health/ready, and restore brings a lost tenant back', async () => {
        const dataDir = freshDataDir()
        const env = { DATA_DIR: dataDir, LITESTREAM_REPLICA_URL: `file://${dataDir}-replica` }
        const server = await startServer(command(), env)
        try {
          const headers = {
            authorization: `Bearer ${await ownerToken(command, env)}`,
            'content-type': 'application/json',
          }
          for (const name of ['Alder', 'Birch']) {
            expect(
              (
                await fetch(`${server.url}/vendor`, {
                  method: 'POST',
                  headers,
                  body: JSON.stringify({ name }),
                })
              ).status,
            ).toBe(201)
          }
          const ready = (await (await fetch(`${server.url}/health/ready`)).json()) as any
          expect(ready.checks.replication).toBe('running')
          await Bun.sleep(2500)
        } finally {
          await server.stop()
        }
        expect(readdirSync(`${dataDir}-replica`).sort()).toContain('control')

        const file = defaultTenantFile(dataDir)
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true })
        const restored = await runCli(command(), ['restore', '--tenant', 'default'], env)
        expect(restored.code).toBe(0)
        expect(restored.json).toMatchObject({ from: 'replica', integrity: 'ok', tables: { vendors: 2 } })
      }, 60_000)
    })

    test('backup then restore --to through the command line', async () => {
      const env = { DATA_DIR: freshDataDir() }
      await runCli(command(), ['tenant', 'create', '--slug', 'napa', '--name', 'Napa'], env)
      const backup = await runCli(command(), ['backup'], env)
      expect(backup).toMatchObject({ code: 0, json: { databases: 2, pruned: [] } })
      const out = join(env.DATA_DIR, 'copy.sqlite')
      const restore = await runCli(
        command(),
        ['restore', '--tenant', 'napa', '--from', 'snapshot', '--to', out],
        env,
      )
      expect(restore).toMatchObject({ code: 0, json: { tenant: 'napa', integrity: 'ok', restoredTo: out } })
      const missing = await runCli(
        command(),
        ['restore', '--tenant', 'napa', '--from', 'replica', '--to', out],
        env,
      )
      expect(missing.code).toBe(1)
      expect(missing.stderr).toContain('LITESTREAM_REPLICA_URL')
    })
  })
}
