// s3rver standing in for S3 in the cluster suite, in a process of its own so that serving the
// nodes' Litestream does not compete with the test's own load: `bun s3-server.ts DIR BUCKET`
// prints {"listening", "port"} once it accepts requests, and stops on SIGTERM.
import S3rver from 's3rver'

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

async function main(directory: string, bucket: string): Promise<void> {
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
    // The requests reach it through the proxy below, signed for the proxy's address.
    allowMismatchedSignatures: true,
  })
  const { port } = (await server.run()) as unknown as { port: number }
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
  console.log(JSON.stringify({ listening: `http://127.0.0.1:${proxy.port}`, port: proxy.port }))
  process.on('SIGTERM', () => {
    proxy.stop(true)
    void server.close().then(() => process.exit(0))
  })
}

await main(process.argv[2]!, process.argv[3]!)
