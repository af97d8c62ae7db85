// The tenant resolution step of a cluster node, before routing and body parsing: a request for a
// tenant another node owns is proxied to it (body streamed, request id kept) or answered 307 with
// its address (CLUSTER_ROUTING); one for a tenant being moved or restored waits for it; one this
// node cannot serve safely gets a retryable 503. Node-local paths (probes, docs, the operator API
// other than one tenant's routes) are not routed.
import { Elysia } from 'elysia'
import { ApiError, problemResponse, unavailable } from '../foundation/problem'
import { requestInfo } from '../foundation/request-context'
import { passRequest } from '../http/pass-request'
import { tenantTarget } from '../http/request-tenant'
import type { ClusterNode } from './node'

/** Counts the hops, so two nodes with momentarily different views cannot bounce a request forever. */
export const HOPS_HEADER = 'x-cluster-hops'
/** Set on a tenant creation forwarded to the node chosen for it, which then creates it itself. */
export const PLACED_HEADER = 'x-cluster-placed'
const MAX_HOPS = 2
/** How long a request waits for a tenant being moved or restored before a retryable 503. */
const WAIT_LIMIT_MS = 5000

interface Hop {
  requestId: string
  hops: number
  /** The node a tenant creation was placed on. */
  placed?: string
}

const forward = (request: Request, url: string, hop: Hop) =>
  passRequest(
    request,
    { url },
    {
      'x-request-id': hop.requestId,
      [HOPS_HEADER]: String(hop.hops + 1),
      ...(hop.placed ? { [PLACED_HEADER]: hop.placed } : {}),
    },
  )

export function clusterRouting(
  cluster: ClusterNode,
  defaultSlug: string,
  legacyTokenTenant: (tokenHash: string) => string | undefined,
) {
  const leave = new WeakMap<Request, () => void>()
  return new Elysia({ name: 'cluster-routing' })
    .onRequest(async ({ request }) => {
      const path = new URL(request.url).pathname
      const target = tenantTarget(request, path, defaultSlug, legacyTokenTenant)
      if (!target) return
      const { requestId } = requestInfo(request)
      const hops = Number(request.headers.get(HOPS_HEADER) ?? 0) || 0
      const refuse = (error: ApiError) => problemResponse(error, requestId)
      if ('place' in target) {
        if (request.headers.get(PLACED_HEADER) === cluster.id) return
        const node = cluster.placementFor()
        const url = node === cluster.id ? undefined : cluster.nodeUrl(node)
        if (!url) return
        return relay(request, url, { requestId, hops, placed: node }, cluster.settings.routing, refuse)
      }
      const deadline = Date.now() + WAIT_LIMIT_MS
      for (;;) {
        const route = cluster.route(target)
        switch (route.kind) {
          case 'unknown':
            // Not in the cluster: the operator API answers 404, tenant routes tenant_not_found; a
            // token naming no tenant of the cluster is refused here (401), as on one node.
            if (path.startsWith('/admin/') || target.token) return
            return refuse(new ApiError('tenant_not_found', `Tenant ${target.id ?? target.slug} not found`))
          case 'local':
            leave.set(request, cluster.enter(route.tenantId))
            return
          case 'remote':
            if (hops >= MAX_HOPS) return refuse(unavailable('The tenant is changing owner; retry'))
            return relay(request, route.url, { requestId, hops }, cluster.settings.routing, refuse)
          case 'unavailable':
            return refuse(unavailable(`This node cannot serve the tenant: ${route.reason}; retry`))
          case 'wait':
            if (Date.now() >= deadline)
              return refuse(unavailable(`The tenant is not available yet (${route.reason}); retry`))
            await cluster.nextChange(deadline - Date.now())
        }
      }
    })
    .onAfterResponse({ as: 'global' }, ({ request }) => {
      leave.get(request)?.()
      leave.delete(request)
    })
}

async function relay(
  request: Request,
  url: string,
  hop: Hop,
  mode: 'forward' | 'redirect',
  refuse: (error: ApiError) => Response,
): Promise<Response> {
  if (mode === 'redirect') {
    const source = new URL(request.url)
    return new Response(null, {
      status: 307,
      headers: { location: `${url}${source.pathname}${source.search}`, 'x-request-id': hop.requestId },
    })
  }
  try {
    return await forward(request, url, hop)
  } catch {
    return refuse(unavailable('The node that owns this tenant did not answer; retry'))
  }
}
