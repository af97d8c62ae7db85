// Operations end to end: graceful shutdown under keep-alive load answers every request it was
// sent and loses no acknowledged write, within a deadline; serve replicates with Litestream and
// reports it; the backup command and restore command round trip.
import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { resolveLitestreamBinary } from '../../src/platform/backup/litestream'
import { freshDataDir, type RunningServer, runCli, runtimes, startServer } from './cli'
import { RawConnection, type RawResponse, requestBytes } from './raw-http'

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

/** One POST of the load: when its last byte was sent, and the answer, if one came. */
interface Post {
  name: string
  sentAt: number
  response: RawResponse | null
}

/**
 * One keep-alive connection creating vendors back to back, one request at a time, until a response
 * says `Connection: close` or the connection ends.
 */
async function postUntilClosed(port: number, token: string, prefix: string, onCreated: () => void) {
  const connection = await RawConnection.open(port)
  const posts: Post[] = []
  for (let i = 0; ; i++) {
    const name = `${prefix}-${i}`
    const request = requestBytes('POST', '/vendor', { authorization: `Bearer ${token}` }, { name })
    const sentAt = await connection.send(request).catch(() => null)
    if (sentAt === null) return posts
    const post: Post = { name, sentAt, response: await connection.response() }
    posts.push(post)
    if (post.response?.status === 201) onCreated()
    if (!post.response || post.response.headers.connection === 'close') {
      connection.close()
      return posts
    }
  }
}

/** The fields of the server's log line with this message. */
function loggedAll(server: RunningServer, msg: string): Record<string, unknown>[] {
  return server
    .stderr()
    .split('\n')
    .filter((l) => l.includes(`"msg":${JSON.stringify(msg)}`))
    .map((line) => JSON.parse(line))
}

function logged(server: RunningServer, msg: string): Record<string, unknown> {
  return loggedAll(server, msg)[0] ?? {}
}

/** Vendor names in the default tenant's database, and the ids with a `vendor.create` audit entry. */
function storedVendors(dataDir: string) {
  const db = new Database(defaultTenantFile(dataDir), { readonly: true })
  const created = new Set(
    (db.query('SELECT name FROM vendors').all() as { name: string }[]).map((r) => r.name),
  )
  const audited = new Set(
    (
      db.query("SELECT entity_id FROM audit_entries WHERE action = 'vendor.create'").all() as {
        entity_id: string
      }[]
    ).map((r) => r.entity_id),
  )
  db.close()
  return { created, audited }
}

for (const [runtime, command] of runtimes) {
  describe(runtime, () => {
    describe('graceful shutdown', () => {
      test('SIGTERM under keep-alive load, three times: every request sent before the signal is answered, every connection is told to close, every acknowledged write is stored', async () => {
        for (let round = 0; round < 3; round++) {
          // info: the server's own account of the stop is checked below.
          const env = { DATA_DIR: freshDataDir(), LOG_LEVEL: 'info' }
          const server = await startServer(command(), env)
          const token = await ownerToken(command, env)
          let acknowledged = 0
          const streams = Array.from({ length: 20 }, (_, n) =>
            postUntilClosed(server.port, token, `r${round}-s${n}`, () => acknowledged++),
          )
          while (acknowledged < 100) await Bun.sleep(5)
          const signalledAt = performance.now()
          const exitCode = await server.stop()
          const connections = await Promise.all(streams)
          const posts = connections.flat()

          // Sent before the signal: every byte was in the server's receive buffer when it was sent.
          const sentBefore = posts.filter((post) => post.sentAt < signalledAt)
          const label = (post: Post | undefined) => `${post?.name}: ${post?.response?.status ?? 'no answer'}`
          const created = posts.filter((post) => post.response?.status === 201)
          const refused = posts.filter((post) => post.response?.status === 503)
          const stored = storedVendors(env.DATA_DIR)
          expect(sentBefore.length).toBeGreaterThanOrEqual(100)
          expect({
            round,
            exitCode,
            unansweredSentBeforeSignal: sentBefore.filter((post) => !post.response).map((p) => p.name),
            unansweredSentAfterSignal: posts
              .filter((post) => post.sentAt >= signalledAt && !post.response)
              .map((p) => p.name),
            lastResponseWithoutClose: connections
              .map((connection) => connection.at(-1))
              .filter((last) => last?.response?.headers.connection !== 'close')
              .map(label),
            otherStatuses: posts
              .filter((post) => post.response && ![201, 503].includes(post.response.status))
              .map(label),
            createdNotStored: created.filter((post) => !stored.created.has(post.name)).map((p) => p.name),
            createdNotAudited: created
              .map((post) => JSON.parse(post.response!.body).id)
              .filter((id) => !stored.audited.has(id)),
            refusedButStored: refused.filter((post) => stored.created.has(post.name)).map((p) => p.name),
            serveLockLeft: existsSync(join(env.DATA_DIR, 'serve.pid')),
            // Read after the signal, refused: exactly the 503s the clients saw (each worker says its own).
            refusedByServer: loggedAll(server, 'requests finished').reduce(
              (sum, line) => sum + (line.refusedAfterSignal as number),
              0,
            ),
          }).toEqual({
            round,
            exitCode: 0,
            unansweredSentBeforeSignal: [],
            unansweredSentAfterSignal: [],
            lastResponseWithoutClose: [],
            otherStatuses: [],
            createdNotStored: [],
            createdNotAudited: [],
            refusedButStored: [],
            serveLockLeft: false,
            refusedByServer: refused.length,
          })
          for (const post of refused) {
            expect(post.response!.headers).toMatchObject({
              'content-type': 'application/problem+json',
              connection: 'close',
              'retry-after': '1',
            })
            expect(JSON.parse(post.response!.body)).toMatchObject({ status: 503, code: 'unavailable' })
          }
        }
      }, 120_000)

      test('a request still running at SHUTDOWN_TIMEOUT_MS is cut: the process says so and exits 1', async () => {
        const env = { DATA_DIR: freshDataDir(), SHUTDOWN_TIMEOUT_MS: '1000' }
        const server = await startServer(command(), env)
        const headers = {
          authorization: `Bearer ${await ownerToken(command, env)}`,
          'content-type': 'application/json',
          'content-length': '100',
        }
        const stalled = await RawConnection.open(server.port)
        // The head and part of the body: read by the server, which waits for the rest forever.
        await stalled.send(`${requestBytes('POST', '/vendor', headers)}{"name":`)
        await Bun.sleep(300)
        const signalledAt = performance.now()
        const exitCode = await server.stop()
        expect(exitCode).toBe(1)
        expect(performance.now() - signalledAt).toBeGreaterThanOrEqual(1000)
        expect(await stalled.response()).toBeNull()
        expect(logged(server, 'shutdown took longer than SHUTDOWN_TIMEOUT_MS: exiting anyway')).toMatchObject(
          {
            level: 'error',
            timeoutMs: 1000,
            cutRequests: 1,
          },
        )
      }, 60_000)
    })

    const litestream = resolveLitestreamBinary(process.env.LITESTREAM_BIN)

    describe.if(litestream !== null)('serve with Litestream', () => {
      test('replicates every database, reports it on /health/ready, and restore brings a lost tenant back', async () => {
        const dataDir = freshDataDir()
        const replicaDir = freshDataDir()
        const env = { DATA_DIR: dataDir, LITESTREAM_REPLICA_URL: `file://${replicaDir}` }
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
        expect(readdirSync(replicaDir).sort()).toContain('control')

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
