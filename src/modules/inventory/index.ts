import { t } from 'elysia'
import { family } from '../../platform/family'
import * as model from './model'
import { Ingredient, IngredientStock, InventoryMovement, StockChange } from './model'
import * as recipeModel from './recipe-model'
import { Recipe } from './recipe-model'
import { inventoryRoutes } from './routes'

export const inventoryFamily = family({
  name: 'inventory',
  tags: {
    Inventory: 'Ingredients, stock per location, receiving, waste, counts and recipes.',
  },
  models: { inventory: model, inventoryRecipe: recipeModel },
  events: [
    {
      object: 'ingredient',
      readPermission: 'inventory:read',
      actions: ['create', 'update', 'deactivate', 'reactivate'],
      emittedBy: '`/inventory/ingredients`',
      payload: 'the ingredient with its stocks',
      schema: Ingredient,
    },
    {
      object: 'ingredient',
      readPermission: 'inventory:read',
      actions: ['receive', 'waste', 'count'],
      emittedBy: 'the receiving, waste and count routes',
      payload: '`{ingredient, stock, movement}`',
      schema: StockChange,
    },
    {
      object: 'ingredient_stock',
      readPermission: 'inventory:read',
      actions: ['update'],
      emittedBy: 'setting a stock’s par and reorder quantities',
      payload: 'the stock',
      schema: IngredientStock,
    },
    {
      object: 'ingredient_stock',
      readPermission: 'inventory:read',
      actions: ['low'],
      emittedBy: 'a movement that takes on-hand from at or above par to below it',
      payload: '`{ingredientId, code, name, stock}`',
      schema: t.Object({
        ingredientId: t.String(),
        code: t.String(),
        name: t.String(),
        stock: IngredientStock,
      }),
    },
    {
      object: 'recipe',
      readPermission: 'inventory:read',
      actions: ['create', 'update', 'deactivate', 'reactivate'],
      emittedBy: '`/inventory/recipes`',
      payload: 'the recipe with its components',
      schema: Recipe,
    },
    {
      object: 'inventory',
      readPermission: 'inventory:read',
      actions: ['deplete', 'deplete_reversal'],
      emittedBy: 'submitting an order, voiding it or its lines (`aggregateId` is the order)',
      payload: '`{orderId, movements}`',
      schema: t.Object({ orderId: t.String(), movements: t.Array(InventoryMovement) }),
    },
  ],
  routes: (platform) => [inventoryRoutes(platform.auth)],
})

// What the other families may use.
export { depleteForOrderLines, reverseOrderDepletion } from './depletion'
