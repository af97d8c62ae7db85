// The peer: the customer read and create written directly on a typical hand-written Node stack
// (Fastify, better-sqlite3, jose), over a copy of the service's tenant file. Every request
// verifies its JWT against the development issuer's JWKS (no token cache) and looks the staff user
// up by subject; a create checks the email, inserts the customer, an audit entry (same hash chain
// as the service) and an outbox row in one BEGIN IMMEDIATE transaction.
// Environment: DB_PATH (the tenant file), TENANT_ID (its tenant), JWKS_PATH, AUTH_ISSUER,
// AUTH_AUDIENCE, PORT, HOST.
// Prints {"listening": url, "port": n} once it accepts requests.
import { createHash, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import Fastify from 'fastify'
import { createLocalJWKSet, jwtVerify } from 'jose'

const env = process.env
const keySet = createLocalJWKSet(JSON.parse(readFileSync(env.JWKS_PATH, 'utf8')))
const db = new Database(env.DB_PATH)
db.pragma('journal_mode = WAL')
db.pragma('synchronous = NORMAL')
db.pragma('foreign_keys = ON')
db.pragma('busy_timeout = 5000')

const staffBySubject = db.prepare(
  `SELECT u.id, u.status FROM staff_identities i JOIN staff_users u ON u.id = i.staff_user_id
   WHERE i.provider = 'idp' AND i.subject = ?`,
)
const customerById = db.prepare('SELECT * FROM customers WHERE id = ?')
const addressesOf = db.prepare(
  'SELECT * FROM customer_addresses WHERE customer_id = ? ORDER BY created_at, id',
)
const tagsOf = db.prepare(
  `SELECT t.id, t.title FROM tag_assignments a JOIN tags t ON t.id = a.tag_id
   WHERE a.object_type = 'customer' AND a.object_id = ? ORDER BY lower(t.title), t.id`,
)
const customerWithEmail = db.prepare('SELECT id FROM customers WHERE lower(email) = lower(?)')
const insertCustomer = db.prepare(
  `INSERT INTO customers (id, first_name, last_name, email, status, marketing_opt_in,
     additional_phones, social_profiles, created_at, updated_at)
   VALUES (@id, @firstName, @lastName, @email, 'active', 0, '[]', @socialProfiles, @now, @now)`,
)
const lastAuditHash = db.prepare('SELECT hash FROM audit_entries ORDER BY seq DESC LIMIT 1')
const insertAudit = db.prepare(
  `INSERT INTO audit_entries (id, subject, staff_user_id, tenant_id, location_id, request_id,
     ip_address, user_agent, method, route, action, entity_type, entity_id, metadata, created_at,
     prev_hash, hash)
   VALUES (@id, @subject, @staffUserId, @tenantId, @locationId, @requestId, @ipAddress, @userAgent,
     @method, @route, @action, @entityType, @entityId, @metadata, @createdAt, @prevHash, @hash)`,
)
const insertOutbox = db.prepare(
  `INSERT INTO outbox_events (id, object, action, aggregate_id, payload, user, request_id, created_at)
   VALUES (?, 'customer', 'create', ?, ?, ?, ?, ?)`,
)

const address = (row) => ({
  id: row.id,
  customerId: row.customer_id,
  label: row.label,
  name: row.name,
  phone: row.phone,
  line1: row.line1,
  line2: row.line2,
  city: row.city,
  region: row.region,
  postalCode: row.postal_code,
  countryCode: row.country_code,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const customerView = (row, addresses, tags) => ({
  id: row.id,
  externalRef: row.external_ref,
  firstName: row.first_name,
  lastName: row.last_name,
  email: row.email,
  phone: row.phone,
  status: row.status,
  tags,
  marketingOptIn: row.marketing_opt_in === 1,
  notes: row.notes,
  company: row.company,
  jobTitle: row.job_title,
  spouse: row.spouse,
  additionalPhones: JSON.parse(row.additional_phones),
  birthDate: row.birth_date,
  anniversaryDate: row.anniversary_date,
  socialProfiles: JSON.parse(row.social_profiles),
  addresses: addresses.map(address),
  originLocationId: row.origin_location_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const genesisHash = '0'.repeat(64)
const noProfiles = JSON.stringify({ facebook: null, x: null, instagram: null, linkedin: null })

const createCustomer = db.transaction((input, principal, request) => {
  if (customerWithEmail.get(input.email)) return null
  const now = new Date().toISOString()
  const id = randomUUID()
  insertCustomer.run({ id, ...input, socialProfiles: noProfiles, now })
  const view = customerView(customerById.get(id), [], [])
  const entry = {
    prevHash: lastAuditHash.get()?.hash ?? genesisHash,
    id: randomUUID(),
    subject: principal.subject,
    staffUserId: principal.staffUserId,
    tenantId: principal.tenantId,
    locationId: null,
    requestId: request.id,
    ipAddress: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    method: 'POST',
    route: '/customers',
    action: 'customer.create',
    entityType: 'customer',
    entityId: id,
    metadata: { customer: view },
    createdAt: now,
  }
  // The service's canonical form: the fields in this order, so its chain check accepts the entry.
  const hash = createHash('sha256')
    .update(JSON.stringify(Object.values(entry)))
    .digest('hex')
  insertAudit.run({ ...entry, metadata: JSON.stringify(entry.metadata), hash })
  insertOutbox.run(randomUUID(), id, JSON.stringify(view), principal.staffUserId, request.id, now)
  return view
})

const problem = (reply, status, title) =>
  reply.code(status).type('application/problem+json').send({ type: 'about:blank', title, status })

const nullable = (type) => ({ type: [type, 'null'] })
const addressSchema = {
  type: 'object',
  properties: Object.fromEntries(
    ['id', 'customerId', 'label', 'name', 'line1', 'city', 'region', 'postalCode', 'countryCode']
      .concat(['createdAt', 'updatedAt'])
      .map((k) => [k, { type: 'string' }])
      .concat(['phone', 'line2'].map((k) => [k, nullable('string')])),
  ),
}
const customerSchema = {
  type: 'object',
  properties: {
    ...Object.fromEntries(
      ['id', 'firstName', 'lastName', 'email', 'status', 'createdAt', 'updatedAt'].map((k) => [
        k,
        { type: 'string' },
      ]),
    ),
    ...Object.fromEntries(
      ['externalRef', 'phone', 'notes', 'company', 'jobTitle', 'spouse', 'birthDate', 'anniversaryDate']
        .concat(['originLocationId'])
        .map((k) => [k, nullable('string')]),
    ),
    marketingOptIn: { type: 'boolean' },
    additionalPhones: { type: 'array', items: { type: 'string' } },
    socialProfiles: {
      type: 'object',
      properties: Object.fromEntries(
        ['facebook', 'x', 'instagram', 'linkedin'].map((k) => [k, nullable('string')]),
      ),
    },
    tags: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' } } },
    },
    addresses: { type: 'array', items: addressSchema },
  },
}
const createBody = {
  type: 'object',
  required: ['firstName', 'lastName', 'email'],
  additionalProperties: false,
  properties: {
    firstName: { type: 'string', minLength: 1, maxLength: 100 },
    lastName: { type: 'string', minLength: 1, maxLength: 100 },
    email: { type: 'string', format: 'email', maxLength: 320 },
  },
}

const app = Fastify({ logger: false })

// Verify the bearer token, then the staff user behind its subject: on every request, no cache.
app.addHook('onRequest', async (request, reply) => {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')
  if (!match) return problem(reply, 401, 'A bearer token is required')
  let subject
  try {
    const { payload } = await jwtVerify(match[1], keySet, {
      issuer: env.AUTH_ISSUER,
      audience: env.AUTH_AUDIENCE,
      algorithms: ['RS256', 'ES256'],
      requiredClaims: ['sub', 'exp'],
    })
    subject = payload.sub
  } catch {
    return problem(reply, 401, 'Bearer token refused')
  }
  const staff = staffBySubject.get(subject)
  if (staff?.status !== 'active') return problem(reply, 403, 'No active staff user for this subject')
  request.principal = { subject, staffUserId: staff.id, tenantId: env.TENANT_ID }
})

app.get('/customers/:id', { schema: { response: { 200: customerSchema } } }, async (request, reply) => {
  const row = customerById.get(request.params.id)
  if (!row) return problem(reply, 404, 'Customer not found')
  return customerView(row, addressesOf.all(row.id), tagsOf.all(row.id))
})

app.post(
  '/customers',
  { schema: { body: createBody, response: { 201: customerSchema } } },
  async (request, reply) => {
    const view = createCustomer.immediate(request.body, request.principal, request)
    if (!view) return problem(reply, 409, 'A customer with this email already exists')
    return reply.code(201).send(view)
  },
)

await app.listen({ port: Number(env.PORT ?? 0), host: env.HOST ?? '127.0.0.1' })
const { port } = app.server.address()
console.log(JSON.stringify({ listening: `http://127.0.0.1:${port}`, port }))
