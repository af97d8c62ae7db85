// Passes a request on to another server that answers it (a cluster node's owner of the tenant, or
// the HTTP worker that holds it), and its answer back: the body streamed both ways, nothing
// buffered, hop-by-hop headers dropped.

/** Hop-by-hop headers and those fetch sets itself. */
const notPassed = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'host',
  'te',
  'trailer',
])

/** `url`: the server's origin over TCP; `unix`: its Unix socket. */
export interface PassTarget {
  url?: string
  unix?: string
}

/** Throws when the other server cannot be reached; `extra` headers are set on the passed request. */
export async function passRequest(
  request: Request,
  target: PassTarget,
  extra: Record<string, string>,
): Promise<Response> {
  const source = new URL(request.url)
  const headers = new Headers()
  for (const [name, value] of request.headers) if (!notPassed.has(name)) headers.set(name, value)
  for (const [name, value] of Object.entries(extra)) headers.set(name, value)
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body !== null
  const response = await fetch(`${target.url ?? 'http://localhost'}${source.pathname}${source.search}`, {
    method: request.method,
    headers,
    body: hasBody ? request.body : undefined,
    redirect: 'manual',
    duplex: 'half',
    decompress: false,
    ...(target.unix ? { unix: target.unix } : {}),
  })
  const out = new Headers(response.headers)
  out.delete('connection')
  out.delete('keep-alive')
  return new Response(response.body, { status: response.status, headers: out })
}
