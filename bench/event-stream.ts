// The live event stream (issue 41) against a running server: the resident memory 1,000 open
// streams add (beside a bare Bun.serve holding as many: bench/sse-bare.ts), then, with them
// open, how long an order's event takes to reach a client while orders are created at a steady
// rate. The time is from the order's `createdAt` (set in its transaction, before the commit) to
// the client reading its event: an upper bound of commit to client. Goals: <= 150 MB for 1,000
// streams; p99 <= 50 ms at 200 writes a second.
// Usage: bun bench/event-stream.ts [--streams 1000] [--rate 200] [--seconds 10] [--observers 10]
//   [--burst 1]  (orders sent together per tick: 1 spreads them evenly, 10 sends ten every 50 ms)
//   [--load-types order.create]  (the other streams' `types`: `vendor.create` leaves them every order to filter out)

import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { runCli, sourceCommand, startListening, startServer } from '../tests/e2e/cli'
import { loadAverage, rssMb } from './lib'

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '10' },
    burst: { type: 'string', default: '1' },
    observers: { type: 'string', default: '10' },
    /** What the streams other than the observers ask for: `order.create` (every order), or another type (none of them). */
    'load-types': { type: 'string', default: 'order.create' },
  },
})
const streams = Number(values.streams)
const rate = Number(values.rate)
const seconds = Number(values.seconds)
const observers = Number(values.observers)
const burst = Number(values.burst)

/** Opens `count` streams on raw sockets that read and drop what comes (a client keeping up). */
async function openStreams(
  port: number,
  path: string,
  headers: Record<string, string>,
  count: number,
  /** Given every whole line received (observers); the load streams only count bytes. */
  onLines?: (text: string) => void,
) {
  const request = `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`
  const sockets: Socket[] = []
  let bytes = 0
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from(
        { length: Math.min(50, count - i) },
        () =>
          new Promise<void>((resolve, reject) => {
            const socket = connect(port, '127.0.0.1', () => socket.write(request))
            socket.once('data', (chunk) => {
              if (!chunk.toString('latin1').startsWith('HTTP/1.1 200')) reject(new Error(chunk.toString()))
              else resolve()
            })
            let partial = ''
            socket.on('data', (chunk) => {
              bytes += chunk.length
              if (!onLines) return
              const text = partial + chunk.toString('utf8')
              const end = text.lastIndexOf('\n')
              partial = text.slice(end + 1)
              onLines(text.slice(0, end + 1))
            })
            socket.on('error', reject)
            sockets.push(socket)
          }),
      ),
    )
  }
  return {
    sockets,
    bytes: () => bytes,
    close: () => {
      for (const s of sockets) s.destroy()
    },
  }
}

/** The server's resident memory once it has settled (after a collection's worth of quiet). */
async function settledRss(pid: number) {
  await Bun.sleep(2000)
  return rssMb(pid)
}

// The bare runtime holding the same number of streams.
const bare = await startListening([process.execPath, join(import.meta.dir, 'sse-bare.ts')], {})
const bareIdle = await settledRss(bare.pid)
const bareStreams = await openStreams(bare.port, '/', {}, streams)
const bareOpen = await settledRss(bare.pid)
bareStreams.close()
await bare.stop()

const dataDir = mkdtempSync(join(tmpdir(), 'restaurant-ops-event-stream-'))
const env = {
  DATA_DIR: dataDir,
  LOG_LEVEL: 'error',
  BACKUP_INTERVAL: '0',
  DEFAULT_TENANT_SEED: 'empty',
  EVENT_STREAM_MAX_PER_CREDENTIAL: String(streams + observers),
  EVENT_STREAM_MAX_STREAMS: String(streams + observers),
}
const server = await startServer(sourceCommand, env)
try {
  const token = (await runCli(sourceCommand, ['token', '--tenant', 'default', '--subject', 'owner'], env))
    .json.token as string
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const locationId = ((await (await fetch(`${server.url}/locations`, { headers })).json()) as any)
    .locations[0].id
  // Warm: the order route and the stream route composed and compiled once.
  await fetch(`${server.url}/order`, { method: 'POST', headers, body: JSON.stringify({ locationId }) })
  await (await fetch(`${server.url}/events/stream?follow=false`, { headers })).text()
  const idle = await settledRss(server.pid)

  const load = await openStreams(
    server.port,
    `/events/stream?types=${values['load-types']}`,
    { authorization: headers.authorization },
    streams - observers,
  )
  const latencies: number[] = []
  // The observers read raw sockets too: each message is one HTTP chunk, so its `data:` line is
  // whole in the bytes received (chunk sizes sit between messages).
  const observed = await openStreams(
    server.port,
    '/events/stream?types=order.create',
    { authorization: headers.authorization },
    observers,
    (text) => {
      const received = Date.now()
      for (const match of text.matchAll(/^data: (.*)$/gm))
        latencies.push(received - Date.parse(JSON.parse(match[1]!).payload.createdAt))
    },
  )
  const open = await settledRss(server.pid)

  // A steady rate: `burst` orders every burst/rate seconds.
  const tickMs = (1000 * burst) / rate
  let sent = 0
  let failed = 0
  const cpuLoad = loadAverage()
  const ticks = Math.round((seconds * rate) / burst)
  const started = performance.now()
  for (let tick = 0; tick < ticks; tick++) {
    for (let i = 0; i < burst; i++)
      void fetch(`${server.url}/order`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ locationId }),
      }).then(
        (r) => (r.status === 201 ? sent++ : failed++),
        () => failed++,
      )
    const next = started + (tick + 1) * tickMs
    await Bun.sleep(Math.max(0, next - performance.now()))
  }
  const expected = ticks * burst * observers
  const deadline = Date.now() + 10_000
  while (latencies.length < expected && Date.now() < deadline) await Bun.sleep(50)
  const duringRss = rssMb(server.pid)
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * q) - 1)]
  console.log(`| | bare Bun.serve | service |`)
  console.log(`|---|---:|---:|`)
  console.log(`| RSS idle (MB) | ${bareIdle} | ${idle} |`)
  console.log(`| RSS with ${streams} streams open (MB) | ${bareOpen} | ${open} |`)
  console.log(`| added by ${streams} streams (MB) | ${bareOpen - bareIdle} | ${open - idle} |`)
  console.log(
    `\n${sent} orders created in ${seconds} s (${failed} failed; ${burst} every ${tickMs} ms), each event read by ${observers} observers while ${streams - observers} other streams asked for ${values['load-types']}: ${latencies.length} of ${expected} arrivals timed.`,
  )
  console.log(
    `write to client (ms): p50 ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}, max ${latencies.at(-1)}; RSS during the writes ${duringRss} MB; bytes read by the load streams ${Math.round(load.bytes() / 1e6)} MB; load average at start ${cpuLoad}`,
  )
  load.close()
  observed.close()
} finally {
  await server.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
process.exit(0)
