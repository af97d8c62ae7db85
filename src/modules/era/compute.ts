// The four ERA reports, computed from orders and shifts. Every amount is integer cents.
//
// Sales: a line's net sales are its subtotal less its discount (order discounts included, as the
// pricing engine allocated them) less tax included in its price; gross sales are net plus the
// discount. Voided lines count 0 in sales; gift cards sold are a liability, not sales, so their
// lines are left out of sales and item sales. Voids: lines voided after being sent, at what they
// would have cost ((unit price + modifiers) × quantity); a void order is an order voided after it
// was submitted. Guests: an order's seatCount, or 1. Labor: completed shifts by their clock-in
// business date, each counted with the figures the shifts API reports for it (whole paidSeconds and
// breakSeconds, payCents), so a labor cost is the sum of its shifts' payCents and hours and minutes
// come from summed whole seconds. Jobs marked excludeFromLaborSummary stay out of the metrics totals.

import { divideHalfUp } from '../../platform/foundation/rounding'
import { shiftFigures } from '../labor'
import type { OrderLineRow } from '../orders'
import type { EraMetricsRow } from './model'
import { type Period, periodOf, periodsOf } from './periods'
import type { EraReportParams, EraTimeRange } from './schema'
import type { DatedOrder, DatedShift } from './sources'

export interface ReportInput {
  params: EraReportParams
  timeRange: EraTimeRange
  /** The locations reported on, in order. */
  restaurantIds: string[]
  orders: DatedOrder[]
  shifts: DatedShift[]
}

const isSale = (line: OrderLineRow) => !line.voidedAt && !line.giftCardSale

export function lineSales(line: OrderLineRow) {
  if (!isSale(line)) return { gross: 0, discount: 0, net: 0 }
  const includedTax = line.taxCalculation === 'Included' ? line.taxAmount : 0
  const net = line.subtotal - line.discountAmount - includedTax
  return { gross: net + line.discountAmount, discount: line.discountAmount, net }
}

const isVoid = (line: OrderLineRow) => line.voidedAt !== null && line.sentAt !== null
const voidAmount = (line: OrderLineRow) => (line.unitPrice + line.modifierTotal) * line.quantity

/** round(a / b) half-up for non-negative integers; null when b is 0. */
const average = (a: number, b: number) => (b === 0 ? null : Math.floor((2 * a + b) / (2 * b)))
/** Hours to the hundredth (36 s), half-up. */
const hours = (seconds: number) => Number(divideHalfUp(BigInt(seconds), 36n)) / 100

const isCounted = (o: DatedOrder) => o.order.status !== 'voided'

/** Rows are keyed by period (and restaurant, unless the caller groups without RESTAURANT). */
function keyer(input: ReportInput) {
  const byRestaurant = input.params.groupBy.includes('RESTAURANT')
  const { startBusinessDate: start, endBusinessDate: end } = input.params
  return {
    byRestaurant,
    period: (date: string) => periodOf(date, input.timeRange, start, end),
    skeleton: () => {
      const periods = periodsOf(input.timeRange, start, end)
      const restaurants: (string | null)[] = byRestaurant ? input.restaurantIds : [null]
      return periods.flatMap((p) => restaurants.map((r) => ({ restaurantGuid: r, ...p })))
    },
    key: (restaurant: string, p: Period) => `${byRestaurant ? restaurant : '*'}|${p.periodStart}`,
  }
}

export function metricsReport(input: ReportInput): (typeof EraMetricsRow.static)[] {
  const k = keyer(input)
  const rows = new Map(
    k.skeleton().map((base) => [
      `${base.restaurantGuid ?? '*'}|${base.periodStart}`,
      {
        ...base,
        netSalesAmount: 0,
        grossSalesAmount: 0,
        discountAmount: 0,
        taxAmount: 0,
        tipAmount: 0,
        ordersCount: 0,
        guestCount: 0,
        voidOrdersCount: 0,
        voidItemsCount: 0,
        voidAmount: 0,
        hourlyJobTotalSeconds: 0,
        hourlyJobTotalPay: 0,
      },
    ]),
  )
  for (const o of input.orders) {
    const row = rows.get(k.key(o.order.locationId, k.period(o.businessDate)))!
    for (const line of o.lines) {
      if (isVoid(line)) {
        row.voidItemsCount += line.quantity
        row.voidAmount += voidAmount(line)
      }
    }
    if (!isCounted(o)) {
      if (o.order.submittedAt) row.voidOrdersCount++
      continue
    }
    for (const line of o.lines) {
      const sales = lineSales(line)
      row.netSalesAmount += sales.net
      row.grossSalesAmount += sales.gross
      row.discountAmount += sales.discount
    }
    row.taxAmount += o.order.taxTotal
    row.tipAmount += o.order.tipTotal
    row.ordersCount++
    row.guestCount += o.order.seatCount ?? 1
  }
  for (const s of input.shifts) {
    if (s.excludeFromLaborSummary) continue
    const row = rows.get(k.key(s.shift.locationId, k.period(s.shift.businessDate)))!
    const { paidSeconds, payCents } = shiftFigures(s.shift, s.breaks)
    row.hourlyJobTotalSeconds += paidSeconds
    row.hourlyJobTotalPay += payCents
  }
  return [...rows.values()].map(({ hourlyJobTotalSeconds, ...row }) => ({
    ...row,
    avgOrderValue: average(row.netSalesAmount, row.ordersCount),
    avgGuestAmount: average(row.netSalesAmount, row.guestCount),
    hourlyJobTotalHours: hours(hourlyJobTotalSeconds),
    laborCostPercentBps: average(row.hourlyJobTotalPay * 10_000, row.netSalesAmount),
  }))
}

