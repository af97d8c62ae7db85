// OpenAPI at /openapi.json and the Scalar reference at /docs, with Scalar's bundle served by the
// service itself (embedded in the compiled binary) so the page works with no internet access.
import { openapi } from '@elysiajs/openapi'
import scalarBundle from '@scalar/api-reference/browser/standalone.js' with { type: 'file' }
import { Elysia } from 'elysia'
import pkg from '../../../package.json'

const SCALAR_PATH = '/docs/scalar.js'

const description = `Operations API for restaurants, tasting rooms and wine retail.

- **Tenant**: \`x-tenant-id\` or \`x-tenant-slug\`, else the default tenant. Unknown tenant: 404 \`tenant_not_found\`.
- **Authentication**: \`Authorization: Bearer <JWT>\`; each operation names the permission primitive it requires in \`x-permission\`.
- **Location**: \`x-location-id\` scopes reads, writes, location-scoped roles and audit entries.
- **Errors**: RFC 9457 \`application/problem+json\` with \`code\` and \`requestId\`.
- **Money**: integer minor units (cents); \`*Bps\` fields are basis points.`

export const docsPlugin = () =>
  new Elysia({ name: 'docs' })
    .use(
      openapi({
        path: '/docs',
        specPath: '/openapi.json',
        scalar: { cdn: SCALAR_PATH } as never,
        exclude: { paths: [SCALAR_PATH, '/.well-known/jwks.json'] },
        documentation: {
          info: { title: 'restaurant-ops', version: pkg.version, description },
          components: {
            securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
          },
        },
      }),
    )
    .get(
      SCALAR_PATH,
      () => new Response(Bun.file(scalarBundle), { headers: { 'content-type': 'text/javascript' } }),
      {
        detail: { hide: true },
      },
    )
