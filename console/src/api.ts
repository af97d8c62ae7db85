// The console talks to the public HTTP API only, with the token the operator signed in with. The
// token lives in sessionStorage (gone when the tab closes), never in a URL. Calls are typed by the
// OpenAPI document (client/schema.d.ts): when a route's answer changes, the console's type check
// says where.
import type { paths } from '../../client/schema'

const TOKEN_KEY = 'restaurant-ops.console.token'
const TENANT_KEY = 'restaurant-ops.console.tenant'

export interface Session {
  token: string
  /** The tenant slug sent as x-tenant-slug; empty for the default tenant. */
  tenant: string
}

/** What every console page is given. */
export interface PageProps {
  session: Session
}

/** What a token opens: `opk_` keys the operator API; every other token the tenant API. */
export const isOperator = (session: Session) => session.token.startsWith('opk_')

export function loadSession(): Session | null {
  const token = sessionStorage.getItem(TOKEN_KEY)
  return token ? { token, tenant: sessionStorage.getItem(TENANT_KEY) ?? '' } : null
}

export function saveSession(session: Session | null): void {
  if (!session) {
    sessionStorage.removeItem(TOKEN_KEY)
    sessionStorage.removeItem(TENANT_KEY)
    return
  }
  sessionStorage.setItem(TOKEN_KEY, session.token)
  sessionStorage.setItem(TENANT_KEY, session.tenant)
}

/** An answer other than 2xx, with the problem document's detail when there is one. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`${status}: ${detail}`)
  }

  /** What to tell the operator: 401 and 403 get a sentence of their own. */
  get advice(): string {
    if (this.status === 401)
      return `Your token was refused (401): ${this.detail}. Sign out and sign in again.`
    if (this.status === 403) return `Not allowed with this token (403): ${this.detail}`
    return `The server answered ${this.status}: ${this.detail}`
  }
}

let current: Session | null = null

/** The session every call uses from now on. */
export function bindSession(session: Session | null): void {
  current = session
}

function send(
  method: string,
  path: string,
  body?: unknown,
  extra: Record<string, string> = {},
): Promise<Response> {
  if (!current) throw new ApiProblem(401, 'not signed in')
  const headers: Record<string, string> = { ...extra, authorization: `Bearer ${current.token}` }
  if (current.tenant && !path.startsWith('/admin/')) headers['x-tenant-slug'] = current.tenant
  // A form (an upload) carries its own content type, with its boundary.
  if (body instanceof FormData) return fetch(path, { method, headers, body })
  if (body !== undefined) headers['content-type'] = 'application/json'
  return fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
}

async function problemOf(response: Response): Promise<ApiProblem> {
  const detail = await response
    .json()
    .then((problem) => problem?.detail as string | undefined)
    .catch(() => undefined)
  return new ApiProblem(response.status, detail ?? response.statusText)
}

async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<T> {
  const response = await send(method, path, body, headers)
  if (!response.ok) throw await problemOf(response)
  return (response.status === 204 ? undefined : await response.json()) as T
}

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never
type SuccessOf<R> = 200 extends keyof R ? JsonOf<R[200]> : 201 extends keyof R ? JsonOf<R[201]> : never
/** What the API answers to `method` on `path`, a path of the OpenAPI document. */
export type Answer<P extends keyof paths, M extends 'get' | 'post'> = paths[P][M] extends {
  responses: infer R
}
  ? SuccessOf<R>
  : never
type Path<M extends 'get' | 'post'> = {
  [P in keyof paths]: paths[P][M] extends undefined ? never : P
}[keyof paths]

/** `/club/{id}/releases` with `{id}` filled in, and the query string. */
function urlOf(
  path: string,
  params: Record<string, string>,
  query: Record<string, string | number | undefined>,
) {
  const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''))
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== '') search.set(key, String(value))
  return search.size ? `${url}?${search}` : url
}

export const get = <P extends Path<'get'>>(
  path: P,
  query: Record<string, string | number | undefined> = {},
  params: Record<string, string> = {},
) => call<Answer<P, 'get'>>('GET', urlOf(path, params, query))

export const post = <P extends Path<'post'>>(
  path: P,
  params: Record<string, string> = {},
  body: unknown = {},
  headers?: Record<string, string>,
) => call<Answer<P, 'post'>>('POST', urlOf(path, params, {}), body, headers)

/** Sends a multipart form (a file to import): 202 answers are JSON too. */
export const postForm = <P extends Path<'post'>>(path: P, form: FormData) =>
  call<
    paths[P]['post'] extends { responses: { 202: { content: { 'application/json': infer B } } } } ? B : never
  >('POST', path, form)

/**
 * Readiness, sent with the session's token: an operator sees each failed check's error and each
 * job's last error, anyone else `failed` and null. 503 (a database not answering) carries the
 * same document, so it is an answer here, not a problem.
 */
export async function readiness(): Promise<Answer<'/health/ready', 'get'>> {
  const response = await send('GET', '/health/ready')
  if (!response.ok && response.status !== 503) throw await problemOf(response)
  return response.json()
}

/** ERA reports are computed in the background: request one, then poll until it is ready. */
export async function eraReport<T>(kind: string, period: string, body: unknown): Promise<T[]> {
  const id = await call<string>('POST', `/era/v1/${kind}/${period}`, body)
  for (let attempt = 0; attempt < 120; attempt++) {
    const response = await send('GET', `/era/v1/${kind}/${encodeURIComponent(id)}`)
    if (response.status === 200) return (await response.json()) as T[]
    if (response.status !== 202) throw await problemOf(response)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new ApiProblem(504, 'the report took too long')
}
