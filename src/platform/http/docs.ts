// OpenAPI at /openapi.json and the Scalar reference at /docs, with Scalar's bundle served by the
// service itself (embedded in the compiled binary) so the page works with no internet access.
// The generator (@elysiajs/openapi) is imported on the first request for the spec: importing it
// costs ~400 ms (it bundles zod), which start-up should not pay.
import scalarBundle from '@scalar/api-reference/browser/standalone.js' with { type: 'file' }
import type { AnyElysia } from 'elysia'
import pkg from '../../../package.json'
import { OPERATOR_SECURITY_SCHEME } from '../operator/plugin'

const SCALAR_PATH = '/docs/scalar.js'

const description = `Operations API for restaurants, tasting rooms and wine retail.

- **Tenant**: \`x-tenant-id\` or \`x-tenant-slug\`, else the default tenant. Unknown tenant: 404 \`tenant_not_found\`.
- **Authentication**: \`Authorization: Bearer <token>\`: a JWT from the identity provider, a \`vps_\` POS passcode session or a \`tpk_live_\` tables-API credential. Each operation names the permission primitive it requires in \`x-permission\` (and the credential scope in \`x-credential-scope\` where credentials are accepted).
- **Operator API**: \`/admin/v1\` (tag Operator) manages tenants with an operator credential (\`operatorAuth\`), never a tenant token.
- **Location**: \`x-location-id\` scopes reads, writes, location-scoped roles and audit entries.
- **Errors**: RFC 9457 \`application/problem+json\` with \`code\` and \`requestId\`.
- **Money**: integer minor units (cents); \`*Bps\` fields are basis points.
- **Bodies**: JSON only; unknown fields are refused with 400; an empty body counts as \`{}\`.`

type Operation = { requestBody?: { content?: Record<string, unknown> } }
type OpenApiDocument = { paths: Record<string, Record<string, Operation>> } & Record<string, unknown>

/**
 * Our own JSON body parser (http/conventions.ts) is a function, which the generator cannot read a
 * content type from, so it leaves request bodies without content. Put the route's body schema back
 * under application/json.
 */
function documentJsonBodies(doc: OpenApiDocument, app: AnyElysia): OpenApiDocument {
  for (const route of app.routes) {
    const body = (route.hooks as { body?: unknown }).body
    const operation = doc.paths[route.path.replace(/:([^/]+)/g, '{$1}')]?.[route.method.toLowerCase()]
    if (!body || typeof body !== 'object' || !operation?.requestBody) continue
    if (Object.keys(operation.requestBody.content ?? {}).length > 0) continue
    operation.requestBody.content = { 'application/json': { schema: JSON.parse(JSON.stringify(body)) } }
  }
  return doc
}

async function buildSpec(app: AnyElysia): Promise<OpenApiDocument> {
  const { toOpenAPISchema } = await import('@elysiajs/openapi')
  const hidden = ['/docs', SCALAR_PATH, '/openapi.json', '/.well-known/jwks.json']
  const { paths, components } = toOpenAPISchema(app, { paths: hidden }, undefined, undefined, '3.1.0')
  const doc = {
    openapi: '3.1.0',
    info: { title: 'restaurant-ops', version: pkg.version, description },
    paths,
    components: {
      ...components,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A JWT of the identity provider, a `vps_` passcode session or a `tpk_live_` credential.',
        },
        [OPERATOR_SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The operator API (/admin) only: an `opk_` operator key (`restaurant-ops operator-key create`) or a JWT of the identity provider carrying AUTH_OPERATOR_CLAIM. Tenant tokens are refused there, and operator credentials on tenant routes.',
        },
      },
    },
  } as unknown as OpenApiDocument
  return documentJsonBodies(doc, app)
}

const docsPage = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>restaurant-ops API</title>
  </head>
  <body>
    <script id="api-reference" data-url="/openapi.json"></script>
    <script src="${SCALAR_PATH}"></script>
  </body>
</html>`

/** Adds /openapi.json, /docs and the docs script to the finished app (call it last). */
export function mountDocs<T extends AnyElysia>(app: T): T {
  let spec: Promise<OpenApiDocument> | undefined
  const hide = { detail: { hide: true } }
  app
    .get(
      '/openapi.json',
      () => {
        spec ??= buildSpec(app)
        return spec
      },
      hide,
    )
    .get(
      '/docs',
      () => new Response(docsPage, { headers: { 'content-type': 'text/html; charset=utf-8' } }),
      hide,
    )
    .get(
      SCALAR_PATH,
      () => new Response(Bun.file(scalarBundle), { headers: { 'content-type': 'text/javascript' } }),
      hide,
    )
  return app
}
