// The HTTP side of a graceful stop (README "Operations", Shutdown). Once `begin` is called, every
// request already read is answered as usual but with `Connection: close`, and every request read
// afterwards is refused with a 503 (it did nothing, so it is safe to retry), also with
// `Connection: close`: each keep-alive connection ends after its next response. `quiet` tells when
// clients have stopped sending, so the listener and the idle connections can close without
// dropping a request that was already on its way.
import type { HTTPHeaders } from 'elysia'
import { type ApiError, unavailable } from '../foundation/problem'

export class Drain {
  private draining = false
  /** Answers close their connections (the port is being handed over), requests are still served. */
  private closing = false
  /** The response headers of every request admitted and not yet answered. */
  private readonly inFlight = new Set<HTTPHeaders>()
  private arrivals = 0
  /** Requests refused with 503 since `begin`. */
  refused = 0

  /** Called first for every request with its response headers: the refusal once draining, else null. */
  admit(headers: HTTPHeaders): ApiError | null {
    this.arrivals++
    if (!this.draining) {
      if (this.closing) headers.connection = 'close'
      this.inFlight.add(headers)
      return null
    }
    this.refused++
    return unavailable('The server is shutting down; retry the request on a new connection', 1, {
      connection: 'close',
    })
  }

  /** Called once the response of an admitted request is sent. */
  release(headers: HTTPHeaders): void {
    this.inFlight.delete(headers)
  }

  /** Every answer from now on, and those being made, closes its connection; nothing is refused. */
  closeConnections(): void {
    this.closing = true
    for (const headers of this.inFlight) headers.connection = 'close'
  }

  begin(): void {
    this.draining = true
    for (const headers of this.inFlight) headers.connection = 'close'
  }

  /** Resolves at the end of the first `windowMs` in which no request arrived. */
  async quiet(windowMs: number): Promise<void> {
    let seen: number
    do {
      seen = this.arrivals
      await Bun.sleep(windowMs)
    } while (this.arrivals !== seen)
  }
}
