// The ceiling's `GET /order?limit=N`: the page of the service's order list (newest first, the
// total count, each order with its lines, discounts, fulfillments and service charges) read with
// raw bun:sqlite statements and decoded by hand, then presented by the service's own
// `presentOrder`, so the JSON is the service's key for key. No scope, filters or response check:
// it is the least work that produces this page, the floor the order-list goal is measured against.
import type { Database } from 'bun:sqlite'
import { getTableColumns, getTableName } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import {
  type OrderDiscountRow,
  type OrderFulfillmentRow,
  type OrderLineRow,
  type OrderRow,
  type OrderServiceChargeRow,
  orderDiscounts,
  orderFulfillments,
  orderLines,
  orderServiceCharges,
  orders,
} from '../../src/modules/orders/schema'
import { presentOrder } from '../../src/modules/orders/view'

/** The table's columns as a select list, and a decoder of `values()` rows into drizzle's row shape. */
function rowsOf<Row>(table: SQLiteTable) {
  const columns = Object.entries(getTableColumns(table)) as [string, SQLiteColumn][]
  const kinds = columns.map(([key, column]) => ({
    key,
    json: column.columnType === 'SQLiteTextJson',
    boolean: column.columnType === 'SQLiteBoolean',
  }))
  const decode = (values: unknown[]): Row => {
    const row: Record<string, unknown> = {}
    for (let i = 0; i < kinds.length; i++) {
      const { key, json, boolean } = kinds[i]!
      const value = values[i]
      row[key] = value === null ? null : json ? JSON.parse(value as string) : boolean ? Boolean(value) : value
    }
    return row as Row
  }
  return {
    list: columns.map(([, column]) => `"${column.name}"`).join(', '),
    table: getTableName(table),
    decode,
  }
}

function groupByOrder<Row extends { orderId: string }>(rows: Row[]): Map<string, Row[]> {
  const byOrder = new Map<string, Row[]>()
  for (const row of rows) {
    const list = byOrder.get(row.orderId)
    if (list) list.push(row)
    else byOrder.set(row.orderId, [row])
  }
  return byOrder
}

export function orderPage(db: Database) {
  const order = rowsOf<OrderRow>(orders)
  const count = db.query<{ n: number }, []>('SELECT count(*) AS n FROM orders')
  const page = db.query(`SELECT ${order.list} FROM orders ORDER BY created_at DESC, id DESC LIMIT ?1`)
  // The children of the page's orders, one statement per child table.
  const children = <Row extends { orderId: string }>(table: SQLiteTable, orderBy: string) => {
    const rows = rowsOf<Row>(table)
    const statement = db.query(
      `SELECT ${rows.list} FROM ${rows.table} WHERE order_id IN (SELECT value FROM json_each(?1)) ORDER BY order_id, ${orderBy}`,
    )
    return (ids: string) => groupByOrder(statement.values(ids).map(rows.decode))
  }
  const lines = children<OrderLineRow>(orderLines, 'position')
  const discounts = children<OrderDiscountRow>(orderDiscounts, 'position')
  const fulfillments = children<OrderFulfillmentRow>(orderFulfillments, 'created_at, id')
  const serviceCharges = children<OrderServiceChargeRow>(orderServiceCharges, 'position')
  return (limit: number) => {
    const total = count.get()!.n
    const rows = page.values(limit).map(order.decode)
    const ids = JSON.stringify(rows.map((row) => row.id))
    const [l, d, f, s] = [lines(ids), discounts(ids), fulfillments(ids), serviceCharges(ids)]
    const presented = rows.map((row) =>
      presentOrder(
        row,
        l.get(row.id) ?? [],
        d.get(row.id) ?? [],
        f.get(row.id) ?? [],
        s.get(row.id) ?? [],
        null,
      ),
    )
    return { orders: presented, total }
  }
}
