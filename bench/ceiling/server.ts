// The ceiling: the customer read and create, and the order list's page (order-page.ts), on
// Elysia + bun:sqlite with nothing else, over a copy of the service's tenant file. The principal is a Map lookup of the bearer token (no signature
// check, no staff read); a read is one prepared statement that builds the customer with its
// addresses and tags as JSON inside SQLite (json() keeps a subquery's array an array); the
// response is checked against the service's own Customer schema. A create is one BEGIN IMMEDIATE: insert, audit entry on the SHA-256 chain
// (read the previous hash, hash, insert), outbox row. The email's unique index answers duplicates.
// Environment: DB_PATH (the tenant file), TENANT_ID, BENCH_TOKEN and BENCH_SUBJECT (the one
// principal it knows), PORT, HOST. Prints {"listening": url, "port": n} once it accepts requests.
import { Database } from 'bun:sqlite'
import { Elysia } from 'elysia'
import { CreateCustomer, Customer, type CustomerView } from '../../src/modules/customers/model'
import { orderPage } from './order-page'

const env = process.env
const db = new Database(env.DB_PATH!, { strict: true })
db.exec('PRAGMA journal_mode = WAL')
db.exec('PRAGMA synchronous = NORMAL')
db.exec('PRAGMA foreign_keys = ON')
db.exec('PRAGMA busy_timeout = 5000')

interface Principal {
  subject: string
  staffUserId: string
}
const staffUserId = db
  .query<{ id: string }, [string]>(
    "SELECT staff_user_id AS id FROM staff_identities WHERE provider = 'idp' AND subject = ?",
  )
  .get(env.BENCH_SUBJECT!)!.id
const principals = new Map<string, Principal>([
  [`Bearer ${env.BENCH_TOKEN}`, { subject: env.BENCH_SUBJECT!, staffUserId }],
])

const customerJson = db.query<{ body: string }, [string]>(`
  SELECT json_object(
    'id', c.id, 'externalRef', c.external_ref, 'firstName', c.first_name, 'lastName', c.last_name,
    'email', c.email, 'phone', c.phone, 'status', c.status,
    'tags', json((SELECT json_group_array(json_object('id', t.id, 'title', t.title)) FROM (
      SELECT t.id, t.title FROM tag_assignments a JOIN tags t ON t.id = a.tag_id
      WHERE a.object_type = 'customer' AND a.object_id = c.id ORDER BY lower(t.title), t.id) t)),
    'marketingOptIn', CASE WHEN c.marketing_opt_in THEN json('true') ELSE json('false') END,
    'notes', c.notes, 'company', c.company, 'jobTitle', c.job_title, 'spouse', c.spouse,
    'additionalPhones', json(c.additional_phones), 'birthDate', c.birth_date,
    'anniversaryDate', c.anniversary_date, 'socialProfiles', json(c.social_profiles),
    'addresses', json((SELECT json_group_array(json_object(
        'id', a.id, 'customerId', a.customer_id, 'label', a.label, 'name', a.name, 'phone', a.phone,
        'line1', a.line1, 'line2', a.line2, 'city', a.city, 'region', a.region,
        'postalCode', a.postal_code, 'countryCode', a.country_code, 'createdAt', a.created_at,
        'updatedAt', a.updated_at)) FROM (
      SELECT * FROM customer_addresses WHERE customer_id = c.id ORDER BY created_at, id) a)),
    'originLocationId', c.origin_location_id, 'createdAt', c.created_at, 'updatedAt', c.updated_at
  ) AS body FROM customers c WHERE c.id = ?`)

const insertCustomer = db.query(`
  INSERT INTO customers (id, first_name, last_name, email, status, marketing_opt_in,
    additional_phones, social_profiles, created_at, updated_at)
  VALUES ($id, $firstName, $lastName, $email, 'active', 0, '[]', $socialProfiles, $now, $now)`)
