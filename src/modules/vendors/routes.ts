import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { CreateVendor, UpdateVendor, Vendor, VendorList, VendorListQuery, VendorParams } from './model'
import { createVendor, deleteVendor, getVendor, listVendors, updateVendor } from './service'

export const vendorRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'vendors', prefix: '/vendor', detail: { tags: ['Vendors'] } })
    .use(auth)
    .get('', ({ db, query }) => listVendors(db, { q: query.q, ...pageOf(query) }), {
      permission: 'vendors:read',
      query: VendorListQuery,
      response: VendorList,
      detail: { summary: 'List vendors', description: 'Ordered by name; `q` matches name, code or email.' },
    })
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createVendor(db, actor, body)
      },
      {
        permission: 'vendors:write',
        body: CreateVendor,
        response: { 201: Vendor },
        detail: { summary: 'Create a vendor', description: 'A duplicate `code` is 409.' },
      },
    )
    .get('/:id', ({ db, params }) => getVendor(db, params.id), {
      permission: 'vendors:read',
      params: VendorParams,
      response: Vendor,
      detail: { summary: 'Get a vendor' },
    })
    .put('/:id', ({ db, actor, params, body }) => updateVendor(db, actor, params.id, body), {
      permission: 'vendors:write',
      params: VendorParams,
      body: UpdateVendor,
      response: Vendor,
      detail: { summary: 'Update a vendor', description: 'Partial: fields not sent keep their value.' },
    })
    .delete('/:id', ({ db, actor, params }) => deleteVendor(db, actor, params.id), {
      permission: 'vendors:write',
      params: VendorParams,
      response: Vendor,
      detail: { summary: 'Delete a vendor', description: 'Answers the deleted vendor.' },
    })
