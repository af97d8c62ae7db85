// The bare comparator of bench/event-stream.ts: Bun.serve holding server-sent event streams that
// only send a comment every 15 s, nothing else. What 1,000 open streams cost the runtime itself.
const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  idleTimeout: 0,
  fetch() {
    let timer: Timer
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('retry: 1000\n\n'))
        timer = setInterval(() => controller.enqueue(new TextEncoder().encode(': heartbeat\n\n')), 15_000)
      },
      cancel: () => clearInterval(timer),
    })
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
  },
})
console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.port}`, port: server.port }))

export {}
