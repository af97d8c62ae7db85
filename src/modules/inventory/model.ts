// TypeBox schemas of ingredients, stock and movements. Recipes are in recipe-model.ts.

import { t } from 'elysia'
import { pageTotalSchema, pagingQuery } from '../../platform/foundation/paging'
import { int, money } from '../../platform/foundation/types'

// Enumerations are spelled as unions of literals, not t.UnionEnum: Elysia gives that a hidden
// `default` of its first value, which turns an omitted query filter into a filter on that value.
export const movementType = t.Union([
  t.Literal('receiving'),
  t.Literal('waste'),
  t.Literal('count'),
  t.Literal('sale'),
  t.Literal('sale_reversal'),
])

export const MAX_QUANTITY = 1_000_000_000

export const quantityNote =
  'Quantities are integers in the ingredient’s `baseUnit` (choose a unit fine enough to count in whole numbers: `g`, `ml`, `each`).'
export const costNote =
  'Costs are integer minor currency units (cents) per base unit. The weighted-average unit cost is kept per ingredient over every location: a receiving of q units at cost c onto Q units on hand at average a sets it to (a·Q + c·q) / (Q + q), rounded half up to a whole minor unit; with nothing on hand (or stock below zero, or no average yet) it becomes c. Waste, sales and counts are costed at the current average and leave it unchanged.'

const id = (description?: string) => t.String({ minLength: 1, maxLength: 200, description })
const optionalText = (max: number, description?: string) =>
  t.Optional(t.Nullable(t.String({ maxLength: max, description })))
const quantity = (description: string) => int({ minimum: 1, maximum: MAX_QUANTITY, description })
const level = (description: string) =>
  t.Optional(t.Nullable(int({ minimum: 0, maximum: MAX_QUANTITY, description })))

export const IngredientStock = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    ingredientId: t.String(),
    locationId: t.String(),
    onHandQuantity: int({ description: 'Sum of the movement deltas; may be below zero after sales.' }),
    parQuantity: t.Nullable(int()),
    reorderQuantity: t.Nullable(int()),
    lastCountedAt: t.Nullable(t.String({ format: 'date-time' })),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/IngredientStock' },
)

export const Ingredient = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    code: t.String(),
    name: t.String(),
    description: t.Nullable(t.String()),
    baseUnit: t.String(),
    purchaseUnit: t.Nullable(t.String()),
    purchaseUnitQuantity: int({ minimum: 1 }),
    latestUnitCost: t.Nullable(int({ description: 'Unit cost of the latest receiving.' })),
    weightedAverageUnitCost: t.Nullable(int({ description: costNote })),
    vendorId: t.Nullable(t.String()),
    active: t.Boolean(),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
    stocks: t.Array(IngredientStock, {
      description: 'One entry per location where the ingredient has been stocked, counted or given levels.',
    }),
  },
  { $id: '#/components/schemas/Ingredient' },
)

export const InventoryMovement = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    ingredientId: t.String(),
    locationId: t.String(),
    movementType,
    quantityDelta: int(),
    unitCost: t.Nullable(int({ description: 'Null when the ingredient had no cost yet.' })),
    totalCost: t.Nullable(int({ description: 'quantityDelta × unitCost; negative for outflows.' })),
    reason: t.Nullable(t.String()),
    referenceType: t.Nullable(t.String()),
    referenceId: t.Nullable(t.String()),
    referenceLineId: t.Nullable(t.String()),
    reversesMovementId: t.Nullable(t.String()),
    note: t.Nullable(t.String()),
    occurredAt: t.String({ format: 'date-time' }),
    resultingOnHandQuantity: int(),
    createdAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/InventoryMovement' },
)

const unitText = (description: string) => t.String({ minLength: 1, maxLength: 32, description })

const ingredientFields = {
  description: optionalText(2000),
  purchaseUnit: t.Optional(t.Nullable(unitText('The unit bought in, e.g. `case`.'))),
  purchaseUnitQuantity: t.Optional(
    int({
      minimum: 1,
      maximum: MAX_QUANTITY,
      description: 'Base units per purchase unit (default 1).',
    }),
  ),
  vendorId: t.Optional(t.Nullable(id('An active vendor of the tenant.'))),
}

export const CreateIngredient = t.Object(
  {
    code: t.String({
      minLength: 1,
      maxLength: 64,
      description: 'Unique within the tenant, case-insensitive.',
    }),
    name: t.String({ minLength: 1, maxLength: 200 }),
    baseUnit: unitText('The unit quantities are counted in, e.g. `g`, `ml`, `each`.'),
    ...ingredientFields,
  },
  { additionalProperties: false },
)

