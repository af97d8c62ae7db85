// HTTP/1.1 over a plain TCP socket, for tests that must see what fetch hides: when a request's
// bytes left the client, whether the server answered or reset the connection, and the exact
// status line and headers of answers the server gives before any route runs.
import { connect, type Socket } from 'node:net'

export interface RawResponse {
  status: number
  /** Header names lower-cased. */
  headers: Record<string, string>
  body: string
}

/** Why a connection ended: the server closed it (`eof`) or reset it (`reset`), or we did. */
export type ConnectionEnd = 'eof' | 'reset' | 'client'

/** One keep-alive connection: requests go out one at a time, responses are parsed as they come. */
export class RawConnection {
  private buffered = Buffer.alloc(0)
  private ended: ConnectionEnd | null = null
  private wake: (() => void) | null = null

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.buffered = Buffer.concat([this.buffered, chunk])
      this.notify()
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.ended ??= error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 'reset' : 'eof'
    })
    socket.on('close', () => {
      this.ended ??= 'eof'
      this.notify()
    })
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)))
      socket.once('error', reject)
    })
  }

  /** How the connection ended, or null while it is open. */
  get end(): ConnectionEnd | null {
    return this.ended
  }

  /**
   * Resolves with the moment (performance.now()) every byte was handed to the kernel: on loopback,
   * in the server's receive buffer.
   */
  send(bytes: string | Buffer): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.ended) return reject(new Error(`connection already ended (${this.ended})`))
      this.socket.write(bytes, (error) => (error ? reject(error) : resolve(performance.now())))
    })
  }

  /** The next complete response; null when the connection ends before one arrives. */
  async response(): Promise<RawResponse | null> {
    for (;;) {
      const parsed = this.parse()
      if (parsed) return parsed
      if (this.ended) return null
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
    }
  }

  /**
   * What arrived so far, raw (a streamed response's chunk framing included), once it contains
   * `needle`; null when the connection ends first.
   */
  async received(needle: string): Promise<string | null> {
    for (;;) {
      const text = this.buffered.toString('utf8')
      if (text.includes(needle)) return text
      if (this.ended) return null
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
    }
  }

  close(): void {
    this.ended ??= 'client'
    this.socket.destroy()
  }

  private notify(): void {
    const wake = this.wake
    this.wake = null
    wake?.()
  }

  /** Takes one response off the buffer when it is complete (Content-Length, or close-delimited). */
  private parse(): RawResponse | null {
    const headEnd = this.buffered.indexOf('\r\n\r\n')
    if (headEnd < 0) return null
    const [statusLine, ...lines] = this.buffered.subarray(0, headEnd).toString('latin1').split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    if (headers['transfer-encoding']) throw new Error('chunked responses are not supported here')
    const bodyStart = headEnd + 4
    const length = headers['content-length']
    let bodyEnd: number
    if (length !== undefined) bodyEnd = bodyStart + Number(length)
    else if (this.ended) bodyEnd = this.buffered.length
    else return null
    if (this.buffered.length < bodyEnd) return null
    const body = this.buffered.subarray(bodyStart, bodyEnd).toString('utf8')
    this.buffered = this.buffered.subarray(bodyEnd)
    return { status: Number(statusLine?.split(' ')[1]), headers, body }
  }
}

/** The bytes of one HTTP/1.1 request with a JSON body (or none); `headers` override the defaults. */
export function requestBytes(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): string {
  const payload = body === undefined ? '' : JSON.stringify(body)
  const head = Object.entries({
    host: 'localhost',
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    'content-length': String(Buffer.byteLength(payload)),
    ...headers,
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  return `${method} ${path} HTTP/1.1\r\n${head}\r\n${payload}`
}

/** Keep-alive connections, one served by each worker (the kernel spreads connections between them). */
export async function connectionPerWorker(
  port: number,
  workers: number,
): Promise<Map<number, RawConnection>> {
  const found = new Map<number, RawConnection>()
  while (found.size < workers) {
    const connection = await RawConnection.open(port)
    await connection.send(requestBytes('GET', '/health', {}))
    const { worker } = JSON.parse((await connection.response())!.body)
    if (found.has(worker)) connection.close()
    else found.set(worker, connection)
  }
  return found
}
