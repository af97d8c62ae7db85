// The event catalogue: every event a webhook subscriber can receive, with the schema of its
// payload (the same model the API answers with). docs/events.md and the OpenAPI `webhooks` are
// rendered from it, and the test harness checks every event the test suite emits against it.
import { type TSchema, t } from 'elysia'
import type { EventCatalogue } from '../platform/events/catalogue'
import { registerEventNames } from '../platform/events/names'
import { App } from './apps/model'
import { CashDrawer, CloseoutSummary, DrawerEntry } from './cash/model'
import { ClubMembership } from './club-memberships/model'
import { ClubRelease, ClubShipment } from './club-releases/model'
import { Club } from './clubs/model'
import { Collection } from './collections/model'
import { Coupon } from './coupons/model'
import { Customer, CustomerAlias, PaymentMethod } from './customers/model'
import { GiftCard, GiftCardSettings, GiftCardTransaction } from './gift-cards/model'
import { Ingredient, IngredientStock, InventoryMovement, StockChange } from './inventory/model'
import { Recipe } from './inventory/recipe-model'
import { JobAssignment, LaborJob, Profile, Shift } from './labor/model'
import { LegacyReservation } from './legacy-reservations/model'
import { MediaAsset } from './media/model'
import { Note } from './notes/model'
import { Channel, OffPremiseSettings } from './off-premise/model'
import { Fulfillment, Order, OrderSettings } from './orders/model'
import { Payment } from './payments/model'
import { Product } from './products/model'
import { ShippingConfiguration } from './shipping/model'
import { TablesReservation } from './tables-reservations/model'
import { Tag } from './tags/model'
import { Tax } from './taxes/model'
import { Vendor } from './vendors/model'

/** A resource with members added for the event. */
const plus = (resource: TSchema, members: Record<string, TSchema>) =>
  t.Intersect([resource, t.Object(members)])

const crud = ['create', 'update', 'delete'] as const
const offPremise = ['staged', 'ready', 'arrived', 'picked_up', 'dispatched', 'delivered'].map(
  (step) => `off_premise_${step}`,
)

