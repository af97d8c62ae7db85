// The bare baseline: Bun.serve answering a constant JSON body, nothing else.
const body = JSON.stringify({ ok: true })
const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  fetch: () => new Response(body, { headers: { 'content-type': 'application/json' } }),
})
console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.port}`, port: server.port }))
