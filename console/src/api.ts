// The console talks to the public HTTP API only, with the token the operator signed in with. The
// token lives in sessionStorage (gone when the tab closes), never in a URL.

const TOKEN_KEY = 'restaurant-ops.console.token'
const TENANT_KEY = 'restaurant-ops.console.tenant'

export interface Session {
  token: string
  /** The tenant slug sent as x-tenant-slug; empty for the default tenant. */
  tenant: string
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

export async function api<T = any>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<T> {
  const response = await send(method, path, body, headers)
  if (!response.ok) throw await problemOf(response)
  return (response.status === 204 ? undefined : await response.json()) as T
}

/** ERA reports are computed in the background: request one, then poll until it is ready. */
export async function eraReport<T>(kind: string, period: string, body: unknown): Promise<T[]> {
  const id = await api<string>('POST', `/era/v1/${kind}/${period}`, body)
  for (let attempt = 0; attempt < 120; attempt++) {
    const response = await send('GET', `/era/v1/${kind}/${encodeURIComponent(id)}`)
    if (response.status === 200) return (await response.json()) as T[]
    if (response.status !== 202) throw await problemOf(response)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new ApiProblem(504, 'the report took too long')
}
