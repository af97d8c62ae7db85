// What the cluster scenarios run on, all on loopback: one etcd member, s3rver standing in for S3,
// an identity provider's JWKS every node trusts, and nodes of this service, each reaching etcd
// through a TCP proxy the test can cut.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Socket, TCPSocketListener } from 'bun'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import S3rver from 's3rver'
import { type RunningServer, sourceCommand, startServer } from '../e2e/cli'

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
  const dir = mkdtempSync(join(tmpdir(), `restaurant-ops-cluster-${name}-`))
  // CLUSTER_KEEP=1 keeps the data directories, etcd's and the replicas for a look afterwards.
  if (!process.env.CLUSTER_KEEP) cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
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

const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * s3rver 3.7 lists keys in the file system's order, not S3's lexicographic one (Litestream then
 * finds its WAL segments "out of order"), and never reports a common prefix whose objects all
 * lie in deeper folders (Litestream lists `generations/` with a delimiter and finds no backup).
 * Listings are answered here, sorted, from s3rver's full listing beneath the prefix.
 */
async function listing(s3: string, url: URL): Promise<Response> {
  const prefix = url.searchParams.get('prefix') ?? ''
  const delimiter = url.searchParams.get('delimiter')
  const full = await (
    await fetch(`${s3}${url.pathname}?prefix=${encodeURIComponent(prefix)}&max-keys=1000000`)
  ).text()
  const contents: [string, string][] = []
  const prefixes = new Set<string>()
  for (const match of full.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
    const key = /<Key>([\s\S]*?)<\/Key>/.exec(match[1]!)![1]!.replace(/&amp;/g, '&')
    const rest = key.slice(prefix.length)
    const cut = delimiter ? rest.indexOf(delimiter) : -1
    if (cut === -1) contents.push([key, match[0]])
    else prefixes.add(prefix + rest.slice(0, cut + delimiter!.length))
  }
  contents.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const bucket = url.pathname.split('/')[1]
  const v2 = url.searchParams.get('list-type') === '2'
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
    `<Name>${bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix>` +
    (v2 ? `<KeyCount>${contents.length + prefixes.size}</KeyCount>` : '<Marker></Marker>') +
    '<MaxKeys>1000000</MaxKeys>' +
    (delimiter ? `<Delimiter>${xmlEscape(delimiter)}</Delimiter>` : '') +
    '<IsTruncated>false</IsTruncated>' +
    contents.map(([, xml]) => xml).join('') +
    [...prefixes]
      .sort()
      .map((p) => `<CommonPrefixes><Prefix>${xmlEscape(p)}</Prefix></CommonPrefixes>`)
      .join('') +
    '</ListBucketResult>'
  return new Response(body, { headers: { 'content-type': 'application/xml' } })
}

/** s3rver standing in for S3 (behind the listing fix above); resolves with its endpoint. */
export async function startS3(): Promise<string> {
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: tempDir('s3'),
    configureBuckets: [{ name: BUCKET, configs: [] }],
    // The requests reach it through the proxy below, signed for the proxy's address.
    allowMismatchedSignatures: true,
  })
  const { port } = (await server.run()) as unknown as { port: number }
  cleanups.push(() => server.close())
  const s3 = `http://127.0.0.1:${port}`
  const proxy = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      const isListing = /^\/[^/]+\/?$/.test(url.pathname) && !url.searchParams.has('location')
      if (request.method === 'GET' && isListing) return listing(s3, url)
      const headers = new Headers(request.headers)
      headers.delete('host')
      const response = await fetch(`${s3}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer(),
        decompress: false,
      })
      // Buffered: Litestream reads Content-Length, which a streamed body would lose.
      return new Response(request.method === 'HEAD' ? null : await response.arrayBuffer(), {
        status: response.status,
        headers: response.headers,
      })
    },
  })
  cleanups.push(() => proxy.stop(true))
  return `http://127.0.0.1:${proxy.port}`
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
