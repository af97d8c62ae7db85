import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { CreateTax, Tax, TaxList, TaxListQuery, TaxParams, UpdateTax } from './model'
import { createTax, deleteTax, getTax, listTaxes, updateTax } from './service'

export const taxRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'taxes', prefix: '/tax', detail: { tags: ['Taxes'] } })
    .use(auth)
    .get(
      '',
      ({ db, query }) =>
        listTaxes(db, {
          q: query.q,
          countryCode: query.countryCode,
          stateCode: query.stateCode,
          ...pageOf(query),
        }),
      {
        permission: 'taxes:read',
        query: TaxListQuery,
        response: TaxList,
        detail: {
          summary: 'List taxes',
          description:
            'Ordered by country, then state (country-wide first). `q` matches the title; `countryCode` and `stateCode` filter.',
        },
      },
    )
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createTax(db, actor, body)
      },
      {
        permission: 'taxes:write',
        body: CreateTax,
        response: { 201: Tax },
        detail: {
          summary: 'Create a tax',
          description:
            'Rates `freight`, `food`, `generalMerchandise` and `wine` are integer basis points (875 = 8.75%), 0..10000. One tax per country and state: a second tax for the same `countryCode`/`stateCode` (or a second country-wide tax) is 409. Orders use the state tax where one exists, else the country-wide one.',
        },
      },
    )
    .get('/:id', ({ db, params }) => getTax(db, params.id), {
      permission: 'taxes:read',
      params: TaxParams,
      response: Tax,
      detail: { summary: 'Get a tax' },
    })
    .put('/:id', ({ db, actor, params, body }) => updateTax(db, actor, params.id, body), {
      permission: 'taxes:write',
      params: TaxParams,
      body: UpdateTax,
      response: Tax,
      detail: {
        summary: 'Update a tax',
        description: 'Partial. Moving a tax to a country/state that already has one is 409.',
      },
    })
    .delete(
      '/:id',
      ({ db, actor, params, set }) => {
        deleteTax(db, actor, params.id)
        set.status = 204
      },
      {
        permission: 'taxes:write',
        params: TaxParams,
        response: { 204: t.Void() },
        detail: { summary: 'Delete a tax', description: 'Answers 204 with no body.' },
      },
    )
