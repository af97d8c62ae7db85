// Operation ids from method and path: `GET /customers` listCustomers, `GET /customers/{id}`
// getCustomer, `POST /order/{id}/payments` createOrderPayment, `POST /order/{id}/void` voidOrder.
// Version segments (`v1`) are left out. A path served under a singular and a plural spelling
// (`/customer`, `/customers`) gives the same id twice: the singular one is the alias
// (`listCustomersAlias`).
import type { RouteFacts } from './routes'

/** Last path segments of POST routes that are a verb on the record rather than a sub-resource. */
const actions = new Set([
  'activate',
  'adjust',
  'archive',
  'arrive',
  'assign',
  'attach',
  'batch-ready',
  'cancel',
  'capture',
  'cash-out',
  'clock-in',
  'clock-out',
  'close',
  'complete',
  'control',
  'deactivate',
  'deliver',
  'disable',
  'dispatch',
  'enable',
  'end',
  'expire',
  'hold',
  'load',
  'merge',
  'pause',
  'publish',
  'reactivate',
  'ready',
  'redeem',
  'refund',
  'replay',
  'restore',
  'resume',
  'reuse',
  'rotate',
  'stage',
  'submit',
  'sync',
  'void',
])

const pascal = (segment: string) =>
  segment
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')

const camel = (segment: string) => {
  const p = pascal(segment)
  return p.charAt(0).toLowerCase() + p.slice(1)
}

export function singular(word: string): string {
  if (/ies$/.test(word)) return word.replace(/ies$/, 'y')
  if (/sses$/.test(word)) return word.replace(/es$/, '')
  if (/[^su]s$/.test(word)) return word.slice(0, -1)
  return word
}

export function plural(word: string): string {
  if (/s$/.test(word)) return word
  if (/(x|z|ch|sh)$/.test(word)) return `${word}es`
  if (/[^aeiou]y$/.test(word)) return word.replace(/y$/, 'ies')
  return `${word}s`
}

const isParam = (segment: string | undefined) => segment?.startsWith('{') ?? false

/**
 * `list` for a GET that pages (`page` in its query), `get` for other GETs, `create` for a POST to a
 * collection, the action's own verb for a POST to an action, `update` for PUT and PATCH, `delete`.
 */
function operationIdOf(route: RouteFacts): string {
  const segments = route.path.split('/').filter((s) => s && !/^v\d+$/.test(s))
  const final = segments.at(-1)
  const action =
    route.method === 'post' && final && segments.length > 1 && actions.has(final) ? final : undefined
  const nouns = action ? segments.slice(0, -1) : segments
  const verb = action
    ? camel(action)
    : route.method === 'get'
      ? route.query.includes('page')
        ? 'list'
        : 'get'
      : route.method === 'post'
        ? 'create'
        : route.method === 'delete'
          ? 'delete'
          : 'update'
  const words = nouns.flatMap((segment, i) => {
    if (isParam(segment)) return []
    return [isParam(nouns[i + 1]) ? singular(segment) : segment]
  })
  const last = words.length - 1
  const onCollection = !isParam(nouns.at(-1))
  if (verb === 'list' || (action && onCollection)) words[last] = plural(words[last]!)
  if (verb === 'create' && onCollection) words[last] = singular(words[last]!)
  return verb + (words.length > 0 ? words.map(pascal).join('') : 'Root')
}

/** A singular spelling of a path's first segment marks the alias of a plural one. */
const singularSpelled = (path: string) => {
  const first = path.split('/')[1] ?? ''
  return singular(first) === first
}

/** A route ending in a parameter names it, to tell it from the same route without: `...ByParam`. */
const byLastParam = (route: RouteFacts, id: string) => {
  const last = route.path.split('/').at(-1)!
  return isParam(last) ? `${id}By${pascal(last.slice(1, -1))}` : id
}

/**
 * Operation ids by `METHOD path`, unique: of two routes that differ by a trailing parameter (a
 * report over a custom range and by period), the one with it says `By<Param>`; of a singular
 * and a plural spelling of the same path, the singular one is the `Alias`.
 */
export function operationIds(routes: RouteFacts[]): Map<string, string> {
  const group = (entries: [RouteFacts, string][]) => {
    const byId = new Map<string, RouteFacts[]>()
    for (const [route, id] of entries) byId.set(id, [...(byId.get(id) ?? []), route])
    return byId
  }
  const first = group(routes.map((route) => [route, operationIdOf(route)]))
  const second = group(
    [...first].flatMap(([id, sharing]) =>
      sharing.map((route): [RouteFacts, string] => {
        const aliased =
          sharing.length > 1 && sharing.some((r) => singularSpelled(r.path) !== singularSpelled(route.path))
        return [route, sharing.length > 1 && !aliased ? byLastParam(route, id) : id]
      }),
    ),
  )
  const ids = new Map<string, string>()
  for (const [id, sharing] of second) {
    const aliases = sharing.length > 1 ? sharing.filter((r) => singularSpelled(r.path)) : []
    if (sharing.length - aliases.length > 1 || aliases.length > 1)
      throw new Error(`OpenAPI: ${sharing.map((r) => `${r.method} ${r.path}`).join(', ')} share the id ${id}`)
    for (const route of sharing)
      ids.set(`${route.method} ${route.path}`, aliases.includes(route) ? `${id}Alias` : id)
  }
  return ids
}
