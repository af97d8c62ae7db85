// Per-request facts gathered before anything else runs (request id, client address),
// kept beside the Request object so every later hook, including the error handler, can read them.
import { newId } from './ids'

export interface RequestInfo {
  requestId: string
  ipAddress: string | null
  userAgent: string | null
  startedAt: number
  /** Passed on by another HTTP worker (src/platform/http/worker-affinity.ts): answered here. */
  fromWorker: boolean
}

const infos = new WeakMap<Request, RequestInfo>()
/** Requests another worker passed on, with their client's address as that worker saw it. */
const fromWorkers = new WeakMap<Request, string | null>()
/** An `x-request-id` the service adopts; others are replaced with a new id (a UUID, which also fits). */
export const acceptableRequestId = /^[A-Za-z0-9._:-]{1,128}$/

/** `ipAddress`: the peer's; a request from another worker keeps its client's instead. */
export function beginRequest(request: Request, ipAddress: string | null): RequestInfo {
  const sent = request.headers.get('x-request-id')
  const fromWorker = fromWorkers.has(request)
  const info: RequestInfo = {
    requestId: sent && acceptableRequestId.test(sent) ? sent : newId(),
    ipAddress: fromWorker ? fromWorkers.get(request)! : ipAddress,
    userAgent: request.headers.get('user-agent'),
    startedAt: performance.now(),
    fromWorker,
  }
  infos.set(request, info)
  return info
}

export function requestInfo(request: Request): RequestInfo {
  return infos.get(request) ?? beginRequest(request, null)
}

/** A request received on this worker's socket from another worker, which saw `clientAddress`. */
export function noteReceivedFromWorker(request: Request, clientAddress: string | null): void {
  fromWorkers.set(request, clientAddress || null)
}
