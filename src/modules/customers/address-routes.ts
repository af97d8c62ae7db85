import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { createAddress, deleteAddress, listAddresses, updateAddress } from './addresses'
import { Address, AddressList, AddressParams, CreateAddress, CustomerParams, UpdateAddress } from './model'

/** A customer's addresses, under `/customers/{id}` and `/customer/{id}`. */
export const addressRoutes = (auth: AuthPlugin, prefix: string) =>
  new Elysia({ name: `customer-addresses${prefix}`, prefix, detail: { tags: ['Customers'] } })
    .use(auth)
    .get('/:id/addresses', ({ db, params }) => listAddresses(db, params.id), {
      permission: 'customers:read',
      params: CustomerParams,
      response: AddressList,
      detail: { summary: 'List a customer’s addresses', description: 'In the order they were added.' },
    })
    .post(
      '/:id/addresses',
      ({ db, actor, params, body, set }) => {
        set.status = 201
        return createAddress(db, actor, params.id, body)
      },
      {
        permission: 'customers:write',
        params: CustomerParams,
        body: CreateAddress,
        response: { 201: Address },
        detail: {
          summary: 'Add an address',
          description: '`countryCode` must be an ISO 3166-1 alpha-2 code (stored upper case).',
        },
      },
    )
    .put(
      '/:id/addresses/:addressId',
      ({ db, actor, params, body }) => updateAddress(db, actor, params.id, params.addressId, body),
      {
        permission: 'customers:write',
        params: AddressParams,
        body: UpdateAddress,
        response: Address,
        detail: { summary: 'Update an address', description: 'Partial: fields not sent keep their value.' },
      },
    )
    .delete(
      '/:id/addresses/:addressId',
      ({ db, actor, params }) => deleteAddress(db, actor, params.id, params.addressId),
      {
        permission: 'customers:write',
        params: AddressParams,
        response: Address,
        detail: {
          summary: 'Delete an address',
          description:
            'Answers the deleted address. Refused (409) while a club membership bills or ships to it.',
        },
      },
    )
