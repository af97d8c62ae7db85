// Ingredient inventory and recipes under /inventory: one plugin composing the three route groups.
import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { ingredientRoutes } from './ingredient-routes'
import { recipeRoutes } from './recipe-routes'
import { stockRoutes } from './stock-routes'

export const inventoryRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'inventory' }).use(ingredientRoutes(auth)).use(stockRoutes(auth)).use(recipeRoutes(auth))
