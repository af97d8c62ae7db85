import { t } from 'elysia'
import { calendarDate } from '../../platform/foundation/dates'
import { pagingQuery } from '../../platform/foundation/paging'
import { int, money, oneOf } from '../../platform/foundation/types'
import { deliveryMethods, releaseStatuses, shipmentStatuses } from './schema'

const id = t.String({ minLength: 1, maxLength: 200 })

const ReleaseItem = t.Object({
  productVariantId: t.String(),
  sku: t.String(),
  title: t.String(),
  quantity: int({ minimum: 1 }),
  price: t.Nullable(int({ minimum: 0, description: 'Release price of one unit; null: the catalog price.' })),
  unitPrice: int({ minimum: 0, description: 'What one unit costs today: `price`, else the catalog price.' }),
})

const StatusAmount = t.Object({ count: int({ minimum: 0 }), amount: int({ minimum: 0 }) })

export const ClubRelease = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    clubId: t.String(),
    title: t.String(),
    status: oneOf(releaseStatuses, {
      description:
        '`Planning` (editable) → `Active` (processed on `processDate`) → `Archived` (never charged again).',
    }),
    processDate: t.String({ format: 'date' }),
    shipDate: t.Nullable(t.String({ format: 'date' })),
    items: t.Array(ReleaseItem),
    deliveryMethods: t.Array(oneOf(deliveryMethods)),
    totals: t.Object(
      {
        quantity: int({ minimum: 0, description: 'Bottles (units) per member.' }),
        subtotal: int({
          minimum: 0,
          description: 'Σ unitPrice × quantity, before member discounts, shipping and tax.',
        }),
      },
      { description: 'What one member’s shipment holds.' },
    ),
    summary: t.Object(
      {
        Pending: StatusAmount,
        Processed: StatusAmount,
        Declined: StatusAmount,
        Skipped: StatusAmount,
        OnHold: StatusAmount,
      },
      { description: 'Shipments so far by status: how many, and the cents of their orders.' },
    ),
    activatedAt: t.Nullable(t.String({ format: 'date-time' })),
    archivedAt: t.Nullable(t.String({ format: 'date-time' })),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  {
    $id: '#/components/schemas/ClubRelease',
    examples: [
      {
        id: '0193b2c4-5a00-7000-8000-000000000001',
        clubId: '0193b2c4-2a00-7000-8000-000000000001',
        title: 'Spring 2026 release',
        status: 'Active',
        processDate: '2026-03-15',
        shipDate: '2026-03-20',
        items: [
          {
            productVariantId: '0193b2c4-1a00-7000-8000-000000000001',
            sku: 'PINOT-2022',
            title: 'Pinot Noir 2022 750ml',
            quantity: 2,
            price: null,
            unitPrice: 4500,
          },
        ],
        deliveryMethods: ['Ship', 'Pickup'],
        totals: { quantity: 2, subtotal: 9000 },
        summary: {
          Pending: { count: 0, amount: 0 },
          Processed: { count: 41, amount: 412_300 },
          Declined: { count: 2, amount: 20_110 },
          Skipped: { count: 3, amount: 0 },
          OnHold: { count: 1, amount: 0 },
        },
        activatedAt: '2026-03-01T17:00:00.000Z',
        archivedAt: null,
        createdAt: '2026-02-20T17:00:00.000Z',
        updatedAt: '2026-03-01T17:00:00.000Z',
      },
    ],
  },
)

const ItemInput = t.Object(
  {
    productVariantId: t.Optional(id),
    sku: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
    quantity: int({ minimum: 1, maximum: 1000 }),
    price: t.Optional(
      money({ description: 'Release price of one unit in cents; default the catalog price.' }),
    ),
  },
  { additionalProperties: false, description: 'A variant by `productVariantId` or `sku`.' },
)

const releaseFields = {
  shipDate: t.Optional(t.Nullable(calendarDate('When the shipment leaves; informational.'))),
  deliveryMethods: t.Optional(
    t.Array(oneOf(deliveryMethods), {
      minItems: 1,
      maxItems: deliveryMethods.length,
      uniqueItems: true,
      description: 'Which members the release is for, by their delivery method. Default both.',
    }),
  ),
}

