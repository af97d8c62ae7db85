import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import type { Actor } from '../../platform/foundation/actor'
import { pageOf } from '../../platform/foundation/paging'
import { idempotentWrite } from '../../platform/http/idempotency'
import type { Db } from '../../platform/tenancy/databases'
import {
  Count,
  costNote,
  IdParams,
  IngredientStock,
  idempotencyHeaders,
  LowStockList,
  LowStockQuery,
  MovementList,
  MovementQuery,
  quantityNote,
  Receiving,
  StockChange,
  StockLevels,
  StockParams,
  Waste,
} from './model'
import { countStock, listLowStock, listMovements, receiveStock, setStockLevels, wasteStock } from './stock'

interface WriteContext {
  db: Db
  actor: Actor
  request: Request
  body: unknown
  headers: Record<string, string | undefined>
  set: { status?: number | string; headers: Record<string, string | number> }
}

/** 201 with the work's result; with an `idempotency-key`, a retry replays the first response. */
function created<T>(ctx: WriteContext, work: () => T): T {
  const key = ctx.headers['idempotency-key']
  if (!key) {
    const result = work()
    ctx.set.status = 201
    return result
  }
  const path = new URL(ctx.request.url).pathname
  const result = idempotentWrite(
    ctx.db,
    ctx.actor,
    { key, method: ctx.request.method, path, body: ctx.body },
    () => ({
      status: 201,
      body: work(),
    }),
  )
  ctx.set.status = result.status
  if (result.replayed) ctx.set.headers['idempotent-replayed'] = 'true'
  return result.body
}

const stockWrite =
  'Result `{ingredient, stock, movement}`. Audited; emits an `ingredient` event. Accepts an `idempotency-key` header.'

export const stockRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'inventory-stock', prefix: '/inventory', detail: { tags: ['Inventory'] } })
    .use(auth)
    .post(
      '/ingredients/:id/receivings',
      (ctx) => created(ctx, () => receiveStock(ctx.db, ctx.actor, ctx.locations, ctx.params.id, ctx.body)),
      {
        permission: 'inventory:write',
        params: IdParams,
        headers: idempotencyHeaders,
        body: Receiving,
        response: { 201: StockChange },
        detail: {
          summary: 'Receive stock',
          description: `Raises on-hand at \`locationId\` by \`quantity\`, sets \`latestUnitCost\` and the weighted average, and records a \`receiving\` movement (reference \`invoice\` when \`invoiceNumber\` is sent). Inactive ingredients are 409. A \`locationId\` the request does not reach (a location-bound caller's other locations, or another than x-location-id) is 403. ${quantityNote} ${costNote} ${stockWrite}`,
        },
      },
    )
    .post(
      '/ingredients/:id/waste',
      (ctx) => created(ctx, () => wasteStock(ctx.db, ctx.actor, ctx.locations, ctx.params.id, ctx.body)),
      {
        permission: 'inventory:write',
        params: IdParams,
        headers: idempotencyHeaders,
        body: Waste,
        response: { 201: StockChange },
        detail: {
          summary: 'Record waste',
          description: `Lowers on-hand at \`locationId\` by \`quantity\`, recorded as a \`waste\` movement with its \`reason\` (default \`other\`) and costed at the weighted average. Waste cannot take stock below zero: more than is on hand at the location is 409 with \`onHandQuantity\` (count first if the shelf holds more). ${stockWrite}`,
        },
      },
    )
    .post(
      '/ingredients/:id/counts',
      (ctx) => created(ctx, () => countStock(ctx.db, ctx.actor, ctx.locations, ctx.params.id, ctx.body)),
      {
        permission: 'inventory:write',
        params: IdParams,
        headers: idempotencyHeaders,
        body: Count,
        response: { 201: StockChange },
        detail: {
          summary: 'Record a physical count',
          description: `Sets on-hand at \`locationId\` to \`countedQuantity\` by recording a \`count\` movement for the difference (a zero-delta movement when the count matched), costed at the weighted average, and sets \`lastCountedAt\`. ${stockWrite}`,
        },
      },
    )
    .put(
      '/ingredients/:id/stocks/:locationId',
      ({ db, actor, params, body }) => setStockLevels(db, actor, params.id, params.locationId, body),
      {
        permission: 'inventory:write',
        params: StockParams,
        body: StockLevels,
        response: IngredientStock,
        detail: {
          summary: 'Set par and reorder levels',
          description:
            'Partial: a level not sent keeps its value, null clears it. Creates the stock row at zero on hand if the ingredient has none at the location. An unknown location is 404. Audited; emits `ingredient_stock.update`. When a later movement takes on-hand from at or above par to below it, an `ingredient_stock.low` event is emitted.',
        },
      },
    )
    .get(
      '/ingredients/:id/movements',
      ({ db, params, query, locations }) =>
        listMovements(db, params.id, { ...query, ...pageOf(query) }, locations),
      {
        permission: 'inventory:read',
        params: IdParams,
        query: MovementQuery,
        response: MovementList,
        detail: {
          summary: 'List stock movements',
          description:
            'Newest first (recording order), at the locations the request reaches. `startAt` is inclusive and `endAt` exclusive on `occurredAt`; `limit` 1..500 (default 50), `page` from 1. The running `resultingOnHandQuantity` of a location is the sum of its deltas up to and including that movement.',
        },
      },
    )
    .get(
      '/low-stock',
      ({ db, query, locations }) => listLowStock(db, { ...query, ...pageOf(query) }, locations),
      {
        permission: 'inventory:read',
        query: LowStockQuery,
        response: LowStockList,
        detail: {
          summary: 'List low stock',
          description:
            'Stocks of active ingredients whose on-hand is below their par level, at `locationId` or every location the request reaches, ordered by ingredient name. `suggestedOrderQuantity` is the larger of the reorder quantity and the shortfall to par.',
        },
      },
    )
