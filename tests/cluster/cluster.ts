// What the cluster scenarios run on, all on loopback: one etcd member, s3rver standing in for S3,
// an identity provider's JWKS every node trusts, and nodes of this service, each reaching etcd
// through a TCP proxy the test can cut.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Socket, TCPSocketListener } from 'bun'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { type RunningServer, sourceCommand, startListening, startServer } from '../e2e/cli'
import { machineTempDir } from '../temp-dirs'

export const ISSUER = 'https://idp.cluster.test'
export const AUDIENCE = 'restaurant-ops'
export const LEASE_TTL_SECONDS = 3
const BUCKET = 'tenant-replicas'

const cleanups: (() => unknown)[] = []

export async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}

const freePort = (): number => {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = server.port!
  server.stop(true)
  return port
}

export const tempDir = (name: string) => {
  // CLUSTER_KEEP=1 keeps the data directories, etcd's and the replicas for a look afterwards: in
  // the machine's temporary folder, as the run's own is removed after the run (tests/preload.ts).
  const keep = Boolean(process.env.CLUSTER_KEEP)
  const dir = mkdtempSync(join(keep ? machineTempDir : tmpdir(), `restaurant-ops-cluster-${name}-`))
  if (!keep) cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** One etcd member on loopback ports; resolves with its client URL once it answers. */
export async function startEtcd(): Promise<string> {
  const [client, peer] = [freePort(), freePort()]
  const url = `http://127.0.0.1:${client}`
  const proc = Bun.spawn(
    [
      'etcd',
      '--data-dir',
      join(tempDir('etcd'), 'data'),
      '--listen-client-urls',
      url,
      '--advertise-client-urls',
      url,
      '--listen-peer-urls',
      `http://127.0.0.1:${peer}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${peer}`,
      '--initial-cluster',
      `default=http://127.0.0.1:${peer}`,
      '--log-level',
      'error',
    ],
    { stdout: 'ignore', stderr: 'ignore' },
  )
  cleanups.push(() => {
    proc.kill('SIGKILL')
    return proc.exited
  })
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`${url}/health`)
      .then((r) => r.ok)
      .catch(() => false)
    if (ok) return url
    await Bun.sleep(100)
  }
  throw new Error('etcd did not start')
}

/** s3rver standing in for S3, in a process of its own (s3-server.ts); resolves with its endpoint. */
export async function startS3(): Promise<string> {
  const server = await startListening(
    [process.execPath, join(import.meta.dir, 's3-server.ts'), tempDir('s3'), BUCKET],
    {},
  )
  cleanups.push(() => server.stop())
  return server.url
}

/** A TCP proxy to etcd: `cut` closes every connection and refuses new ones until `restore`. */
export interface EtcdLink {
  url: string
  cut(): void
  restore(): void
}

export function etcdLink(etcdUrl: string): EtcdLink {
  const target = new URL(etcdUrl)
  let open = true
  const pairs = new Set<[Socket<unknown>, Socket<unknown> | null]>()
  const listener: TCPSocketListener<{
    pair: [Socket<unknown>, Socket<unknown> | null]
    queued: Uint8Array[]
  }> = Bun.listen({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      async open(client) {
        if (!open) return void client.end()
        const pair: [Socket<unknown>, Socket<unknown> | null] = [client, null]
        client.data = { pair, queued: [] }
        pairs.add(pair)
        pair[1] = await Bun.connect({
          hostname: target.hostname,
          port: Number(target.port),
          socket: {
            data: (_upstream, chunk) => void client.write(chunk),
            close: () => void client.end(),
            error: () => void client.end(),
          },
        }).catch(() => null)
        if (!pair[1]) return void client.end()
        for (const chunk of client.data.queued) pair[1].write(chunk)
      },
      data(client, chunk) {
        const upstream = client.data.pair[1]
        if (upstream) upstream.write(chunk)
        else client.data.queued.push(new Uint8Array(chunk))
      },
      close(client) {
        client.data?.pair[1]?.end()
        if (client.data) pairs.delete(client.data.pair)
      },
    },
  })
  cleanups.push(() => listener.stop(true))
  return {
    url: `http://127.0.0.1:${listener.port}`,
    cut() {
      open = false
      for (const [client, upstream] of pairs) {
        client.end()
        upstream?.end()
      }
      pairs.clear()
    },
    restore() {
      open = true
    },
  }
}

/** The identity provider: its JWKS on a loopback port, and tokens signed with its key. */
export async function startIdentityProvider() {
  const { publicKey, privateKey } = await generateKeyPair('ES256')
  const jwk = { ...(await exportJWK(publicKey)), kid: 'cluster-test', alg: 'ES256', use: 'sig' }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () => Response.json({ keys: [jwk] }),
  })
  cleanups.push(() => server.stop(true))
  const sign = (claims: Record<string, unknown>, subject: string) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'cluster-test' })
      .setSubject(subject)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('2h')
      .sign(privateKey)
  return {
    jwksUrl: `http://127.0.0.1:${server.port}/`,
    staffToken: (subject: string) => sign({}, subject),
    operatorToken: () => sign({ operator: true }, 'ops@cluster.test'),
  }
}

export interface Node {
  id: string
  url: string
  server: RunningServer
  link: EtcdLink
  dataDir: string
}

export interface ClusterEnv {
  etcdUrl: string
  s3Url: string
  jwksUrl: string
}

/** The environment every node and the command line share (each node adds NODE_ID, DATA_DIR...). */
export const sharedEnv = (env: ClusterEnv): Record<string, string> => ({
  CLUSTER_ETCD_URL: env.etcdUrl,
  CLUSTER_LEASE_TTL: String(LEASE_TTL_SECONDS),
  LITESTREAM_REPLICA_URL: `s3://${BUCKET}/tenants`,
  LITESTREAM_S3_ENDPOINT: env.s3Url,
  LITESTREAM_S3_REGION: 'us-east-1',
  LITESTREAM_S3_FORCE_PATH_STYLE: 'true',
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AUTH_JWKS_URL: env.jwksUrl,
  AUTH_ISSUER: ISSUER,
  AUTH_AUDIENCE: AUDIENCE,
  AUTH_OPERATOR_CLAIM: 'operator',
  BACKUP_INTERVAL: '0',
  // Several Litestream processes per node (about ten tenants each), as on a larger node.
  LITESTREAM_SHARD_SIZE: '4',
  LOG_LEVEL: process.env.CLUSTER_LOG_LEVEL ?? 'error',
})

export async function startNode(
  env: ClusterEnv,
  id: string,
  extra: Record<string, string> = {},
): Promise<Node> {
  const link = etcdLink(env.etcdUrl)
  const dataDir = tempDir(id)
  const server = await startServer(sourceCommand, {
    ...sharedEnv(env),
    CLUSTER_ETCD_URL: link.url,
    NODE_ID: id,
    DATA_DIR: dataDir,
    ...extra,
  })
  const node = { id, url: server.url, server, link, dataDir }
  cleanups.push(() => killNode(node))
  return node
}

/** As a machine dies: the node and its Litestream at once, with no chance to sync or leave. */
export async function killNode(node: Node): Promise<void> {
  const children = Bun.spawnSync(['pgrep', '-P', String(node.server.pid)])
    .stdout.toString()
    .trim()
    .split('\n')
  for (const pid of [node.server.pid, ...children.filter(Boolean).map(Number)]) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  }
  await Bun.sleep(50)
}
