// Recipes: menu items (what a sale of a product uses) and prep batches (what making an
// ingredient uses); their validation, listing and theoretical cost.
import { and, asc, count, eq, exists, inArray, ne, type SQL, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { ApiError, conflict, type FieldError, notFound } from '../../platform/foundation/problem'
import { divideHalfUp } from '../../platform/foundation/rounding'
import type { Db } from '../../platform/tenancy/databases'
import { rowById } from '../../platform/tenancy/row-by-id'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findProductRow, registerProductDeleteGuard } from '../products'
import type { CreateRecipeInput, UpdateRecipeInput } from './recipe-model'
import {
  ingredients,
  type RecipeComponentRow,
  type RecipeKind,
  type RecipeRow,
  recipeComponents,
  recipes,
} from './schema'

// A product an active menu-item recipe depletes for cannot be deleted (409 naming the recipe):
// deactivate the recipe first. Inactive recipes keep the id as history; reactivating one whose
// product is gone is 400.
registerProductDeleteGuard('recipes', (tx, productId) => {
  const recipe = tx
    .select({ id: recipes.id, title: recipes.title })
    .from(recipes)
    .where(and(eq(recipes.productId, productId), eq(recipes.active, true)))
    .get()
  if (recipe)
    throw conflict(
      `product ${productId} is used by the active recipe "${recipe.title}"; deactivate the recipe first`,
      { recipe },
    )
})

export type Recipe = RecipeRow & { components: Omit<RecipeComponentRow, 'recipeId' | 'position'>[] }

function componentsOf(db: Queryable, recipeIds: string[]) {
  const byRecipe = new Map<string, Recipe['components']>(recipeIds.map((r) => [r, []]))
  if (recipeIds.length === 0) return byRecipe
  const rows = db
    .select()
    .from(recipeComponents)
    .where(inArray(recipeComponents.recipeId, recipeIds))
    .orderBy(asc(recipeComponents.position))
    .all()
  for (const { recipeId, position: _p, ...component } of rows) byRecipe.get(recipeId)?.push(component)
  return byRecipe
}

export function getRecipeRow(db: Queryable, id: string): RecipeRow {
  const row = rowById(db, recipes, id)
  if (!row) throw notFound('recipe', id)
  return row
}

const withComponents = (db: Queryable, row: RecipeRow): Recipe => ({
  ...row,
  components: componentsOf(db, [row.id]).get(row.id) ?? [],
})

export const getRecipe = (db: Queryable, id: string): Recipe => withComponents(db, getRecipeRow(db, id))

