import { t } from 'elysia'
import { pageTotalSchema, pagingQuery } from '../../platform/foundation/paging'
import { int } from '../../platform/foundation/types'
import { MAX_QUANTITY } from './model'

const id = (description?: string) => t.String({ minLength: 1, maxLength: 200, description })
const kind = t.Union([t.Literal('menu_item'), t.Literal('prep')], {
  description:
    '`menu_item`: what one sale of `productId` uses (depleted when an order is submitted). `prep`: a batch that produces `outputIngredientId`.',
})

export const RecipeComponent = t.Object({
  id: t.String({ format: 'uuid' }),
  ingredientId: t.String(),
  quantity: int({ minimum: 1 }),
})

export const Recipe = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    kind,
    title: t.String(),
    productId: t.Nullable(t.String()),
    outputIngredientId: t.Nullable(t.String()),
    yieldQuantity: int({ minimum: 1 }),
    active: t.Boolean(),
    note: t.Nullable(t.String()),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
    components: t.Array(RecipeComponent),
  },
  { $id: '#/components/schemas/Recipe' },
)

const componentsInput = t.Array(
  t.Object(
    {
      ingredientId: id('An active ingredient; each at most once per recipe.'),
      quantity: int({
        minimum: 1,
        maximum: MAX_QUANTITY,
        description: 'Base units per batch of yieldQuantity.',
      }),
    },
    { additionalProperties: false },
  ),
  { minItems: 1, maxItems: 200 },
)

const yieldQuantity = int({
  minimum: 1,
  maximum: MAX_QUANTITY,
  description:
    'Portions (menu_item) or base units of the output ingredient (prep) one batch of the components makes.',
})

export const CreateRecipe = t.Object(
  {
    kind,
    title: t.String({ minLength: 1, maxLength: 200 }),
    yieldQuantity,
    components: componentsInput,
    productId: t.Optional(
      t.Nullable(
        id(
          'Required for menu_item (a product of this tenant, 400 otherwise), refused for prep. One active recipe per product; the product cannot be deleted while the recipe is active.',
        ),
      ),
    ),
    outputIngredientId: t.Optional(
      t.Nullable(
        id(
          'Required for prep, refused for menu_item; not one of the components. One active recipe per output.',
        ),
      ),
    ),
    note: t.Optional(t.Nullable(t.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
)

export const UpdateRecipe = t.Object(
  {
    title: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    yieldQuantity: t.Optional(yieldQuantity),
    components: t.Optional(componentsInput),
    productId: t.Optional(id()),
    outputIngredientId: t.Optional(id()),
    note: t.Optional(t.Nullable(t.String({ maxLength: 2000 }))),
  },
  {
    additionalProperties: false,
    description:
      'Partial update; `components`, when sent, replaces the whole list. `kind` cannot change. Depletions already recorded are not touched.',
  },
)

export const RecipeListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over the title.' })),
  kind: t.Optional(kind),
  active: t.Optional(t.Boolean()),
  productId: t.Optional(id()),
  ingredientId: t.Optional(id('Recipes that use this ingredient as a component.')),
  ...pagingQuery(100),
})

export const RecipeList = t.Object({ recipes: t.Array(Recipe), page: pageTotalSchema })

export const RecipeCost = t.Object({
  recipeId: t.String(),
  yieldQuantity: int(),
  complete: t.Boolean({ description: 'False when a component has no weighted-average cost yet.' }),
  totalCost: int({ description: 'Sum of the costed components, minor units, for one batch.' }),
  costPerYieldUnit: int({ description: 'totalCost / yieldQuantity, rounded half up.' }),
  components: t.Array(
    t.Object({
      ingredientId: t.String(),
      code: t.String(),
      name: t.String(),
      quantity: int(),
      unitCost: t.Nullable(int({ description: 'The ingredient’s current weighted-average unit cost.' })),
      cost: t.Nullable(int({ description: 'quantity × unitCost.' })),
    }),
  ),
  missingCostIngredientIds: t.Array(t.String()),
})

export type CreateRecipeInput = typeof CreateRecipe.static
export type UpdateRecipeInput = typeof UpdateRecipe.static
