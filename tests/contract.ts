// Every response the test suite produces is checked against the OpenAPI document: its status must
// be one the operation declares, its body must match the declared schema (problem documents
// included), and each header the response declares must be there when required and match its
// schema when present. The harness wraps each test app's `handle` with `checkContract`, so every
// test is also a contract test. The document is built and compiled once per process.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import type { AnyElysia } from 'elysia'

type Json = Record<string, any>

/**
 * Known mismatches, each with why it is allowed for now: `METHOD /path/template status`. Every
 * entry is a bug to fix (and then remove here); the check fails on anything not listed.
 */
export const contractExceptions: Record<string, string> = {}

/**
 * Served but not operations of the API: the document, the reference page, the development JWKS,
 * the operator console's page and assets.
 */
const undocumented = new Set([
  '/openapi.json',
  '/docs',
  '/docs/scalar.js',
  '/.well-known/jwks.json',
  '/console',
  '/console/app.js',
  '/console/app.css',
])

interface Route {
  template: string
  pattern: RegExp
  statics: number
}

interface Contract {
  doc: Json
  routes: Route[]
  validator(pointer: string[]): ValidateFunction
}

let contract: Promise<Contract> | undefined

/** JSON pointer of a path in the document, as a URI fragment. */
const fragment = (segments: string[]) =>
  segments.map((s) => encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')

async function compile(app: AnyElysia): Promise<Contract> {
  const doc = (await (await app.handle(new Request('http://localhost/openapi.json'))).json()) as Json
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
  addFormats(ajv)
  ajv.addFormat('binary', true)
  ajv.addSchema(doc, 'openapi')
  const validators = new Map<string, ValidateFunction>()
  const routes = Object.keys(doc.paths).map((template) => {
    const segments = template.split('/')
    const source = segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    return {
      template,
      pattern: new RegExp(`^${source.join('/')}$`),
      statics: segments.filter((s) => !s.startsWith('{')).length,
    }
  })
  // A static segment wins over a parameter: `/order/settings/...` before `/order/{id}/...`.
  routes.sort((a, b) => b.statics - a.statics)
  return {
    doc,
    routes,
    validator(pointer) {
      const key = fragment(pointer)
      let validate = validators.get(key)
      if (!validate) {
        validate = ajv.compile({ $ref: `openapi#/${key}` })
        validators.set(key, validate)
      }
      return validate
    },
  }
}

const mediaType = (response: Response) => (response.headers.get('content-type') ?? '').split(';')[0]!.trim()

/**
 * A header value as its schema reads it: headers are strings on the wire, and OpenAPI's `simple`
 * style spells a number as its digits.
 */
const headerValue = (schema: Json, raw: string): unknown =>
  (schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw

/** What is wrong with the headers of a response whose declaration is at `pointer`, or null. */
function headerMismatch(c: Contract, declared: Json, pointer: string[], headers: Headers): string | null {
  for (const [name, entry] of Object.entries((declared.headers ?? {}) as Record<string, Json>)) {
    let header = entry
    let at = [...pointer, 'headers', name]
    if (header.$ref) {
      const component = String(header.$ref).split('/').at(-1)!
      header = c.doc.components.headers[component]
      at = ['components', 'headers', component]
    }
    const raw = headers.get(name)
    if (raw === null) {
      if (header.required) return `header ${name} is required but absent`
      continue
    }
    const validate = c.validator([...at, 'schema'])
    if (!validate(headerValue(header.schema, raw)))
      return `header ${name}: ${JSON.stringify(raw)} does not match its schema: ${JSON.stringify(validate.errors)}`
  }
  return null
}

/**
 * Media types whose body is a stream that ends when the client leaves (`/events/stream`): the
 * status, headers and media type are checked, the body is left to the client.
 */
const streamedMediaTypes = new Set(['text/event-stream'])

/** What is wrong with this response, or null. */
async function mismatch(c: Contract, request: Request, response: Response): Promise<string | null> {
  const url = new URL(request.url)
  const method = request.method.toLowerCase()
  const route = c.routes.find((r) => r.pattern.test(url.pathname))
  const item: Json | undefined = route && c.doc.paths[route.template]
  // HEAD is answered wherever GET is, with GET's headers and no body.
  const operation: Json | undefined = item?.[method] ?? (method === 'head' ? item?.get : undefined)
  const streamed = streamedMediaTypes.has(mediaType(response))
  const text = streamed ? '' : await response.text()
  const body = () => (text ? JSON.parse(text) : undefined)
  if (!operation) {
    // Refused before routing (no route, wrong method, transport limits): a problem document.
    if (mediaType(response) !== 'application/problem+json')
      return 'not an operation, and not a problem document'
    const validate = c.validator(['components', 'schemas', 'Problem'])
    return validate(body()) ? null : `problem document: ${JSON.stringify(validate.errors)}`
  }
  const status = String(response.status)
  let declared: Json | undefined = operation.responses[status]
  if (!declared) return `status ${status} is not declared`
  let pointer = ['paths', route!.template, method, 'responses', status]
  if (declared.$ref) {
    const name = String(declared.$ref).split('/').at(-1)!
    declared = c.doc.components.responses[name]
    pointer = ['components', 'responses', name]
  }
  const headers = headerMismatch(c, declared!, pointer, response.headers)
  if (headers) return headers
  const content: Json | undefined = declared!.content
  if (!content) return text && method !== 'head' ? `status ${status} declares no body but has one` : null
  if (method === 'head' || response.status === 304) return null
  const type = mediaType(response)
  const media = content[type] ? type : content['*/*'] ? '*/*' : undefined
  if (!media) return `content-type ${type} is not declared for ${status} (${Object.keys(content).join(', ')})`
  if (!content[media].schema || media === '*/*' || streamed) return null
  const validate = c.validator([...pointer, 'content', media, 'schema'])
  if (validate(/\bjson$/.test(media) ? body() : text)) return null
  const errors = (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`)
  return `body does not match the ${status} schema: ${errors.join('; ')}`
}

export async function checkContract(app: AnyElysia, request: Request, response: Response): Promise<void> {
  const path = new URL(request.url).pathname
  if (undocumented.has(path)) return
  contract ??= compile(app)
  const c = await contract
  // A stream is not cloned: the copy would keep every event the client is sent.
  const streamed = streamedMediaTypes.has(mediaType(response))
  const problem = await mismatch(c, request, streamed ? response : (response.clone() as Response))
  if (!problem) return
  const route = c.routes.find((r) => r.pattern.test(path))
  const key = `${request.method} ${route?.template ?? path} ${response.status}`
  if (key in contractExceptions) return
  if (process.env.CONTRACT_LOG) {
    require('node:fs').appendFileSync(process.env.CONTRACT_LOG, `${JSON.stringify({ key, problem, path })}\n`)
    return
  }
  throw new Error(`Contract: ${request.method} ${path} answered ${response.status}: ${problem}`)
}

export interface EmittedEvent {
  object: string
  action: string
  payload: unknown
}

/**
 * Every event must be one of the document's `webhooks`, with a payload its schema allows: the
 * catalogue (the families' manifests) is what subscribers are told they receive.
 */
export async function checkEvents(app: AnyElysia, events: EmittedEvent[]): Promise<void> {
  if (events.length === 0) return
  contract ??= compile(app)
  const c = await contract
  const problems = new Set<string>()
  for (const { object, action, payload } of events) {
    const name = `${object}.${action}`
    if (!c.doc.webhooks?.[name]) {
      problems.add(`${name} is not in the event catalogue`)
      continue
    }
    const validate = c.validator([
      'webhooks',
      name,
      'post',
      'requestBody',
      'content',
      'application/json',
      'schema',
    ])
    if (validate({ object, action, payload, user: 'user', tenantId: 'tenant' })) continue
    const errors = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath} ${e.message}`)
    problems.add(`${name} payload does not match its schema: ${errors.join('; ')}`)
  }
  if (problems.size === 0) return
  if (process.env.CONTRACT_LOG) {
    for (const problem of problems)
      require('node:fs').appendFileSync(
        process.env.CONTRACT_LOG,
        `${JSON.stringify({ key: 'event', problem })}\n`,
      )
    return
  }
  throw new Error(`Contract: ${[...problems].join('\n')}`)
}

/** The app with `handle` checking every response against the document. */
export function contractChecked<T extends AnyElysia>(app: T): T {
  const handle = app.handle.bind(app)
  app.handle = async (request: Request) => {
    const response = (await handle(request)) as Response
    await checkContract(app, request, response)
    return response
  }
  return app
}