const lastAuditHash = db.query<{ hash: string }, []>(
  'SELECT hash FROM audit_entries ORDER BY seq DESC LIMIT 1',
)
const insertAudit = db.query(`
  INSERT INTO audit_entries (id, subject, staff_user_id, tenant_id, location_id, request_id,
    ip_address, user_agent, method, route, action, entity_type, entity_id, metadata, created_at,
    prev_hash, hash)
  VALUES ($id, $subject, $staffUserId, $tenantId, $locationId, $requestId, $ipAddress, $userAgent,
    $method, $route, $action, $entityType, $entityId, $metadata, $createdAt, $prevHash, $hash)`)
const insertOutbox = db.query(`
  INSERT INTO outbox_events (id, object, action, aggregate_id, payload, user, request_id, created_at)
  VALUES ($id, 'customer', 'create', $customerId, $payload, $user, NULL, $now)`)

const socialProfiles = { facebook: null, x: null, instagram: null, linkedin: null }
const genesisHash = '0'.repeat(64)

const createCustomer = db.transaction((input: typeof CreateCustomer.static, principal: Principal) => {
  const now = new Date().toISOString()
  const view: CustomerView = {
    id: Bun.randomUUIDv7(),
    externalRef: null,
    firstName: input.firstName,
    lastName: input.lastName,
    email: input.email,
    phone: null,
    status: 'active',
    tags: [],
    marketingOptIn: false,
    notes: null,
    company: null,
    jobTitle: null,
    spouse: null,
    additionalPhones: [],
    birthDate: null,
    anniversaryDate: null,
    socialProfiles,
    addresses: [],
    originLocationId: null,
    createdAt: now,
    updatedAt: now,
  }
  insertCustomer.run({
    id: view.id,
    firstName: view.firstName,
    lastName: view.lastName,
    email: view.email,
    socialProfiles: JSON.stringify(socialProfiles),
    now,
  })
  // The service's canonical form of an entry: these fields in this order.
  const entry = {
    prevHash: lastAuditHash.get()?.hash ?? genesisHash,
    id: Bun.randomUUIDv7(),
    subject: principal.subject,
    staffUserId: principal.staffUserId,
    tenantId: env.TENANT_ID!,
    locationId: null,
    requestId: null,
    ipAddress: null,
    userAgent: null,
    method: 'POST',
    route: '/customers',
    action: 'customer.create',
    entityType: 'customer',
    entityId: view.id,
    metadata: { customer: view },
    createdAt: now,
  }
  const hash = new Bun.CryptoHasher('sha256').update(JSON.stringify(Object.values(entry))).digest('hex')
  insertAudit.run({ ...entry, metadata: JSON.stringify(entry.metadata), hash })
  insertOutbox.run({
    id: Bun.randomUUIDv7(),
    customerId: view.id,
    payload: JSON.stringify(view),
    user: principal.staffUserId,
    now,
  })
  return view
})

const problem = (status: number, title: string) =>
  new Response(JSON.stringify({ type: 'about:blank', title, status }), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  })

const listOrders = orderPage(db)

const app = new Elysia()
  .resolve(({ headers }) => ({ principal: principals.get(headers.authorization ?? '') }))
  .onBeforeHandle(({ principal }) => {
    if (!principal) return problem(401, 'Unknown bearer token')
  })
  .get(
    '/customers/:id',
    ({ params }) => {
      const row = customerJson.get(params.id)
      return row ? (JSON.parse(row.body) as CustomerView) : problem(404, 'Customer not found')
    },
    { response: Customer },
  )
  .get('/order', ({ query }) => listOrders(Math.min(Math.max(Number(query.limit ?? 50) || 50, 1), 200)))
  .post(
    '/customers',
    ({ body, principal, set }) => {
      try {
        const view = createCustomer.immediate(body, principal!)
        set.status = 201
        return view
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE')
          return problem(409, 'A customer with this email already exists')
        throw error
      }
    },
    { body: CreateCustomer, response: { 201: Customer } },
  )
  .listen({ port: Number(env.PORT ?? 0), hostname: env.HOST ?? '127.0.0.1' })

console.log(JSON.stringify({ listening: `http://127.0.0.1:${app.server!.port}`, port: app.server!.port }))
