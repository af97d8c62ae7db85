// OpenAPI at /openapi.json and the Scalar reference at /docs, with Scalar's bundle served by the
// service itself (embedded in the compiled binary) so the page works with no internet access.
import { openapi } from '@elysiajs/openapi'
import scalarBundle from '@scalar/api-reference/browser/standalone.js' with { type: 'file' }
import type { AnyElysia } from 'elysia'
import pkg from '../../../package.json'

const SCALAR_PATH = '/docs/scalar.js'
const GENERATED_SPEC_PATH = '/openapi/generated.json'

const description = `Operations API for restaurants, tasting rooms and wine retail.

- **Tenant**: \`x-tenant-id\` or \`x-tenant-slug\`, else the default tenant. Unknown tenant: 404 \`tenant_not_found\`.
- **Authentication**: \`Authorization: Bearer <JWT>\`; each operation names the permission primitive it requires in \`x-permission\`.
- **Location**: \`x-location-id\` scopes reads, writes, location-scoped roles and audit entries.
- **Errors**: RFC 9457 \`application/problem+json\` with \`code\` and \`requestId\`.
- **Money**: integer minor units (cents); \`*Bps\` fields are basis points.
- **Bodies**: JSON only; unknown fields are refused with 400; an empty body counts as \`{}\`.`

type OpenApiDocument = {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>
}

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

/** Adds /openapi.json, /docs and the docs script to the finished app (call it last). */
export function mountDocs<T extends AnyElysia>(app: T): T {
  let spec: OpenApiDocument | undefined
  app
    .use(
      openapi({
        path: '/docs',
        specPath: GENERATED_SPEC_PATH,
        scalar: { cdn: SCALAR_PATH, url: '/openapi.json' } as never,
        exclude: { paths: [SCALAR_PATH, GENERATED_SPEC_PATH, '/openapi.json', '/.well-known/jwks.json'] },
        documentation: {
          info: { title: 'restaurant-ops', version: pkg.version, description },
          components: {
            securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
          },
        },
      }),
    )
    .get(
      '/openapi.json',
      async () => {
        if (!spec) {
          const generated = await app.handle(new Request(`http://localhost${GENERATED_SPEC_PATH}`))
          spec = documentJsonBodies((await generated.json()) as OpenApiDocument, app)
        }
        return spec
      },
      { detail: { hide: true } },
    )
    .get(
      SCALAR_PATH,
      () => new Response(Bun.file(scalarBundle), { headers: { 'content-type': 'text/javascript' } }),
      {
        detail: { hide: true },
      },
    )
  return app
}
