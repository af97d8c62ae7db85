// TypeBox schemas of the bodies of the off-premise fulfilment actions. The `offPremise` block of
// an order and its input at creation are the orders module's (orders/model-off-premise.ts).
import { t } from 'elysia'

const text = (max: number, description?: string) => t.String({ minLength: 1, maxLength: max, description })
const optionalText = (max: number, description?: string) => t.Optional(t.Nullable(text(max, description)))
export const StageBody = t.Object(
  {
    stagingArea: optionalText(100),
    stagingSlot: optionalText(100),
    handoffZone: optionalText(100),
    batchId: optionalText(100, 'Groups orders made ready together; needs `batchReadyEnabled`.'),
    batchLabel: optionalText(200),
  },
  { additionalProperties: false },
)

export const EmptyBody = t.Object({}, { additionalProperties: false })

export const ArriveBody = t.Object(
  {
    vehicleMakeModel: optionalText(100),
    vehicleColor: optionalText(50),
    parkingSpot: optionalText(50),
    arrivalNote: optionalText(500),
  },
  { additionalProperties: false },
)

export const DispatchBody = t.Object(
  {
    driverStaffUserId: optionalText(200, 'A staff driver: an active staff user. Or give `courierName`.'),
    courierName: optionalText(200),
    courierPhone: optionalText(50),
    vehicleLabel: optionalText(100),
    dispatchNote: optionalText(1000),
  },
  { additionalProperties: false },
)

export const DeliverBody = t.Object({ deliveryNotes: optionalText(1000) }, { additionalProperties: false })

export type StageInput = typeof StageBody.static
export type ArriveInput = typeof ArriveBody.static
export type DispatchInput = typeof DispatchBody.static