const title = t.String({ minLength: 1, maxLength: 200 })
const items = t.Array(ItemInput, { minItems: 1, maxItems: 100 })

const example = {
  title: 'Spring 2026 release',
  processDate: '2026-03-15',
  shipDate: '2026-03-20',
  items: [
    { sku: 'PINOT-2022', quantity: 2 },
    { sku: 'CHARD-2023', quantity: 1, price: 3200 },
  ],
  deliveryMethods: ['Ship', 'Pickup'],
}

export const CreateClubRelease = t.Object(
  {
    title,
    processDate: calendarDate('The tenant’s local date the release is processed on, once Active.'),
    items,
    ...releaseFields,
  },
  { additionalProperties: false, examples: [example] },
)

export const UpdateClubRelease = t.Object(
  {
    title: t.Optional(title),
    processDate: t.Optional(calendarDate()),
    items: t.Optional(items),
    ...releaseFields,
  },
  {
    additionalProperties: false,
    description: 'Partial; only while `Planning`. `items` replaces the whole list.',
    examples: [{ processDate: '2026-03-16', items: [{ sku: 'PINOT-2022', quantity: 3 }] }],
  },
)

export const ClubReleaseListQuery = t.Object({
  status: t.Optional(oneOf(releaseStatuses)),
  ...pagingQuery(100),
})

export const ClubReleaseList = t.Object({ clubReleases: t.Array(ClubRelease), total: int({ minimum: 0 }) })

export const ReleaseClubParams = t.Object({ id })
export const ClubReleaseParams = t.Object({ id, releaseId: id })
export const ClubShipmentParams = t.Object({ id, releaseId: id, shipmentId: id })

export const ClubReleaseRun = t.Object(
  { runId: t.String({ format: 'uuid' }) },
  { examples: [{ runId: '0193b2c4-5d6e-7f80-9a1b-2c3d4e5f6a7b' }] },
)

export const ClubShipment = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    releaseId: t.String(),
    membershipId: t.String(),
    customerId: t.String(),
    orderId: t.Nullable(t.String()),
    status: oneOf(shipmentStatuses),
    reason: t.Nullable(
      t.String({
        description:
          'Why it is not Processed: the provider’s decline message, `no_payment_method`, or why it was skipped or held.',
      }),
    ),
    attempts: int({ minimum: 0, description: 'Charges tried and answered.' }),
    amount: int({ minimum: 0, description: 'The order’s total in cents (0 before an order exists).' }),
    paymentIntentId: t.Nullable(t.String()),
    lastRunId: t.Nullable(t.String()),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  {
    $id: '#/components/schemas/ClubShipment',
    examples: [
      {
        id: '0193b2c4-6a00-7000-8000-000000000001',
        releaseId: '0193b2c4-5a00-7000-8000-000000000001',
        membershipId: '0193b2c4-4a00-7000-8000-000000000001',
        customerId: '0193b2c4-3a00-7000-8000-000000000001',
        orderId: '0193b2c4-7a00-7000-8000-000000000001',
        status: 'Declined',
        reason: 'Your card was declined.',
        attempts: 1,
        amount: 13127,
        paymentIntentId: null,
        lastRunId: '0193b2c4-5d6e-7f80-9a1b-2c3d4e5f6a7b',
        createdAt: '2026-03-15T08:00:01.000Z',
        updatedAt: '2026-03-15T08:00:02.000Z',
      },
    ],
  },
)

export const ClubShipmentListQuery = t.Object({
  status: t.Optional(oneOf(shipmentStatuses)),
  ...pagingQuery(200),
})

export const ClubShipmentList = t.Object({ clubShipments: t.Array(ClubShipment), total: int({ minimum: 0 }) })

export type CreateClubReleaseInput = typeof CreateClubRelease.static
export type UpdateClubReleaseInput = typeof UpdateClubRelease.static
export type ClubReleaseView = typeof ClubRelease.static
export type ClubShipmentView = typeof ClubShipment.static
