import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { addressRoutes } from './address-routes'
import { mergeCustomers } from './merge'
import {
  CreateCustomer,
  Customer,
  CustomerListQuery,
  CustomerPagedList,
  CustomerParams,
  CustomerTotalList,
  MergeCustomers,
  MergeResult,
  UpdateCustomer,
} from './model'
import { paymentMethodRoutes } from './payment-method-routes'
import { detachDeletedCards, type PaymentDeps } from './payment-methods'
import { createCustomer, deleteCustomer, getCustomer, listCustomers, updateCustomer } from './service'
import { customerTagRoutes } from './tags'

const aliasNote = 'An id merged away into another customer answers (and acts on) the primary customer.'

const listDetail = {
  summary: 'List customers',
  description:
    'Ordered by last name, first name. `q` matches first name, last name, full name, email or phone; `locationId` keeps customers created at the location or linked to it by a club membership (orders and reservations join as those families arrive).',
}

/** The routes `/customers` and `/customer` share; only the list envelope differs. */
function customerResource(auth: AuthPlugin, deps: PaymentDeps, prefix: string) {
  return new Elysia({ name: `customers-resource${prefix}`, prefix, detail: { tags: ['Customers'] } })
    .use(auth)
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createCustomer(db, actor, body)
      },
      {
        permission: 'customers:write',
        body: CreateCustomer,
        response: { 201: Customer },
        detail: {
          summary: 'Create a customer',
          description:
            'Email is required and unique within the tenant, case-insensitively (a duplicate is 409 naming the holder). `addresses` may be sent along, and `tags` as a list of Manual customer tag ids (400 naming the index of one that is not); the response shows `tags` as `[{id, title}]`. The customer records `x-location-id` as the location it was created at.',
        },
      },
    )
    .post('/merge', ({ db, actor, body }) => mergeCustomers(db, actor, body), {
      permission: 'customers:merge',
      body: MergeCustomers,
      response: MergeResult,
      detail: {
        summary: 'Merge customers',
        description:
          'In one transaction, everything that points at a source customer (addresses, stored cards, tag assignments, club memberships, orders, notes, gift cards, coupons available to the source, earlier aliases, and what later families register) moves to the primary; a tag both carry is kept once; the primary keeps its own values and takes the sources’ where it has none (the `notes` field appended, phones combined); each source is removed and leaves a CustomerAlias, so `GET /customers/{sourceId}` answers the primary. `confirmation` must be `MERGE`. Memberships move as they are (two live memberships of one club are both kept for staff to review). Merging a customer into itself is 400; a primary or source already merged away is 409; an unknown id (or another tenant’s) is 404.',
      },
    })
    .get('/:id', ({ db, params }) => getCustomer(db, params.id), {
      permission: 'customers:read',
      params: CustomerParams,
      response: Customer,
      detail: { summary: 'Get a customer', description: aliasNote },
    })
    .put('/:id', ({ db, actor, params, body }) => updateCustomer(db, actor, params.id, body), {
      permission: 'customers:write',
      params: CustomerParams,
      body: UpdateCustomer,
      response: Customer,
      detail: {
        summary: 'Update a customer',
        description: `Partial: fields not sent keep their value; \`tags\` (Manual customer tag ids) and \`additionalPhones\` are replaced as a whole, \`socialProfiles\` per profile. ${aliasNote}`,
      },
    })
    .delete(
      '/:id',
      async ({ db, actor, params }) => {
        const { customer, paymentMethods } = deleteCustomer(db, actor, params.id)
        await detachDeletedCards(deps, paymentMethods)
        return customer
      },
      {
        permission: 'customers:write',
        params: CustomerParams,
        response: Customer,
        detail: {
          summary: 'Delete a customer',
          description:
            'Removes the customer with its addresses, tag assignments and stored-card references (the cards are detached at the provider) and answers it. Refused with 409 while club memberships, notes, gift cards or other records still refer to the customer (`references` names the kinds and counts where known): set `status` to `inactive` or merge instead.',
        },
      },
    )
}

const customerLists = (auth: AuthPlugin) =>
  new Elysia({ name: 'customer-lists' })
    .use(
      new Elysia({ name: 'customers-list', prefix: '/customers', detail: { tags: ['Customers'] } })
        .use(auth)
        .get(
          '',
          ({ db, query }) => {
            const { customers, total } = listCustomers(db, { ...query, ...pageOf(query) })
            return { customers, page: { total } }
          },
          {
            permission: 'customers:read',
            query: CustomerListQuery,
            response: CustomerPagedList,
            detail: listDetail,
          },
        ),
    )
    .use(
      new Elysia({ name: 'customer-list', prefix: '/customer', detail: { tags: ['Customers'] } })
        .use(auth)
        .get('', ({ db, query }) => listCustomers(db, { ...query, ...pageOf(query) }), {
          permission: 'customers:read',
          query: CustomerListQuery,
          response: CustomerTotalList,
          detail: listDetail,
        }),
    )

/** Every customer route, under both `/customers` and `/customer`. */
export const customerRoutes = (auth: AuthPlugin, deps: PaymentDeps) =>
  new Elysia({ name: 'customers' })
    .use(customerLists(auth))
    .use(customerResource(auth, deps, '/customers'))
    .use(customerResource(auth, deps, '/customer'))
    .use(addressRoutes(auth, '/customers'))
    .use(addressRoutes(auth, '/customer'))
    .use(paymentMethodRoutes(auth, deps, '/customers'))
    .use(paymentMethodRoutes(auth, deps, '/customer'))
    .use(customerTagRoutes(auth, '/customers'))
    .use(customerTagRoutes(auth, '/customer'))