export function checkReport(input: ReportInput) {
  const k = keyer(input)
  return input.orders
    .filter((o) => isCounted(o) || o.order.submittedAt)
    .map((o) => {
      const sales = o.lines.map(lineSales)
      const sum = (pick: (s: ReturnType<typeof lineSales>) => number) =>
        sales.reduce((a, s) => a + pick(s), 0)
      const voids = o.lines.filter(isVoid)
      return {
        restaurantGuid: o.order.locationId,
        ...k.period(o.businessDate),
        businessDate: o.businessDate,
        orderId: o.order.id,
        orderNumber: o.order.orderNumber,
        status: o.order.status,
        voided: o.order.status === 'voided',
        openedAt: o.order.createdAt,
        paidAt: o.order.paidAt,
        closedAt: o.order.closedAt,
        serverStaffUserId: o.order.assignedStaffUserId,
        guestCount: o.order.seatCount ?? 1,
        itemCount: o.lines.filter(isSale).reduce((a, l) => a + l.quantity, 0),
        netSalesAmount: sum((s) => s.net),
        grossSalesAmount: sum((s) => s.gross),
        discountAmount: sum((s) => s.discount),
        taxAmount: o.order.taxTotal,
        tipAmount: o.order.tipTotal,
        totalAmount: o.order.total,
        voidItemsCount: voids.reduce((a, l) => a + l.quantity, 0),
        voidAmount: voids.reduce((a, l) => a + voidAmount(l), 0),
      }
    })
}

export function laborReport(input: ReportInput) {
  const k = keyer(input)
  const byJob = input.params.groupBy.includes('JOB')
  const byEmployee = input.params.groupBy.includes('EMPLOYEE')
  const rows = new Map<
    string,
    {
      restaurantGuid: string | null
      periodStart: string
      periodEnd: string
      laborJobId?: string
      jobTitle?: string
      excludedFromLaborSummary?: boolean
      staffUserId?: string
      shiftsCount: number
      paidSeconds: number
      breakSeconds: number
      laborCost: number
    }
  >()
  for (const s of input.shifts) {
    const p = k.period(s.shift.businessDate)
    const key = [
      k.key(s.shift.locationId, p),
      byJob ? s.shift.laborJobId : '',
      byEmployee ? s.shift.staffUserId : '',
    ].join('|')
    let row = rows.get(key)
    if (!row) {
      row = {
        restaurantGuid: k.byRestaurant ? s.shift.locationId : null,
        ...p,
        ...(byJob
          ? {
              laborJobId: s.shift.laborJobId,
              jobTitle: s.jobTitle,
              excludedFromLaborSummary: s.excludeFromLaborSummary,
            }
          : {}),
        ...(byEmployee ? { staffUserId: s.shift.staffUserId } : {}),
        shiftsCount: 0,
        paidSeconds: 0,
        breakSeconds: 0,
        laborCost: 0,
      }
      rows.set(key, row)
    }
    const figures = shiftFigures(s.shift, s.breaks)
    row.shiftsCount++
    row.paidSeconds += figures.paidSeconds
    row.breakSeconds += figures.breakSeconds
    row.laborCost += figures.payCents
  }
  return [...rows.values()].map(({ paidSeconds, breakSeconds, ...row }) => ({
    ...row,
    regularHours: hours(paidSeconds),
    paidMinutes: Math.floor(paidSeconds / 60),
    unpaidBreakMinutes: Math.floor(breakSeconds / 60),
  }))
}

export function menuReport(input: ReportInput) {
  const k = keyer(input)
  const rows = new Map<
    string,
    {
      restaurantGuid: string | null
      periodStart: string
      periodEnd: string
      productId: string | null
      itemName: string
      salesCategory: string | null
      quantitySold: number
      grossSalesAmount: number
      discountAmount: number
      netSalesAmount: number
      voidItemsCount: number
      voidAmount: number
    }
  >()
  for (const o of input.orders) {
    const p = k.period(o.businessDate)
    for (const line of o.lines) {
      if (line.giftCardSale) continue
      const sold = isCounted(o) && isSale(line)
      if (!sold && !isVoid(line)) continue
      const item = line.productId ?? `open:${line.title}`
      const key = `${k.key(o.order.locationId, p)}|${item}`
      let row = rows.get(key)
      if (!row) {
        row = {
          restaurantGuid: k.byRestaurant ? o.order.locationId : null,
          ...p,
          productId: line.productId,
          itemName: line.title,
          salesCategory: line.salesCategory ?? line.category,
          quantitySold: 0,
          grossSalesAmount: 0,
          discountAmount: 0,
          netSalesAmount: 0,
          voidItemsCount: 0,
          voidAmount: 0,
        }
        rows.set(key, row)
      }
      if (sold) {
        const sales = lineSales(line)
        row.quantitySold += line.quantity
        row.grossSalesAmount += sales.gross
        row.discountAmount += sales.discount
        row.netSalesAmount += sales.net
      } else {
        row.voidItemsCount += line.quantity
        row.voidAmount += voidAmount(line)
      }
    }
  }
  return [...rows.values()].sort(
    (a, b) =>
      a.periodStart.localeCompare(b.periodStart) ||
      (a.restaurantGuid ?? '').localeCompare(b.restaurantGuid ?? '') ||
      b.netSalesAmount - a.netSalesAmount ||
      a.itemName.localeCompare(b.itemName),
  )
}
