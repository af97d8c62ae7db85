// The `offPremise` block a takeout, pickup, curbside or delivery order carries, and its input at
// order creation: the contract between orders, which carry the block, and the off-premise module,
// which fills it (quote, staging, guest messages, pickup or delivery) through what it lends orders
// (others.ts).
// The states are listed here as the contract admits them; the off-premise tables store only
// these (tsc checks the block it presents against this schema).
import { t } from 'elysia'
import { bool, oneOf } from '../../platform/foundation/types'

const text = (max: number, description?: string) => t.String({ minLength: 1, maxLength: max, description })
const optionalText = (max: number, description?: string) => t.Optional(t.Nullable(text(max, description)))
const nullableString = t.Nullable(t.String())
const instant = t.Nullable(t.String({ format: 'date-time' }))
const Person = t.Nullable(t.Object({ staffUserId: t.String(), displayName: t.String() }))

const Curbside = t.Object({
  vehicleMakeModel: nullableString,
  vehicleColor: nullableString,
  instructions: nullableString,
  parkingSpot: nullableString,
  arrivalNote: nullableString,
})

const Notification = t.Object({
  id: t.String({ format: 'uuid' }),
  event: t.String({ description: '`order_ready`, `batch_ready`, `out_for_delivery`, `order_delivered`.' }),
  template: t.String({ description: '`order_ready`, `out_for_delivery`, `order_delivered`.' }),
  channel: t.Union([t.Literal('sms'), t.Literal('email')]),
  status: oneOf(['pending', 'sent', 'failed', 'skipped'] as const, {
    description:
      '`pending` (queued), `sent`, `failed` (the sender refused; `failureReason`), `skipped` (no phone or email to send to).',
  }),
  recipient: nullableString,
  subject: nullableString,
  body: t.String(),
  updatedAt: t.String({ format: 'date-time' }),
  sentAt: instant,
  failureReason: nullableString,
})

export const OffPremiseBlock = t.Object(
  {
    channel: t.Object({
      kind: t.Union([t.Literal('first_party'), t.Literal('third_party')]),
      provider: nullableString,
      channelId: nullableString,
    }),
    customer: t.Object({
      customerId: nullableString,
      firstName: nullableString,
      lastName: nullableString,
      phone: nullableString,
      email: nullableString,
    }),
    quote: t.Object({
      strategy: t.String(),
      quoteTimeApplies: t.Boolean(),
      quotedAt: t.String({ format: 'date-time' }),
      scheduledFor: instant,
      promisedFulfillmentAt: t.String({ format: 'date-time' }),
      takeoutQuoteMinutes: t.Integer(),
      deliveryQuoteMinutes: t.Integer(),
      takeoutThrottlingMinutes: t.Integer(),
      deliveryThrottlingMinutes: t.Integer(),
      throttlingAppliedMinutes: t.Integer(),
      leadTimeHours: t.Integer(),
      minimumLeadTimeSatisfied: t.Boolean(),
      withinConfiguredOrderingHours: t.Boolean(),
      quoteExemptionReason: t.Nullable(t.Literal('third_party_channel')),
    }),
    readyAt: instant,
    staging: t.Object({
      state: oneOf(['pending', 'staged', 'ready'] as const),
      batchId: nullableString,
      batchLabel: nullableString,
      stagingArea: nullableString,
      stagingSlot: nullableString,
      handoffZone: nullableString,
      batchReadyAt: instant,
      stagedAt: instant,
      readyBy: Person,
    }),
    guestMessaging: t.Object({
      enabled: t.Boolean(),
      preferredChannel: t.Union([t.Literal('sms'), t.Literal('email')]),
      lastUpdatedAt: instant,
      notifications: t.Array(Notification),
    }),
    pickup: t.Nullable(
      t.Object({
        kind: t.Union([t.Literal('standard'), t.Literal('curbside')]),
        state: t.Union([
          t.Literal('waiting'),
          t.Literal('ready'),
          t.Literal('arrived'),
          t.Literal('completed'),
        ]),
        stagedAt: instant,
        arrivedAt: instant,
        completedAt: instant,
        curbside: t.Nullable(Curbside),
      }),
    ),
    delivery: t.Nullable(
      t.Object({
        addressId: nullableString,
        addressLabel: nullableString,
        state: t.Union([
          t.Literal('pending'),
          t.Literal('ready_for_dispatch'),
          t.Literal('dispatched'),
          t.Literal('delivered'),
        ]),
        instructions: nullableString,
        deliveryNotes: nullableString,
        stagedAt: instant,
        dispatchedAt: instant,
        deliveredAt: instant,
        dispatchNote: nullableString,
        dispatch: t.Object({
          assignmentMode: t.Union([t.Literal('unassigned'), t.Literal('staff_driver'), t.Literal('courier')]),
          assignedDriver: Person,
          dispatchedBy: Person,
          courierName: nullableString,
          courierPhone: nullableString,
          vehicleLabel: nullableString,
          assignedAt: instant,
        }),
      }),
    ),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  {
    description:
      'Takeout, pickup, curbside and delivery orders: channel, guest, quote, staging, guest messages, pickup or delivery. null for other orders.',
  },
)

const CurbsideInput = t.Object(
  {
    vehicleMakeModel: optionalText(100),
    vehicleColor: optionalText(50),
    instructions: optionalText(500),
    parkingSpot: optionalText(50),
  },
  { additionalProperties: false },
)

export const OffPremiseInput = t.Object(
  {
    channel: t.Optional(
      t.Object(
        {
          kind: oneOf(['first_party', 'third_party'] as const),
          channelId: optionalText(200, 'Required for `third_party`: a channel of the order’s location.'),
        },
        { additionalProperties: false },
      ),
    ),
    customer: t.Optional(
      t.Object(
        {
          customerId: optionalText(200, 'Default the order’s customer.'),
          firstName: optionalText(100),
          lastName: optionalText(100),
          phone: optionalText(50),
          email: t.Optional(t.Nullable(t.String({ format: 'email', maxLength: 320 }))),
        },
        {
          additionalProperties: false,
          description: 'Fields not sent are taken from the customer record, when there is one.',
        },
      ),
    ),
    scheduledFor: t.Optional(
      t.String({ format: 'date-time', description: 'A future instant; absent: as soon as possible.' }),
    ),
    pickup: t.Optional(
      t.Object(
        {
          kind: t.Optional(
            oneOf(['standard', 'curbside'] as const, {
              description: 'Default `curbside` for curbside orders, else `standard`.',
            }),
          ),
          curbside: t.Optional(CurbsideInput),
        },
        { additionalProperties: false, description: 'Not for delivery orders.' },
      ),
    ),
    delivery: t.Optional(
      t.Object(
        {
          addressId: optionalText(200, 'An address of the order’s customer; fills `addressLabel`.'),
          addressLabel: optionalText(500),
          instructions: optionalText(1000),
        },
        { additionalProperties: false, description: 'Only for delivery orders.' },
      ),
    ),
    guestMessaging: t.Optional(
      t.Object(
        {
          enabled: t.Optional(bool({ description: 'Default true.' })),
          preferredChannel: t.Optional(oneOf(['sms', 'email'] as const, { description: 'Default `sms`.' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'For takeout, pickup, curbside and delivery orders only. The quote is computed from the location’s off-premise settings.',
  },
)

export type OffPremiseInputValue = typeof OffPremiseInput.static
export type OffPremiseView = typeof OffPremiseBlock.static
