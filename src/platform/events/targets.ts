// Which webhook targets the service may call, and calling them. Private, loopback, link-local and
// other non-public addresses are refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true, so a
// subscription cannot make the service probe the network it runs in (SSRF). Checked twice: on the
// URL's host (as WHATWG URL parsing normalised it) when a subscription is saved, and at connect
// time on every address the host resolves to. The request then goes to a checked address itself,
// so a DNS answer that changes after the check (rebinding) cannot send it anywhere else.
import { lookup } from 'node:dns/promises'
import ipaddr from 'ipaddr.js'

const ALLOW_HINT = 'allowed only with WEBHOOK_ALLOW_PRIVATE_TARGETS=true'

/** IPv6 ranges whose addresses carry an IPv4 address that the traffic ends up at. */
const ipv4Carriers = [
  { form: 'IPv4-mapped', network: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), offset: 12 },
  { form: 'IPv4-translated', network: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), offset: 12 },
  { form: 'IPv4-compatible', network: ipaddr.IPv6.parseCIDR('::/96'), offset: 12 },
  { form: 'NAT64', network: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), offset: 12 },
  { form: '6to4', network: ipaddr.IPv6.parseCIDR('2002::/16'), offset: 2 },
  // Teredo stores the client's IPv4 address in the last 32 bits with every bit flipped.
  { form: 'Teredo', network: ipaddr.IPv6.parseCIDR('2001::/32'), offset: 12, flipped: true },
]

/** The IPv4 address an IPv6 address embeds (mapped, translated, compatible, NAT64, 6to4, Teredo), or null. */
export function embeddedIPv4(address: ipaddr.IPv6): { form: string; ipv4: ipaddr.IPv4 } | null {
  const range = address.range()
  // `::` and `::1` lie in ::/96 but are IPv6's own unspecified and loopback addresses.
  if (range === 'unspecified' || range === 'loopback') return null
  const carrier = ipv4Carriers.find((c) => address.match(c.network))
  if (!carrier) return null
  const bytes = address.toByteArray().slice(carrier.offset, carrier.offset + 4)
  return { form: carrier.form, ipv4: new ipaddr.IPv4(carrier.flipped ? bytes.map((b) => b ^ 0xff) : bytes) }
}

/**
 * Why an IP address is no public target, or null when it is one. The reason is the ipaddr.js range
 * (`loopback`, `private`, `linkLocal`...); for an IPv6 address that embeds an IPv4 one, the IPv4
 * address's range and where it came from (`private (6to4 address of 10.0.0.1)`). Only `unicast`,
 * what no special-purpose range covers, is public.
 */
export function nonPublicRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address'
  const ip = ipaddr.parse(address)
  const embedded = ip instanceof ipaddr.IPv6 ? embeddedIPv4(ip) : null
  if (embedded) {
    const range = nonPublicRange(embedded.ipv4.toString())
    return range && `${range} (${embedded.form} address of ${embedded.ipv4})`
  }
  const range = ip.range()
  return range === 'unicast' ? null : range
}

/** Names that mean this machine or its own network whatever DNS answers. */
const isLocalName = (host: string) =>
  host === 'localhost' || ['.localhost', '.local', '.internal'].some((suffix) => host.endsWith(suffix))

interface Target {
  url: URL
  /** The URL's host without IPv6 brackets or a trailing dot. */
  host: string
}

/** The parsed target, or why the text is no http(s) URL. */
function parseTarget(raw: string): Target | string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute http(s) URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https'
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')
  return { url, host }
}

/** Why the host itself (a literal address or a local name) may not be called, or null. */
function hostProblem(host: string): string | null {
  const reason = isLocalName(host) ? 'a local name' : ipaddr.isValid(host) ? nonPublicRange(host) : null
  return reason && `must not target a non-public address: ${host} is ${reason} (${ALLOW_HINT})`
}

/** Why a URL may not be a webhook target judging by its text alone, or null when it may. */
export function targetUrlProblem(raw: string, allowPrivate: boolean): string | null {
  const target = parseTarget(raw)
  if (typeof target === 'string') return target
  return allowPrivate ? null : hostProblem(target.host)
}

/** Every address a host name resolves to, in the order to try them. */
export type ResolveHost = (host: string) => Promise<string[]>

/** The system resolver, IPv4 first: the family a server is likeliest to reach. */
export const systemResolver: ResolveHost = async (host) =>
  (await lookup(host, { all: true })).sort((a, b) => a.family - b.family).map((a) => a.address)

/** A target the service may not call; no request was made. */
export class TargetRefusedError extends Error {}

export interface TargetPolicy {
  allowPrivate: boolean
  resolveHost?: ResolveHost
}

/** Resolves the host once; throws TargetRefusedError when any address it names is non-public. */
async function checkedAddresses(target: Target, policy: TargetPolicy): Promise<string[]> {
  const problem = policy.allowPrivate ? null : hostProblem(target.host)
  if (problem) throw new TargetRefusedError(problem)
  if (ipaddr.isValid(target.host)) return [target.host]
  let addresses: string[]
  try {
    addresses = await (policy.resolveHost ?? systemResolver)(target.host)
  } catch (error) {
    throw new Error(
      `could not resolve ${target.host}: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  if (addresses.length === 0) throw new Error(`${target.host} resolves to no address`)
  if (policy.allowPrivate) return addresses
  for (const address of addresses) {
    const reason = nonPublicRange(address)
    if (reason)
      throw new TargetRefusedError(
        `${target.host} resolves to ${address}, which is ${reason} (${ALLOW_HINT})`,
      )
  }
  return addresses
}

/** The connection never opened, so nothing was sent and the next address may be tried. */
const couldNotConnect = (error: unknown) =>
  ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH'].includes((error as { code?: string } | null)?.code ?? '')

/**
 * fetch() to a target checked at connect time: the host is resolved once, every address checked,
 * and the request sent to a checked address with the URL's own Host header and TLS server name.
 * Throws TargetRefusedError, before any request, for a target that may not be called.
 */
export async function fetchTarget(
  raw: string,
  init: BunFetchRequestInit,
  policy: TargetPolicy,
): Promise<Response> {
  const target = parseTarget(raw)
  if (typeof target === 'string') throw new TargetRefusedError(target)
  const addresses = await checkedAddresses(target, policy)
  const headers = new Headers(init.headers)
  headers.set('host', target.url.host)
  // The certificate is checked against the name in the URL, not the address connected to.
  const tls = ipaddr.isValid(target.host) ? init.tls : { ...init.tls, serverName: target.host }
  let lastError: unknown
  for (const address of addresses) {
    const pinned = new URL(target.url)
    pinned.hostname = ipaddr.IPv6.isValid(address) ? `[${address}]` : address
    try {
      return await fetch(pinned, { ...init, headers, tls })
    } catch (error) {
      if (!couldNotConnect(error)) throw error
      lastError = error
    }
  }
  throw lastError
}
