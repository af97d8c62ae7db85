// The operator console at /console: one HTML page, its script and its stylesheet, compiled from
// console/src into console-assets.ts (scripts/build-console.ts) and so embedded in the binary; it
// loads nothing from elsewhere. The page talks to the public API with the operator's token. Not
// API operations: hidden from the OpenAPI document, and public (the page holds no data; every
// call it makes is authenticated).
import { Elysia } from 'elysia'
import { consoleScript, consoleStyle, consoleVersion } from './console-assets'

export const CONSOLE_PATH = '/console'

/** Only this origin's script, style and API; no framing; no inline script. */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <link rel="icon" href="data:," />
    <title>restaurant-ops console</title>
    <link rel="stylesheet" href="${CONSOLE_PATH}/app.css?v=${consoleVersion}" />
  </head>
  <body>
    <div id="app"></div>
    <noscript>The console needs JavaScript.</noscript>
    <script type="module" src="${CONSOLE_PATH}/app.js?v=${consoleVersion}"></script>
  </body>
</html>`

const shared = {
  'content-security-policy': contentSecurityPolicy,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/** The page is revalidated every time (it names the current assets); the assets, by version, never change. */
const respond = (body: string, contentType: string, cacheControl: string) =>
  new Response(body, { headers: { ...shared, 'content-type': contentType, 'cache-control': cacheControl } })

const hide = { detail: { hide: true } }
const immutable = 'public, max-age=31536000, immutable'

export const consoleRoutes = () =>
  new Elysia({ name: 'console' })
    .get(CONSOLE_PATH, () => respond(page, 'text/html; charset=utf-8', 'no-cache'), hide)
    .get(
      `${CONSOLE_PATH}/app.js`,
      () => respond(consoleScript, 'text/javascript; charset=utf-8', immutable),
      hide,
    )
    .get(`${CONSOLE_PATH}/app.css`, () => respond(consoleStyle, 'text/css; charset=utf-8', immutable), hide)
