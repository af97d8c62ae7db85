import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { locations } from '../locations/schema'
import { vendors } from '../vendors/schema'

/**
 * Quantities are integers in the ingredient's `baseUnit`; costs are integer minor units per base
 * unit. `weightedAverageUnitCost` is tenant-wide (over every location's stock); see costing.ts.
 */
export const ingredients = sqliteTable(
  'ingredients',
  {
    id: text('id').primaryKey(),
    /** Unique within the tenant, case-insensitive. */
    code: text('code').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    baseUnit: text('base_unit').notNull(),
    purchaseUnit: text('purchase_unit'),
    /** Base units in one purchase unit (a case of 12 bottles: 12). */
    purchaseUnitQuantity: integer('purchase_unit_quantity').notNull(),
    latestUnitCost: integer('latest_unit_cost'),
    weightedAverageUnitCost: integer('weighted_average_unit_cost'),
    vendorId: text('vendor_id').references(() => vendors.id, { onDelete: 'set null' }),
    active: integer('active', { mode: 'boolean' }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('ingredients_code_unique').on(sql`lower(${table.code})`),
    index('ingredients_name').on(table.name),
  ],
)

export const ingredientStocks = sqliteTable(
  'ingredient_stocks',
  {
    id: text('id').primaryKey(),
    ingredientId: text('ingredient_id')
      .notNull()
      .references(() => ingredients.id),
    locationId: text('location_id')
      .notNull()
      .references(() => locations.id),
    /** Always the sum of this pair's movement deltas: only applyMovement writes it. */
    onHandQuantity: integer('on_hand_quantity').notNull(),
    parQuantity: integer('par_quantity'),
    reorderQuantity: integer('reorder_quantity'),
    lastCountedAt: text('last_counted_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('ingredient_stocks_pair').on(table.ingredientId, table.locationId),
    index('ingredient_stocks_location').on(table.locationId),
  ],
)

export const movementTypes = ['receiving', 'waste', 'count', 'sale', 'sale_reversal'] as const
export type MovementType = (typeof movementTypes)[number]

/** The append-only stock ledger (a trigger refuses UPDATE and DELETE). */
export const inventoryMovements = sqliteTable(
  'inventory_movements',
  {
    /** Recording order: the running on-hand follows it. */
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    ingredientId: text('ingredient_id')
      .notNull()
      .references(() => ingredients.id),
    locationId: text('location_id')
      .notNull()
      .references(() => locations.id),
    movementType: text('movement_type', { enum: movementTypes }).notNull(),
    quantityDelta: integer('quantity_delta').notNull(),
    /** Minor units per base unit; null when the ingredient has no cost yet. */
    unitCost: integer('unit_cost'),
    /** quantityDelta × unitCost (negative for outflows); null with unitCost. */
    totalCost: integer('total_cost'),
    /** Waste reason (waste movements only). */
    reason: text('reason'),
    referenceType: text('reference_type'),
    referenceId: text('reference_id'),
    /** The order line of a sale or sale reversal. */
    referenceLineId: text('reference_line_id'),
    /** A sale reversal names the sale it reverses; unique, so no sale is reversed twice. */
    reversesMovementId: text('reverses_movement_id').unique(),
    note: text('note'),
    occurredAt: text('occurred_at').notNull(),
    resultingOnHandQuantity: integer('resulting_on_hand_quantity').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (table) => [
    index('inventory_movements_ingredient').on(table.ingredientId, table.locationId, table.occurredAt),
    index('inventory_movements_reference').on(table.referenceType, table.referenceId),
  ],
)

export const recipeKinds = ['menu_item', 'prep'] as const
export type RecipeKind = (typeof recipeKinds)[number]

export const recipes = sqliteTable(
  'recipes',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: recipeKinds }).notNull(),
    title: text('title').notNull(),
    /** menu_item recipes: the product sold. A plain string until products land. */
    productId: text('product_id'),
    /** prep recipes: the ingredient the batch produces. */
    outputIngredientId: text('output_ingredient_id').references(() => ingredients.id),
    yieldQuantity: integer('yield_quantity').notNull(),
    active: integer('active', { mode: 'boolean' }).notNull(),
    note: text('note'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    // One active recipe per product and per prep output, so depletion is unambiguous.
    uniqueIndex('recipes_active_product')
      .on(table.productId)
      .where(sql`${table.active} = 1 AND ${table.productId} IS NOT NULL`),
    uniqueIndex('recipes_active_output')
      .on(table.outputIngredientId)
      .where(sql`${table.active} = 1 AND ${table.outputIngredientId} IS NOT NULL`),
    index('recipes_title').on(table.title),
  ],
)

export const recipeComponents = sqliteTable(
  'recipe_components',
  {
    id: text('id').primaryKey(),
    recipeId: text('recipe_id')
      .notNull()
      .references(() => recipes.id, { onDelete: 'cascade' }),
    ingredientId: text('ingredient_id')
      .notNull()
      .references(() => ingredients.id),
    quantity: integer('quantity').notNull(),
    position: integer('position').notNull(),
  },
  (table) => [
    uniqueIndex('recipe_components_pair').on(table.recipeId, table.ingredientId),
    index('recipe_components_ingredient').on(table.ingredientId),
  ],
)

export type IngredientRow = typeof ingredients.$inferSelect
export type IngredientStockRow = typeof ingredientStocks.$inferSelect
export type InventoryMovementRow = typeof inventoryMovements.$inferSelect
export type RecipeRow = typeof recipes.$inferSelect
export type RecipeComponentRow = typeof recipeComponents.$inferSelect
