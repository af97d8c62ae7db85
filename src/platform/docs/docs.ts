// OpenAPI at /openapi.json and the Scalar reference at /docs, with Scalar's bundle served by the
// service itself (embedded in the compiled binary) so the page works with no internet access.
// The document (openapi/document.ts) is built on the first request for it: start-up does not
// pay for it.
import scalarBundle from '@scalar/api-reference/browser/standalone.js' with { type: 'file' }
import type { AnyElysia } from 'elysia'
import pkg from '../../../package.json'
import type { EventCatalogue } from '../events/catalogue'
import { OPERATOR_SECURITY_SCHEME } from '../operator/plugin'
import { buildOpenApiDocument } from './openapi/document'
import { WEBHOOK_TAG } from './openapi/webhooks'
import { PROBLEM_TAG } from './problem-pages'

const SCALAR_PATH = '/docs/scalar.js'

const description = `Operations API for restaurants, tasting rooms and wine retail.

- **Tenant**: \`x-tenant-id\` or \`x-tenant-slug\`, else the default tenant. Unknown tenant: 404 \`tenant_not_found\`.
- **Authentication**: \`Authorization: Bearer <token>\`: a JWT from the identity provider, a \`vps_\` POS passcode session or a \`tpk_live_\` tables-API credential. Each operation names the permission primitive it requires in \`x-permission\` (and the credential scope in \`x-credential-scope\` where credentials are accepted).
- **Operator API**: \`/admin/v1\` (tag Operator) manages tenants with an operator credential (\`operatorAuth\`), never a tenant token.
- **Location**: \`x-location-id\` scopes reads, writes, location-scoped roles and audit entries.
- **Errors**: RFC 9457 \`application/problem+json\` with \`code\` and \`requestId\`.
- **Money**: integer minor units (cents); \`*Bps\` fields are basis points.
- **Bodies**: JSON only; unknown fields are refused with 400; an empty body counts as \`{}\`.`

export interface DocsOptions {
  /** Every tag the routes use, with a description of its operations. */
  tags: Record<string, string>
  /** The events subscribers receive: the document's `webhooks`. */
  events: EventCatalogue
  /** The modules' model files, whose export names name the document's shared schemas. */
  models: Record<string, Record<string, unknown>>
}

const buildSpec = (app: AnyElysia, options: DocsOptions) =>
  buildOpenApiDocument(app, {
    info: {
      title: 'restaurant-ops',
      version: pkg.version,
      description,
      license: { name: 'MIT', identifier: pkg.license },
    },
    tags: {
      ...options.tags,
      [PROBLEM_TAG]: 'What each problem `type` of an error response means (its `type` URL).',
      [WEBHOOK_TAG]: 'The events a webhook subscription receives (docs/events.md).',
    },
    events: options.events,
    models: options.models,
    securitySchemes: {
      [OPERATOR_SECURITY_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        description:
          'The operator API (/admin) only: an `opk_` operator key (`restaurant-ops operator-key create`) or a JWT of the identity provider carrying AUTH_OPERATOR_CLAIM. Tenant tokens are refused there, and operator credentials on tenant routes.',
      },
    },
  })

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
export function mountDocs<T extends AnyElysia>(app: T, options: DocsOptions): T {
  let spec: unknown
  const hide = { detail: { hide: true } }
  app
    .get(
      '/openapi.json',
      () => {
        spec ??= buildSpec(app, options)
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
