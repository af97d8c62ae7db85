import type { TenantFixture, TestApp } from '../../../harness'
import { made, type WalkFamily } from '../family'

let codes = 0

const ingredient = (t: TestApp, tenant: TenantFixture) =>
  made(t, tenant, 'POST', '/inventory/ingredients', {
    code: `WALK-${++codes}`,
    name: `Walk ingredient ${codes}`,
    baseUnit: 'g',
  })

/**
 * Ingredients have no location, so their routes (stock writes and movements included, whose path
 * names the ingredient) are walked for tenant isolation only; what a location-bound caller sees
 * of their stocks and movements is proven in tests/modules/inventory/location-scope.test.ts.
 */
export const ingredients: WalkFamily = {
  name: 'inventory ingredients',
  prefixes: ['/inventory/ingredients'],
  located: false,
  async create(t, tenant, locationId) {
    const { id } = await ingredient(t, tenant)
    await made(t, tenant, 'POST', `/inventory/ingredients/${id}/receivings`, {
      locationId,
      quantity: 10,
      unitCost: 2,
    })
    return { id }
  },
}

export const recipes: WalkFamily = {
  name: 'inventory recipes',
  prefixes: ['/inventory/recipes'],
  located: false,
  async create(t, tenant) {
    const [dough, flour] = [await ingredient(t, tenant), await ingredient(t, tenant)]
    const recipe = await made(t, tenant, 'POST', '/inventory/recipes', {
      kind: 'prep',
      title: 'Dough',
      outputIngredientId: dough.id,
      yieldQuantity: 1000,
      components: [{ ingredientId: flour.id, quantity: 600 }],
    })
    return { id: recipe.id }
  },
}

/** Stocks below par, one per call: the located part of inventory that has a list of its own. */
export const lowStock: WalkFamily = {
  name: 'inventory stock',
  prefixes: ['/inventory/low-stock'],
  located: true,
  async create(t, tenant, locationId) {
    const short = await ingredient(t, tenant)
    const stock = await made(t, tenant, 'PUT', `/inventory/ingredients/${short.id}/stocks/${locationId}`, {
      parQuantity: 10,
    })
    return { stockId: stock.id }
  },
}
