// Every family the walk knows, one file each (see ../family.ts for how to add one).
import type { WalkFamily } from '../family'
import { apps } from './apps'
import { cashDrawers } from './cash-drawers'
import { clubMemberships } from './club-memberships'
import { clubReleases } from './club-releases'
import { clubs } from './clubs'
import { collections } from './collections'
import { coupons } from './coupons'
import { credentials } from './credentials'
import { customers } from './customers'
import { eraReports } from './era-reports'
import { experiences } from './experiences'
import { giftCards } from './gift-cards'
import { imports } from './imports'
import { ingredients, lowStock, recipes } from './inventory'
import { laborEmployees, laborJobAssignments, laborJobs } from './labor'
import { laborShifts } from './labor-shifts'
import { legacyReservations } from './legacy-reservations'
import { locations } from './locations'
import { media } from './media'
import { notes } from './notes'
import { offPremiseOrders } from './off-premise-orders'
import { offPremiseSettings } from './off-premise-settings'
import { orders } from './orders'
import { partnerRestaurants } from './partner-restaurants'
import { payments } from './payments'
import { products } from './products'
import { reservationTypes } from './reservation-types'
import { shipping } from './shipping'
import { staffUsers } from './staff-users'
import { tablesReservations } from './tables-reservations'
import { tablesWebhooks } from './tables-webhooks'
import { tags } from './tags'
import { taxes } from './taxes'
import { vendors } from './vendors'
import { webhookDeadLetters, webhooks } from './webhooks'
import { wineAppellations, wineVarietals } from './wine-lists'

export const families: WalkFamily[] = [
  locations,
  laborShifts,
  media,
  staffUsers,
  vendors,
  customers,
  clubs,
  clubMemberships,
  clubReleases,
  products,
  wineAppellations,
  wineVarietals,
  collections,
  tags,
  notes,
  taxes,
  coupons,
  giftCards,
  shipping,
  apps,
  webhooks,
  webhookDeadLetters,
  tablesWebhooks,
  credentials,
  imports,
  partnerRestaurants,
  ...eraReports,
  orders,
  payments,
  offPremiseOrders,
  offPremiseSettings,
  cashDrawers,
  ingredients,
  recipes,
  lowStock,
  laborJobs,
  laborJobAssignments,
  laborEmployees,
  experiences,
  tablesReservations,
  legacyReservations,
  reservationTypes,
]
