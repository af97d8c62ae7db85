// The methods a path has, from the app's route table: a known path asked with another method is
// 405 `method_not_allowed` with `Allow`, not 404 (RFC 9110 15.5.6).
import type { AnyElysia } from 'elysia'

interface RoutePattern {
  pattern: RegExp
  methods: Set<string>
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')

/** `/order/:id/line/:lineId` as a regular expression over a request's pathname. */
const patternOf = (path: string) =>
  new RegExp(
    `^${path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : escapeRegExp(segment)))
      .join('/')}$`,
  )

/** `(pathname) => Allow header value`, or undefined when no route has the path at all. */
export function allowedMethods(app: AnyElysia): (pathname: string) => string | undefined {
  let patterns: RoutePattern[] | undefined
  const build = () => {
    const byPath = new Map<string, Set<string>>()
    for (const route of app.routes) {
      const methods = byPath.get(route.path) ?? new Set<string>()
      methods.add(route.method.toUpperCase())
      // Elysia answers HEAD wherever it answers GET.
      if (route.method.toUpperCase() === 'GET') methods.add('HEAD')
      byPath.set(route.path, methods)
    }
    return [...byPath].map(([path, methods]) => ({ pattern: patternOf(path), methods }))
  }
  return (pathname) => {
    // Built on first use: the table is complete only once every module is mounted.
    patterns ??= build()
    const methods = new Set<string>()
    for (const route of patterns)
      if (route.pattern.test(pathname)) for (const m of route.methods) methods.add(m)
    return methods.size > 0 ? [...methods].sort().join(', ') : undefined
  }
}
