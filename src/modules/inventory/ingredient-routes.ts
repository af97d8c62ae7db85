import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import {
  createIngredient,
  getIngredient,
  listIngredients,
  setIngredientActive,
  updateIngredient,
} from './ingredients'
import {
  CreateIngredient,
  costNote,
  IdParams,
  Ingredient,
  IngredientList,
  IngredientListQuery,
  quantityNote,
  UpdateIngredient,
} from './model'

export const ingredientRoutes = (auth: AuthPlugin) =>
  new Elysia({
    name: 'inventory-ingredients',
    prefix: '/inventory/ingredients',
    detail: { tags: ['Inventory'] },
  })
    .use(auth)
    .get('', ({ db, query, locations }) => listIngredients(db, { ...query, ...pageOf(query) }, locations), {
      permission: 'inventory:read',
      query: IngredientListQuery,
      response: IngredientList,
      detail: {
        summary: 'List ingredients',
        description:
          'Ordered by name. `q` matches code, name or description; `active` filters; `locationId` narrows each item’s `stocks` to that location (an unknown location is 400). `stocks` hold only the locations the request reaches.',
      },
    })
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createIngredient(db, actor, body)
      },
      {
        permission: 'inventory:write',
        body: CreateIngredient,
        response: { 201: Ingredient },
        detail: {
          summary: 'Create an ingredient',
          description: `A duplicate \`code\` (case-insensitive) is 409; \`vendorId\` must be an active vendor of the tenant (400). ${quantityNote} ${costNote}`,
        },
      },
    )
    .get('/:id', ({ db, params, locations }) => getIngredient(db, params.id, locations), {
      permission: 'inventory:read',
      params: IdParams,
      response: Ingredient,
      detail: {
        summary: 'Get an ingredient',
        description: 'With its `stocks` per location, at the locations the request reaches.',
      },
    })
    .put(
      '/:id',
      ({ db, actor, locations, params, body }) => updateIngredient(db, actor, locations, params.id, body),
      {
        permission: 'inventory:write',
        params: IdParams,
        body: UpdateIngredient,
        response: Ingredient,
        detail: {
          summary: 'Update an ingredient',
          description:
            'Partial: fields not sent keep their value. Costs and stock change only through receivings, waste, counts and sales. Changing `baseUnit` once movements exist is 409.',
        },
      },
    )
    .post(
      '/:id/deactivate',
      ({ db, actor, locations, params }) => setIngredientActive(db, actor, locations, params.id, false),
      {
        permission: 'inventory:write',
        params: IdParams,
        response: Ingredient,
        detail: {
          summary: 'Deactivate an ingredient',
          description:
            'Inactive ingredients keep their stock and history, cannot be received or added to recipes, and can still be wasted or counted. Refused (409, naming the recipes) while an active recipe uses or produces it. Idempotent.',
        },
      },
    )
    .post(
      '/:id/reactivate',
      ({ db, actor, locations, params }) => setIngredientActive(db, actor, locations, params.id, true),
      {
        permission: 'inventory:write',
        params: IdParams,
        response: Ingredient,
        detail: { summary: 'Reactivate an ingredient', description: 'Idempotent.' },
      },
    )
