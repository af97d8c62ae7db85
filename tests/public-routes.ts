// The routes anyone may call: every other route declares a permission (route-table.test.ts).
/** Routes anyone may call: service description, probes, docs, and the development JWKS. */
export const publicRoutes = new Set([
  'GET /',
  'GET /health',
  'GET /health/live',
  'GET /health/ready',
  'GET /health/database',
  'GET /docs',
  'GET /docs/scalar.js',
  'GET /openapi.json',
  // What each problem `type` URL means.
  'GET /problems/:slug',
  'GET /.well-known/jwks.json',
  // The operator console's page and assets: no data in them; every call the page makes is authenticated.
  'GET /console',
  'GET /console/app.js',
  'GET /console/app.css',
  // Passcode sign-in: the passcode is the credential. Sign-out: the session's own vps_ token is
  // its authority, with no primitive, so any session can always end itself.
  'POST /auth/passcode-sessions',
  'DELETE /auth/passcode-sessions/current',
  // Embedded media store: the upload URL's own signature (signed, expiring, single-use, handed out
  // by the authenticated POST /media/uploads/direct) is the authority, as with an S3 presigned PUT;
  // and ready files are public, since product images appear on public pages.
  'PUT /media/uploads/:tenantId/:assetId',
  'GET /media/files/:tenantId/:objectId',
])
