import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { IdParams } from './model'
import { CreateRecipe, Recipe, RecipeCost, RecipeList, RecipeListQuery, UpdateRecipe } from './recipe-model'
import { createRecipe, getRecipe, listRecipes, recipeCost, setRecipeActive, updateRecipe } from './recipes'

export const recipeRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'inventory-recipes', prefix: '/inventory/recipes', detail: { tags: ['Inventory'] } })
    .use(auth)
    .get('', ({ db, query }) => listRecipes(db, { ...query, ...pageOf(query) }), {
      permission: 'inventory:read',
      query: RecipeListQuery,
      response: RecipeList,
      detail: { summary: 'List recipes', description: 'Ordered by title; filters combine.' },
    })
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createRecipe(db, actor, body)
      },
      {
        permission: 'inventory:write',
        body: CreateRecipe,
        response: { 201: Recipe },
        detail: {
          summary: 'Create a recipe',
          description:
            'Components must be active ingredients of the tenant, each listed once (400 naming every offending component). A `menu_item` recipe names its `productId`; a `prep` recipe names its `outputIngredientId`. A product or output that already has an active recipe is 409.',
        },
      },
    )
    .get('/:id', ({ db, params }) => getRecipe(db, params.id), {
      permission: 'inventory:read',
      params: IdParams,
      response: Recipe,
      detail: { summary: 'Get a recipe' },
    })
    .put('/:id', ({ db, actor, params, body }) => updateRecipe(db, actor, params.id, body), {
      permission: 'inventory:write',
      params: IdParams,
      body: UpdateRecipe,
      response: Recipe,
      detail: { summary: 'Update a recipe', description: 'The same rules as create apply to the result.' },
    })
    .post('/:id/deactivate', ({ db, actor, params }) => setRecipeActive(db, actor, params.id, false), {
      permission: 'inventory:write',
      params: IdParams,
      response: Recipe,
      detail: {
        summary: 'Deactivate a recipe',
        description: 'Sales of its product stop depleting stock. Idempotent.',
      },
    })
    .post('/:id/reactivate', ({ db, actor, params }) => setRecipeActive(db, actor, params.id, true), {
      permission: 'inventory:write',
      params: IdParams,
      response: Recipe,
      detail: {
        summary: 'Reactivate a recipe',
        description:
          'Refused (409) when another active recipe now holds its product or output, and (400) when a component has been deactivated. Idempotent.',
      },
    })
    .get('/:id/cost', ({ db, params }) => recipeCost(db, params.id), {
      permission: 'inventory:read',
      params: IdParams,
      response: RecipeCost,
      detail: {
        summary: 'Theoretical cost of a recipe',
        description:
          'One batch at the components’ current weighted-average unit costs: each component costs quantity × unitCost; `costPerYieldUnit` is the total over `yieldQuantity`, rounded half up. Components with no cost yet are listed in `missingCostIngredientIds` and left out of the total (`complete` false).',
      },
    })
