// Every model file of the modules, so the OpenAPI document can name the schemas it finds by the
// names the code gives them (`Vendor`, `CashDrawer`, `DeadLetterDetail`). A test fails when a
// model file is missing here.
import * as apps from './apps/model'
import * as auditEntries from './audit-entries/model'
import * as backups from './backups/model'
import * as cash from './cash/model'
import * as clubMemberships from './club-memberships/model'
import * as clubReleases from './club-releases/model'
import * as clubs from './clubs/model'
import * as cluster from './cluster/model'
import * as collections from './collections/model'
import * as coupons from './coupons/model'
import * as credentials from './credentials/model'
import * as customers from './customers/model'
import * as era from './era/model'
import * as experiences from './experiences/model'
import * as giftCards from './gift-cards/model'
import * as inventory from './inventory/model'
import * as inventoryRecipe from './inventory/recipe-model'
import * as labor from './labor/model'
import * as legacyReservations from './legacy-reservations/model'
import * as legacyReservationsTypes from './legacy-reservations/model-types'
import * as locations from './locations/model'
import * as media from './media/model'
import * as notes from './notes/model'
import * as offPremise from './off-premise/model'
import * as offPremiseOrder from './off-premise/order-model'
import * as orders from './orders/model'
import * as ordersLines from './orders/model-lines'
import * as ordersOffPremise from './orders/model-off-premise'
import * as partners from './partners/model'
import * as passcodeSessions from './passcode-sessions/model'
import * as payments from './payments/model'
import * as products from './products/model'
import * as shipping from './shipping/model'
import * as staff from './staff/model'
import * as tablesMeta from './tables-meta/model'
import * as tablesReservations from './tables-reservations/model'
import * as tags from './tags/model'
import * as taxes from './taxes/model'
import * as tenants from './tenants/model'
import * as vendors from './vendors/model'
import * as webhooks from './webhooks/model'
import * as wineLists from './wine-lists/model'

export const modelFiles = {
  apps,
  auditEntries,
  backups,
  cash,
  clubMemberships,
  clubReleases,
  clubs,
  cluster,
  collections,
  coupons,
  credentials,
  customers,
  era,
  experiences,
  giftCards,
  inventory,
  inventoryRecipe,
  labor,
  legacyReservationsTypes,
  legacyReservations,
  locations,
  media,
  notes,
  offPremise,
  offPremiseOrder,
  ordersLines,
  ordersOffPremise,
  orders,
  partners,
  passcodeSessions,
  payments,
  products,
  shipping,
  staff,
  tablesMeta,
  tablesReservations,
  tags,
  taxes,
  tenants,
  vendors,
  webhooks,
  wineLists,
}
