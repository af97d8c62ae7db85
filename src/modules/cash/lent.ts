// What the families built on cash lend it (src/platform/lending.ts). Payments record drawer
// entries: they give a drawer's closeout the payments of its shift.
import { lendingDesk } from '../../platform/lending'
import type { Queryable } from '../../platform/tenancy/transaction'

/** What a closeout needs of a payment; amounts in cents. */
export interface ShiftPayment {
  id: string
  orderId: string
  status: string
  capturedAmount: number
  refundedAmount: number
  tipAmount: number
  refundedTipAmount: number
}

export interface LentToCash {
  /**
   * payments: the payments of a drawer's shift: those of its orders taken in the span, any still
   * awaiting capture, and any taken through the drawer; oldest first.
   */
  paymentsOfShift(
    db: Queryable,
    shift: { drawerId: string; orderIds: string[]; from: string; to: string },
  ): ShiftPayment[]
}

const desk = lendingDesk<LentToCash>('cash')
export const lendToCash = desk.lend
export const lentToCash = desk.part
