// Every family the walk knows, one file each (see ../family.ts for how to add one).
import type { WalkFamily } from '../family'
import { giftCards } from './gift-cards'
import { laborShifts } from './labor-shifts'
import { media } from './media'
import { offPremiseOrders } from './off-premise-orders'
import { offPremiseSettings } from './off-premise-settings'
import { orders } from './orders'
import { payments } from './payments'
import { shipping } from './shipping'

export const families: WalkFamily[] = [
  laborShifts,
  media,
  giftCards,
  orders,
  payments,
  offPremiseOrders,
  offPremiseSettings,
  shipping,
]
