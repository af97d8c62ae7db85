// Refusals before routing, over a real socket against `serve`: every one the app can reach is a
// problem document. The rest are answered by Bun's parser (uWebSockets) with fixed bytes before any
// code runs (Bun 1.4.5, packages/bun-uws/src/HttpErrors.h); they are pinned here so that a Bun
// upgrade that changes them is noticed.
import { beforeAll, describe, expect, test } from 'bun:test'
import { type RunningServer, runtimes, sharedDataDir } from './cli'
import { RawConnection, type RawResponse } from './raw-http'

const request = (line: string, headers: string[] = [], body = '') =>
  `${line}\r\n${['host: localhost', ...headers].map((h) => `${h}\r\n`).join('')}\r\n${body}`
const pad = (bytes: number) => 'a'.repeat(bytes)
const chunked = (body: string) => `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`

// MAX_BODY_BYTES and MEDIA_MAX_BYTES are small here: Bun's former body ceiling was their maximum + 1 KiB.
const env = { MAX_BODY_BYTES: '2048', MEDIA_MAX_BYTES: '4096' }

const problems: [name: string, bytes: string, status: number, code: string][] = [
  ['a method the API does not implement', request('PROPFIND /vendor HTTP/1.1'), 501, 'not_implemented'],
  ['a 10 KiB request target', request(`GET /vendor?q=${pad(10 * 1024)} HTTP/1.1`), 414, 'uri_too_long'],
  [
    'a 40 KiB request target (Bun alone: bare 431)',
    request(`GET /vendor?q=${pad(40 * 1024)} HTTP/1.1`),
    414,
    'uri_too_long',
  ],
  [
    'a 20 KiB header (Bun alone: bare 431)',
    request('GET /vendor HTTP/1.1', [`x-padding: ${pad(20 * 1024)}`]),
    431,
    'headers_too_large',
  ],
  [
    'a 60 KiB header section',
    request('GET /vendor HTTP/1.1', [`x-padding: ${pad(60 * 1024)}`]),
    431,
    'headers_too_large',
  ],
  [
    'a declared body above the former Bun ceiling (Bun alone: bare 413)',
    request('POST /vendor HTTP/1.1', ['content-type: application/json', 'content-length: 9000']),
    413,
    'payload_too_large',
  ],
  [
    'a chunked body above the limit (Bun alone above its ceiling: bare 413)',
    request(
      'POST /vendor HTTP/1.1',
      ['content-type: application/json', 'transfer-encoding: chunked'],
      chunked(pad(9000)),
    ),
    413,
    'payload_too_large',
  ],
]

/** Bun's parser answers these itself: a status line and `Connection: close`, no body; or nothing. */
const answeredByBun: [name: string, bytes: string, status: number | null][] = [
  [
    'a header section above the 64 KiB parser ceiling',
    request('GET /vendor HTTP/1.1', [`x-padding: ${pad(70 * 1024)}`]),
    431,
  ],
  [
    'more than about 200 header fields (a fixed array in the parser)',
    request(
      'GET /vendor HTTP/1.1',
      Array.from({ length: 250 }, (_, i) => `x-h${i}: a`),
    ),
    431,
  ],
  ['a malformed request line', 'GARBAGE\r\n\r\n', 400],
  ['a header line without a colon', request('GET /vendor HTTP/1.1', ['no-colon-here']), 400],
  ['HTTP/1.1 without Host', 'GET /vendor HTTP/1.1\r\n\r\n', 400],
  [
    'Content-Length with Transfer-Encoding',
    request('POST /vendor HTTP/1.1', ['content-length: 3', 'transfer-encoding: chunked'], chunked('')),
    400,
  ],
  ['an unknown HTTP version', request('GET /vendor HTTP/9.9'), 505],
  [
    'a method token Bun does not know: the connection is closed unanswered',
    request('BREW /vendor HTTP/1.1'),
    null,
  ],
]

async function exchange(server: RunningServer, bytes: string): Promise<RawResponse | null> {
  const connection = await RawConnection.open(server.port)
  try {
    await connection.send(bytes)
    return await connection.response()
  } finally {
    connection.close()
  }
}

for (const [runtime, command] of runtimes) {
  describe(`${runtime}: refusals before routing`, () => {
    const shared = sharedDataDir(env, command)
    let server: RunningServer
    beforeAll(async () => {
      server = await shared.startServer()
    })

    for (const [name, bytes, status, code] of problems) {
      test(`${name}: ${status} ${code} problem document`, async () => {
        const res = await exchange(server, bytes)
        expect(res?.status).toBe(status)
        expect(res?.headers['content-type']).toBe('application/problem+json')
        const body = JSON.parse(res?.body ?? '{}')
        expect(body).toMatchObject({ status, code, requestId: res?.headers['x-request-id'] })
        expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type'])
      })
    }

    for (const [name, bytes, status] of answeredByBun) {
      test(`${name}: ${status ?? 'no answer'} from Bun's parser`, async () => {
        const res = await exchange(server, bytes)
        if (status === null) return expect(res).toBeNull()
        expect(res).toEqual({ status, headers: { connection: 'close' }, body: '' })
      })
    }

    test('ordinary requests are still served', async () => {
      expect((await exchange(server, request('GET /health/live HTTP/1.1')))?.status).toBe(200)
    })
  })
}