export function listRecipes(
  db: Queryable,
  query: {
    q?: string
    kind?: RecipeKind
    active?: boolean
    productId?: string
    ingredientId?: string
  } & PageRequest,
) {
  const conditions: (SQL | undefined)[] = [searchColumns(query.q, [recipes.title])]
  if (query.kind) conditions.push(eq(recipes.kind, query.kind))
  if (query.active !== undefined) conditions.push(eq(recipes.active, query.active))
  if (query.productId) conditions.push(eq(recipes.productId, query.productId))
  if (query.ingredientId)
    conditions.push(
      exists(
        db
          .select({ one: sql`1` })
          .from(recipeComponents)
          .where(
            and(
              eq(recipeComponents.recipeId, recipes.id),
              eq(recipeComponents.ingredientId, query.ingredientId),
            ),
          ),
      ),
    )
  const where = and(...conditions)
  const total = db.select({ n: count() }).from(recipes).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(recipes)
    .where(where)
    .orderBy(asc(sql`lower(${recipes.title})`), asc(recipes.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  const components = componentsOf(
    db,
    rows.map((r) => r.id),
  )
  return { recipes: rows.map((r) => ({ ...r, components: components.get(r.id) ?? [] })), page: { total } }
}

interface Shape {
  kind: RecipeKind
  productId: string | null
  outputIngredientId: string | null
  components: { ingredientId: string; quantity: number }[]
}

/** Every rule a recipe must meet, reported together as one 400. */
function validate(db: Queryable, shape: Shape, fromUpdate: boolean) {
  const errors: FieldError[] = []
  const err = (path: string, message: string) => errors.push({ path: `body/${path}`, message })
  if (shape.kind === 'menu_item') {
    if (!shape.productId) err('productId', 'a menu_item recipe needs a productId')
    else if (!findProductRow(db, shape.productId)) err('productId', `unknown product "${shape.productId}"`)
    if (shape.outputIngredientId) err('outputIngredientId', 'a menu_item recipe has no outputIngredientId')
  } else {
    if (!shape.outputIngredientId) err('outputIngredientId', 'a prep recipe needs an outputIngredientId')
    if (shape.productId) err('productId', 'a prep recipe has no productId')
  }
  const ids = [...new Set([...shape.components.map((c) => c.ingredientId), shape.outputIngredientId ?? ''])]
  const found = new Map(
    db
      .select({ id: ingredients.id, active: ingredients.active })
      .from(ingredients)
      .where(inArray(ingredients.id, ids))
      .all()
      .map((r) => [r.id, r.active]),
  )
  const seen = new Set<string>()
  shape.components.forEach((c, i) => {
    const path = `components/${i}/ingredientId`
    if (seen.has(c.ingredientId)) err(path, `ingredient "${c.ingredientId}" is listed more than once`)
    seen.add(c.ingredientId)
    if (!found.has(c.ingredientId)) err(path, `unknown ingredient "${c.ingredientId}"`)
    else if (!found.get(c.ingredientId)) err(path, `ingredient "${c.ingredientId}" is inactive`)
    if (c.ingredientId === shape.outputIngredientId) err(path, 'a prep recipe cannot use its own output')
  })
  if (shape.outputIngredientId && !found.has(shape.outputIngredientId))
    err('outputIngredientId', `unknown ingredient "${shape.outputIngredientId}"`)
  if (errors.length > 0)
    throw new ApiError(
      'validation_failed',
      fromUpdate ? 'the recipe update is invalid' : 'the recipe is invalid',
      {
        errors,
      },
    )
}

/** One active recipe per product and per prep output (409 naming the holder). */
function assertTargetFree(db: Queryable, shape: Shape, exceptId?: string) {
  const target = shape.productId
    ? eq(recipes.productId, shape.productId)
    : eq(recipes.outputIngredientId, shape.outputIngredientId ?? '')
  const holder = db
    .select({ id: recipes.id, title: recipes.title })
    .from(recipes)
    .where(and(target, eq(recipes.active, true), exceptId ? ne(recipes.id, exceptId) : undefined))
    .get()
  if (holder) {
    const what = shape.productId ? `product "${shape.productId}"` : `ingredient "${shape.outputIngredientId}"`
    throw conflict(`${what} already has an active recipe`, { recipe: holder })
  }
}

function writeComponents(tx: Queryable, recipeId: string, components: Shape['components']) {
  tx.delete(recipeComponents).where(eq(recipeComponents.recipeId, recipeId)).run()
  tx.insert(recipeComponents)
    .values(
      components.map((c, position) => ({
        id: newId(),
        recipeId,
        ingredientId: c.ingredientId,
        quantity: c.quantity,
        position,
      })),
    )
    .run()
}

export function createRecipe(db: Db, actor: Actor, input: CreateRecipeInput): Recipe {
  const shape: Shape = {
    kind: input.kind,
    productId: input.productId ?? null,
    outputIngredientId: input.outputIngredientId ?? null,
    components: input.components,
  }
  return inWriteTransaction(db, (tx) => {
    validate(tx, shape, false)
    assertTargetFree(tx, shape)
    const now = nowIso()
    const row = tx
      .insert(recipes)
      .values({
        id: newId(),
        kind: input.kind,
        title: input.title,
        productId: shape.productId,
        outputIngredientId: shape.outputIngredientId,
        yieldQuantity: input.yieldQuantity,
        active: true,
        note: input.note ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    writeComponents(tx, row.id, input.components)
    const recipe = withComponents(tx, row)
    recordWrite(tx, actor, {
      action: 'recipe.create',
      entityType: 'recipe',
      entityId: row.id,
      metadata: { recipe },
      event: recipe,
    })
    return recipe
  })
}

const componentKey = (components: { ingredientId: string; quantity: number }[]) =>
  components.map((c) => ({ ingredientId: c.ingredientId, quantity: c.quantity }))

export function updateRecipe(db: Db, actor: Actor, id: string, patch: UpdateRecipeInput): Recipe {
  return inWriteTransaction(db, (tx) => {
    const before = getRecipe(tx, id)
    const { components, ...fields } = patch
    const changes = diffFields(before, fields)
    if (
      components &&
      JSON.stringify(componentKey(components)) !== JSON.stringify(componentKey(before.components))
    )
      changes.components = { from: componentKey(before.components), to: componentKey(components) }
    if (Object.keys(changes).length === 0) return before
    const shape: Shape = {
      kind: before.kind,
      productId: patch.productId ?? before.productId,
      outputIngredientId: patch.outputIngredientId ?? before.outputIngredientId,
      components: components ?? before.components,
    }
    validate(tx, shape, true)
    if (before.active && (changes.productId || changes.outputIngredientId)) assertTargetFree(tx, shape, id)
    const row = tx
      .update(recipes)
      .set({ ...fields, updatedAt: nowIso() })
      .where(eq(recipes.id, id))
      .returning()
      .get()
    if (changes.components) writeComponents(tx, id, shape.components)
    const recipe = withComponents(tx, row)
    recordWrite(tx, actor, {
      action: 'recipe.update',
      entityType: 'recipe',
      entityId: id,
      metadata: { changes },
      event: recipe,
    })
    return recipe
  })
}

/** Reactivating checks the one-active-recipe rule and that the components are still active. */
export function setRecipeActive(db: Db, actor: Actor, id: string, active: boolean): Recipe {
  return inWriteTransaction(db, (tx) => {
    const before = getRecipe(tx, id)
    if (before.active === active) return before
    if (active) {
      const shape: Shape = { ...before }
      validate(tx, shape, true)
      assertTargetFree(tx, shape, id)
    }
    const row = tx
      .update(recipes)
      .set({ active, updatedAt: nowIso() })
      .where(eq(recipes.id, id))
      .returning()
      .get()
    const action = active ? 'reactivate' : 'deactivate'
    const recipe = withComponents(tx, row)
    recordWrite(tx, actor, { action: `recipe.${action}`, entityType: 'recipe', entityId: id, event: recipe })
    return recipe
  })
}

/** Theoretical cost of one batch at the components' current weighted-average costs. */
export function recipeCost(db: Queryable, id: string) {
  const recipe = getRecipe(db, id)
  const costs = new Map(
    db
      .select()
      .from(ingredients)
      .where(
        inArray(
          ingredients.id,
          recipe.components.map((c) => c.ingredientId),
        ),
      )
      .all()
      .map((i) => [i.id, i]),
  )
  let total = 0n
  const missing: string[] = []
  const components = recipe.components.map((c) => {
    const ingredient = costs.get(c.ingredientId)!
    const unitCost = ingredient.weightedAverageUnitCost
    if (unitCost === null) missing.push(c.ingredientId)
    else total += BigInt(c.quantity) * BigInt(unitCost)
    return {
      ingredientId: c.ingredientId,
      code: ingredient.code,
      name: ingredient.name,
      quantity: c.quantity,
      unitCost,
      cost: unitCost === null ? null : c.quantity * unitCost,
    }
  })
  return {
    recipeId: recipe.id,
    yieldQuantity: recipe.yieldQuantity,
    complete: missing.length === 0,
    totalCost: Number(total),
    costPerYieldUnit: Number(divideHalfUp(total, BigInt(recipe.yieldQuantity))),
    components,
    missingCostIngredientIds: missing,
  }
}
