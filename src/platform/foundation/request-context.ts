// Per-request facts gathered before anything else runs (request id, client address),
// kept beside the Request object so every later hook, including the error handler, can read them.
import { newId } from './ids'

export interface RequestInfo {
  requestId: string
  ipAddress: string | null
  userAgent: string | null
  startedAt: number
}

const infos = new WeakMap<Request, RequestInfo>()
/** An `x-request-id` the service adopts; others are replaced with a new id (a UUID, which also fits). */
export const acceptableRequestId = /^[A-Za-z0-9._:-]{1,128}$/

export function beginRequest(request: Request, ipAddress: string | null): RequestInfo {
  const sent = request.headers.get('x-request-id')
  const info: RequestInfo = {
    requestId: sent && acceptableRequestId.test(sent) ? sent : newId(),
    ipAddress,
    userAgent: request.headers.get('user-agent'),
    startedAt: performance.now(),
  }
  infos.set(request, info)
  return info
}

export function requestInfo(request: Request): RequestInfo {
  return infos.get(request) ?? beginRequest(request, null)
}