export const eventCatalogue: EventCatalogue = [
  { object: 'vendor', actions: crud, emittedBy: '`/vendor`', payload: 'the vendor', schema: Vendor },
  {
    object: 'app',
    actions: [...crud, 'sync'],
    emittedBy: '`/apps` and `POST /apps/{id}/sync`',
    payload: 'the app',
    schema: App,
  },
  {
    object: 'order',
    actions: ['create', 'update', 'submit', 'void', 'close', 'pay', 'refund', ...offPremise],
    emittedBy: '`/order` and its lines, discounts, lifecycle, payments and off-premise routes',
    payload: 'the order',
    schema: Order,
  },
  {
    object: 'order',
    actions: ['fulfill'],
    emittedBy: '`POST /order/{id}/fulfillment`, `.../fulfillment/all`',
    payload: 'the order, plus `fulfillment` (the new one)',
    schema: plus(Order, { fulfillment: Fulfillment }),
  },
  {
    object: 'shipping',
    actions: crud,
    emittedBy: '`/shipping`',
    payload: 'the shipping configuration',
    schema: ShippingConfiguration,
  },
  {
    object: 'off_premise_settings',
    actions: ['update'],
    emittedBy: '`PUT /shipping/off-premise/settings`',
    payload: 'the location’s settings',
    schema: OffPremiseSettings,
  },
  {
    object: 'off_premise_channel',
    actions: ['update'],
    emittedBy: '`POST /shipping/off-premise/channels/{id}/control`; the snooze-expiry job',
    payload: 'the channel',
    schema: Channel,
  },
  {
    object: 'reservation',
    actions: ['create', 'cancel'],
    emittedBy: 'the tables API reservation routes',
    payload: 'the tables reservation',
    schema: TablesReservation,
  },
  {
    object: 'reservation',
    actions: ['create', 'update', 'cancel'],
    emittedBy: '`/reservation`',
    payload: 'the legacy reservation',
    schema: LegacyReservation,
  },
  {
    object: 'reservation',
    actions: ['remind'],
    emittedBy: 'the `legacy-reservations.remind` job, once per reservation due within 24 hours',
    payload: 'the legacy reservation, plus `reminder`: `{status, to?, provider?, messageId?, reason?}`',
    schema: plus(LegacyReservation, {
      reminder: t.Object(
        { status: t.String({ enum: ['sent', 'failed', 'skipped'] }) },
        { additionalProperties: true },
      ),
    }),
  },
  {
    object: 'cash_drawer',
    formerly: { object: 'cash-drawer' },
    actions: ['create', 'assign', 'pause'],
    emittedBy: '`/cash-management/drawers` and its assign and pause routes',
    payload: 'the drawer',
    schema: CashDrawer,
  },
  {
    object: 'cash_drawer',
    formerly: { object: 'cash-drawer' },
    actions: ['entry'],
    emittedBy: '`POST /cash-management/drawers/{id}/entries`; cash payments and refunds',
    payload: 'the drawer, plus `entry` (the new one)',
    schema: plus(CashDrawer, { entry: DrawerEntry }),
  },
  {
    object: 'cash_drawer',
    formerly: { object: 'cash-drawer' },
    actions: ['close'],
    emittedBy: '`POST /cash-management/drawers/{id}/close`',
    payload: 'the drawer, plus `closeoutSummary`',
    schema: plus(CashDrawer, { closeoutSummary: CloseoutSummary }),
  },
  {
    object: 'payment',
    actions: ['capture', 'authorize', 'fail', 'void', 'refund'],
    emittedBy: '`/order/{id}/payments` and its capture, void and refund routes',
    payload: 'the payment, with its refunds',
    schema: Payment,
  },
  {
    object: 'labor_job',
    formerly: { object: 'labor-job' },
    actions: ['create', 'update'],
    emittedBy: '`/labor/jobs`',
    payload: 'the job',
    schema: LaborJob,
  },
  {
    object: 'labor_job_assignment',
    formerly: { object: 'labor-job-assignment' },
    actions: ['create', 'update'],
    emittedBy: '`/labor/job-assignments`',
    payload: 'the assignment',
    schema: JobAssignment,
  },
  {
    object: 'labor_employee',
    formerly: { object: 'labor-employee' },
    actions: ['create', 'update'],
    emittedBy: '`PUT /labor/employees/{staffUserId}/profile`',
    payload: 'the profile',
    schema: Profile,
  },
  {
    object: 'labor_shift',
    formerly: {
      object: 'labor-shift',
      actions: {
        clock_in: 'clock-in',
        break_start: 'break-start',
        break_end: 'break-end',
        clock_out: 'clock-out',
      },
    },
    actions: ['clock_in', 'break_start', 'break_end', 'clock_out'],
    emittedBy: '`/labor/shifts` clock-in, breaks and clock-out',
    payload: 'the shift',
    schema: Shift,
  },
  {
    object: 'media_asset',
    formerly: { object: 'media-asset' },
    actions: ['create', 'complete', 'attach', 'reuse', 'delete', 'restore'],
    emittedBy: '`/media/uploads/direct`, `/media/assets/{id}/...`; the purge of abandoned drafts',
    payload: 'the asset',
    schema: MediaAsset,
  },
  {
    object: 'customer',
    actions: crud,
    emittedBy: '`/customers`, `/customer`, their addresses and tags',
    payload: 'the customer',
    schema: Customer,
  },
  {
    object: 'customer',
    actions: ['merge'],
    emittedBy: '`POST /customers/merge` (one event, on the primary)',
    payload: '`{customer, aliases, moved: {sourceId: {kind: count}}}`',
    schema: t.Object({
      customer: Customer,
      aliases: t.Array(CustomerAlias),
      moved: t.Record(t.String(), t.Record(t.String(), t.Integer())),
    }),
  },
  {
    object: 'customer_payment_method',
    formerly: { object: 'customer-payment-method' },
    actions: ['create', 'delete'],
    emittedBy: '`/customers/{id}/payment-methods` (`aggregateId` is the customer)',
    payload: 'the stored card',
    schema: PaymentMethod,
  },
  { object: 'club', actions: crud, emittedBy: '`/club`, `/clubs`', payload: 'the club', schema: Club },
  {
    object: 'club_membership',
    formerly: { object: 'club-membership' },
    actions: ['create', 'update', 'hold', 'resume', 'cancel', 'process'],
    emittedBy:
      '`/club-membership` and its hold, resume and cancel routes; the hold-release job; a release run that charged it (`process`)',
    payload: 'the membership',
    schema: ClubMembership,
  },
  {
    object: 'club_release',
    formerly: { object: 'club-release', actions: { run_start: 'run-start', run_finish: 'run-finish' } },
    actions: ['create', 'update', 'activate', 'archive', 'process', 'retry', 'run_start', 'run_finish'],
    emittedBy:
      '`/club/{id}/releases`, `/clubs/{id}/releases`, their process and retry routes, the release runs',
    payload: 'the release (items, totals, shipment summary)',
    schema: ClubRelease,
  },
  {
    object: 'club_shipment',
    formerly: { object: 'club-shipment' },
    actions: ['create', 'order', 'process', 'decline', 'skip', 'hold', 'fail'],
    emittedBy: 'a release run',
    payload: 'the shipment',
    schema: ClubShipment,
  },
  {
    object: 'product',
    actions: ['create', 'update'],
    emittedBy: '`/product`',
    payload: 'the product',
    schema: Product,
  },
  {
    object: 'product',
    actions: ['delete'],
    emittedBy: '`DELETE /product/{id}`',
    payload: 'the product as deleted, plus `removedFromCollectionIds`',
    schema: plus(Product, { removedFromCollectionIds: t.Array(t.String()) }),
  },
  {
    object: 'collection',
    actions: crud,
    emittedBy: '`/collection`, `/collections`',
    payload: 'the collection',
    schema: Collection,
  },
  {
    object: 'coupon',
    actions: crud,
    emittedBy: '`/coupon`, `/coupons`',
    payload: 'the coupon',
    schema: Coupon,
  },
  { object: 'tag', actions: crud, emittedBy: '`/tag/{objectType}`', payload: 'the tag', schema: Tag },
  {
    object: 'tag',
    actions: ['attach', 'detach'],
    emittedBy: 'tagging customers, club memberships and orders (`aggregateId` is the tag)',
    payload: '`{tagId, title, objectType, objectId}`',
    schema: t.Object({ tagId: t.String(), title: t.String(), objectType: t.String(), objectId: t.String() }),
  },
  { object: 'note', actions: crud, emittedBy: '`/note`', payload: 'the note', schema: Note },
  { object: 'tax', actions: crud, emittedBy: '`/tax`', payload: 'the tax', schema: Tax },
  {
    object: 'gift_card',
    actions: ['create', 'update', 'open', 'disable', 'enable'],
    emittedBy: '`/gift-card` and its opened, disable and enable routes; cards sold on a paid order',
    payload: 'the card',
    schema: GiftCard,
  },
  {
    object: 'gift_card',
    actions: [
      'activate',
      'load',
      'void_load',
      'redeem',
      'void_redeem',
      'adjust',
      'cash_out',
      'expire',
      'merge',
    ],
    emittedBy: 'the ledger routes of `/gift-card`',
    payload: '`{giftCard, transaction}`',
    schema: t.Object({ giftCard: GiftCard, transaction: GiftCardTransaction }),
  },
  {
    object: 'gift_card',
    actions: ['delivery_sent', 'delivery_failed', 'purchaser_notice_sent', 'purchaser_notice_failed'],
    emittedBy: 'the scheduled delivery job',
    payload: '`{giftCard, delivery}`',
    schema: t.Object({ giftCard: GiftCard, delivery: t.Object({}, { additionalProperties: true }) }),
  },
  {
    object: 'gift_card_settings',
    actions: ['update'],
    emittedBy: '`PUT /gift-card/settings`',
    payload: 'the settings',
    schema: GiftCardSettings,
  },
  {
    object: 'order_settings',
    actions: ['update'],
    emittedBy: '`PUT /order-settings`',
    payload: 'the settings',
    schema: OrderSettings,
  },
  {
    object: 'ingredient',
    actions: ['create', 'update', 'deactivate', 'reactivate'],
    emittedBy: '`/inventory/ingredients`',
    payload: 'the ingredient with its stocks',
    schema: Ingredient,
  },
  {
    object: 'ingredient',
    actions: ['receive', 'waste', 'count'],
    emittedBy: 'the receiving, waste and count routes',
    payload: '`{ingredient, stock, movement}`',
    schema: StockChange,
  },
  {
    object: 'ingredient_stock',
    actions: ['update'],
    emittedBy: 'setting a stock’s par and reorder quantities',
    payload: 'the stock',
    schema: IngredientStock,
  },
  {
    object: 'ingredient_stock',
    actions: ['low'],
    emittedBy: 'a movement that takes on-hand from at or above par to below it',
    payload: '`{ingredientId, code, name, stock}`',
    schema: t.Object({
      ingredientId: t.String(),
      code: t.String(),
      name: t.String(),
      stock: IngredientStock,
    }),
  },
  {
    object: 'recipe',
    actions: ['create', 'update', 'deactivate', 'reactivate'],
    emittedBy: '`/inventory/recipes`',
    payload: 'the recipe with its components',
    schema: Recipe,
  },
  {
    object: 'inventory',
    actions: ['deplete', 'deplete_reversal'],
    emittedBy: 'submitting an order, voiding it or its lines (`aggregateId` is the order)',
    payload: '`{orderId, movements}`',
    schema: t.Object({ orderId: t.String(), movements: t.Array(InventoryMovement) }),
  },
]

// Webhook subscriptions made with a former name keep receiving the event under it.
registerEventNames(eventCatalogue)