export const UpdateIngredient = t.Object(
  {
    code: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    baseUnit: t.Optional(unitText('Refused (409) once the ingredient has movements.')),
    ...ingredientFields,
  },
  { additionalProperties: false, description: 'Partial update: only the fields sent change; null clears.' },
)

export const IngredientListQuery = t.Object({
  q: t.Optional(
    t.String({ maxLength: 200, description: 'Case-insensitive search over code, name and description.' }),
  ),
  locationId: t.Optional(id('Narrow each ingredient’s `stocks` to this location.')),
  active: t.Optional(t.Boolean()),
  ...pagingQuery(100),
})

export const IngredientList = t.Object({ items: t.Array(Ingredient), page: pageTotalSchema })

export const IdParams = t.Object({ id: id() })
export const StockParams = t.Object({ id: id(), locationId: id() })

export const Receiving = t.Object(
  {
    locationId: id(),
    quantity: quantity('Base units received.'),
    unitCost: money({ description: 'Minor units per base unit.' }),
    invoiceNumber: t.Optional(
      t.String({ minLength: 1, maxLength: 100, description: 'Recorded as the reference (`invoice`).' }),
    ),
    note: optionalText(2000),
  },
  { additionalProperties: false },
)

export const Waste = t.Object(
  {
    locationId: id(),
    quantity: quantity('Base units wasted; at most the on-hand quantity at the location.'),
    reason: t.Optional(
      t.Union(
        [
          t.Literal('spoiled'),
          t.Literal('expired'),
          t.Literal('damaged'),
          t.Literal('overproduction'),
          t.Literal('mistake'),
          t.Literal('staff_meal'),
          t.Literal('other'),
        ],
        { description: 'Default `other`.' },
      ),
    ),
    note: optionalText(2000),
  },
  { additionalProperties: false },
)

export const Count = t.Object(
  {
    locationId: id(),
    countedQuantity: int({
      minimum: 0,
      maximum: MAX_QUANTITY,
      description: 'Base units found on the shelf.',
    }),
    note: optionalText(2000),
  },
  { additionalProperties: false },
)

export const StockLevels = t.Object(
  {
    parQuantity: level('The level to stock up to; below it the ingredient is low on stock. Null clears.'),
    reorderQuantity: level('The usual quantity to order when low. Null clears.'),
  },
  { additionalProperties: false },
)

export const StockChange = t.Object({
  ingredient: Ingredient,
  stock: IngredientStock,
  movement: InventoryMovement,
})

/** RFC 3339 date-time with an explicit offset (Elysia's own date-time format also lets plain dates through). */
const instant = (description: string) =>
  t.String({
    format: 'date-time',
    pattern: String.raw`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$`,
    description,
  })

export const MovementQuery = t.Object({
  locationId: t.Optional(id()),
  startAt: t.Optional(instant('Inclusive lower bound of `occurredAt` (RFC 3339, with an offset).')),
  endAt: t.Optional(instant('Exclusive upper bound of `occurredAt` (RFC 3339, with an offset).')),
  ...pagingQuery(500),
})

export const MovementList = t.Object({ movements: t.Array(InventoryMovement), page: pageTotalSchema })

export const LowStockQuery = t.Object({ locationId: t.Optional(id()), ...pagingQuery(100) })

export const LowStockItem = t.Object({
  ingredientId: t.String(),
  code: t.String(),
  name: t.String(),
  baseUnit: t.String(),
  purchaseUnit: t.Nullable(t.String()),
  vendorId: t.Nullable(t.String()),
  stock: IngredientStock,
  shortfallQuantity: int({ description: 'parQuantity − onHandQuantity.' }),
  suggestedOrderQuantity: int({
    description: 'reorderQuantity when set and at least the shortfall, else the shortfall; in base units.',
  }),
  suggestedPurchaseUnits: int({ description: 'suggestedOrderQuantity in purchase units, rounded up.' }),
})

export const LowStockList = t.Object({ items: t.Array(LowStockItem), page: pageTotalSchema })

export const idempotencyHeaders = t.Object({
  'idempotency-key': t.Optional(
    t.String({
      minLength: 8,
      maxLength: 180,
      description: 'Replays the first response for a retried request.',
    }),
  ),
})

export type CreateIngredientInput = typeof CreateIngredient.static
export type UpdateIngredientInput = typeof UpdateIngredient.static
export type ReceivingInput = typeof Receiving.static
export type WasteInput = typeof Waste.static
export type CountInput = typeof Count.static
export type StockLevelsInput = typeof StockLevels.static
