// A customer's tags are Manual customer tags attached through the tags family's assignments
// (the single source of truth); the Customer's `tags` field is derived from them.
import { asc, eq } from 'drizzle-orm'
import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import type { Actor } from '../../platform/foundation/actor'
import { invalid } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import {
  attachTag,
  detachTag,
  findTagOf,
  moveAssignments,
  objectTypes,
  registerDynamicSource,
  registerTaggable,
  tagsFor,
} from '../tags'
import { AttachCustomerTag, Customer, CustomerParams, CustomerTagParams, type CustomerView } from './model'
import { registerCustomerReferenceMover } from './references'
import { customerAddresses, customers } from './schema'
import { getCustomer, resolveCustomerId, touchCustomer } from './service'

// Tags attach to live customers only (another tenant's id is not in this database, so 404).
registerTaggable(
  'customer',
  (db, id) => db.select({ id: customers.id }).from(customers).where(eq(customers.id, id)).get() !== undefined,
)
// Dynamic customer tags test the customer's own fields and those of its first address; orders
// and club memberships add their counts (their hooks).
registerDynamicSource('customer', {
  ids: (db) =>
    db
      .select({ id: customers.id })
      .from(customers)
      .all()
      .map((r) => r.id),
  present: (db, id) => {
    const row = db.select().from(customers).where(eq(customers.id, id)).get()
    if (!row) return undefined
    const address = db
      .select()
      .from(customerAddresses)
      .where(eq(customerAddresses.customerId, id))
      .orderBy(asc(customerAddresses.createdAt), asc(customerAddresses.id))
      .get()
    const { city, region, postalCode, countryCode } = address ?? {}
    return { ...row, city, region, postalCode, countryCode }
  },
  changedBy: (_db, write) => (write.entityType === 'customer' && write.entityId ? [write.entityId] : []),
})
// A merge moves the source's tags to the primary; a tag both carry is kept once.
registerCustomerReferenceMover('tags', (tx, sourceId, primaryId) =>
  moveAssignments(tx, 'customer', sourceId, primaryId),
)

/**
 * Attaches a Manual customer tag. An id that is not a customer tag of the tenant is 400 naming
 * `body/tagId`; a Dynamic one is 409. Attaching a tag the customer already carries changes nothing.
 */
export function attachCustomerTag(db: Db, actor: Actor, id: string, tagId: string): CustomerView {
  return inWriteTransaction(db, (tx) => {
    const customerId = resolveCustomerId(tx, id)
    const tag = findTagOf(tx, objectTypes.customer, tagId)
    if (!tag) throw invalid('body/tagId', `${tagId} is not a customer tag`)
    const before = tagIdsOf(tx, customerId)
    attachTag(db, actor, { objectType: 'customer', objectId: customerId, tagId })
    return before.includes(tagId)
      ? getCustomer(tx, customerId)
      : touchCustomerTags(tx, actor, customerId, before)
  })
}

/** Detaches a tag; 404 when the customer does not carry it. */
export function detachCustomerTag(db: Db, actor: Actor, id: string, tagId: string): CustomerView {
  return inWriteTransaction(db, (tx) => {
    const customerId = resolveCustomerId(tx, id)
    const before = tagIdsOf(tx, customerId)
    detachTag(db, actor, { objectType: 'customer', objectId: customerId, tagId })
    return touchCustomerTags(tx, actor, customerId, before)
  })
}

const tagIdsOf = (db: Queryable, customerId: string) => tagsFor(db, 'customer', customerId).map((t) => t.id)

/** The customer update a tag attachment makes, recorded as a PUT with `tags` records it. */
const touchCustomerTags = (tx: Queryable, actor: Actor, customerId: string, before: string[]) =>
  touchCustomer(tx, actor, customerId, {
    action: 'customer.update',
    metadata: { changes: { tags: { from: before, to: tagIdsOf(tx, customerId) } } },
  })

const aliasNote = 'An id merged away into another customer acts on the primary customer.'

/** `POST /customers/{id}/tags` and `DELETE /customers/{id}/tags/{tagId}`, under both prefixes. */
export const customerTagRoutes = (auth: AuthPlugin, prefix: string) =>
  new Elysia({ name: `customer-tags${prefix}`, prefix, detail: { tags: ['Customers'] } })
    .use(auth)
    .post('/:id/tags', ({ db, actor, params, body }) => attachCustomerTag(db, actor, params.id, body.tagId), {
      permission: 'customers:write',
      params: CustomerParams,
      body: AttachCustomerTag,
      response: Customer,
      detail: {
        summary: 'Attach a tag to a customer',
        description: `Answers the customer with its \`tags\` (\`[{id, title}]\`: the Manual tags attached and the Dynamic tags whose conditions it meets). \`tagId\` must be a Manual customer tag (\`GET /tag/customer\`): another id is 400, a Dynamic tag 409 (Dynamic tags apply by their conditions). Attaching a tag the customer already carries changes nothing. Needs \`customers:write\` (tagging a customer is editing the customer; \`tags:write\` manages the tags themselves). The attachment is audited (\`tag.attach\` and \`customer.update\`) and emits \`tag.attach\` and \`customer.update\`. ${aliasNote}`,
      },
    })
    .delete(
      '/:id/tags/:tagId',
      ({ db, actor, params }) => detachCustomerTag(db, actor, params.id, params.tagId),
      {
        permission: 'customers:write',
        params: CustomerTagParams,
        response: Customer,
        detail: {
          summary: 'Detach a tag from a customer',
          description: `Answers the customer without the tag. 404 when the customer does not carry it; 409 for a Dynamic tag (its conditions decide). Audited (\`tag.detach\` and \`customer.update\`); emits \`tag.detach\` and \`customer.update\`. ${aliasNote}`,
        },
      },
    )
