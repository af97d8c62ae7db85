// Which webhook targets the service may call. Private, loopback, link-local and other
// non-public addresses are refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true, so a subscription
// cannot make the service probe the network it runs in (SSRF). Checked twice: on the literal host
// when a subscription is saved, and on every resolved address just before each attempt.
import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

const nonPublic = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6')
}

/** True for an address the public internet cannot route to (or must not be reached through). */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return nonPublic.check(address, 'ipv4')
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
    if (mapped?.[1]) return nonPublic.check(mapped[1], 'ipv4')
    return nonPublic.check(address, 'ipv6')
  }
  return false
}

const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').toLowerCase()

/** Why a URL may not be a webhook target judging by its text alone, or null when it may. */
export function targetUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute http(s) URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https'
  if (allowPrivate) return null
  const host = bareHost(url)
  if (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.endsWith('.local') ||
    host.endsWith('.internal')
  )
    return `private or loopback targets are refused (${host}); set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow them`
  if (isNonPublicAddress(host))
    return `private or loopback targets are refused (${host}); set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow them`
  return null
}

/**
 * Just before an attempt: the problem with the URL or any address its host resolves to, or null.
 * (A host that re-resolves between this check and the request can still slip through; the
 * request itself also refuses redirects, so a public host cannot bounce the call inwards.)
 */
export async function resolvedTargetProblem(raw: string, allowPrivate: boolean): Promise<string | null> {
  const literal = targetUrlProblem(raw, allowPrivate)
  if (literal || allowPrivate) return literal
  const host = bareHost(new URL(raw))
  if (isIP(host)) return null
  let addresses: { address: string }[]
  try {
    addresses = await lookup(host, { all: true })
  } catch (error) {
    return `could not resolve ${host}: ${error instanceof Error ? error.message : String(error)}`
  }
  const bad = addresses.find((a) => isNonPublicAddress(a.address))
  return bad
    ? `${host} resolves to a private or loopback address (${bad.address}); set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow it`
    : null
}
