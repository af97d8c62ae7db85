// Demo data: a believable tasting room, made through the services like real data (so every record
// has its audit entry and outbox event), with a past. The cast, catalog and club are set up
// DEMO_WEEKS weeks ago; then every day each location opens a drawer, rings up orders paid in cash
// (now and then with a gift card) and closes out; today's drawers are still open, and guests have
// booked the tasting experience for the coming week. The clock is pinned (`asOf`) to each moment,
// so dates, business days and reports look lived in. Deterministic: the same every time.
// Webhook subscriptions are made disabled, so a demo never calls anyone.

import { everyLocation } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { todayIn, zonedInstant } from '../../platform/foundation/dates'
import { asOf, nowIso } from '../../platform/foundation/ids'
import type { Db } from '../../platform/tenancy/databases'
import type { Tenant } from '../../platform/tenancy/tenants'
import { closeDrawer, createDrawer, getDrawerRow } from '../cash'
import { createMembership } from '../club-memberships'
import { createRelease } from '../club-releases'
import { createClub } from '../clubs'
import { createCollection } from '../collections'
import { createCoupon } from '../coupons'
import { createCustomer } from '../customers'
import {
  addDays,
  bookableExperiences,
  createExperience,
  occurrencesOn,
  publishExperience,
} from '../experiences'
import { createGiftCard, getGiftCardRow } from '../gift-cards'
import { createAssignment, createJob } from '../labor'
import type { LocationRow } from '../locations'
import { createLocation } from '../locations'
import { createNote } from '../notes'
import { closeOrder, createOrder, getOrderRow, putLocationTaxPlace, submitOrder } from '../orders'
import { takeLocalPayment } from '../payments'
import { createProduct } from '../products'
import type { StaffUserRow } from '../staff'
import { createStaffUser } from '../staff'
import { createTablesReservation } from '../tables-reservations'
import { createTag } from '../tags'
import { createTax } from '../taxes'
import { createVendor } from '../vendors'
import { createWebhook } from '../webhooks'
import {
  DEMO_PASSCODE,
  DEMO_WEEKS,
  demoCustomers,
  demoLocations,
  demoOthers,
  demoStaff,
  demoVendors,
  demoWebhooks,
  demoWines,
} from './data'

export interface DemoOwner {
  subject: string
  email: string
  firstName?: string
  lastName?: string
}

/** A small deterministic generator (LCG): the same demo every time. */
function sequence(seed: number) {
  let state = seed
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state % below
  }
}

const emailOf = (first: string, last: string) => `${first}.${last}@example.com`.toLowerCase()

/** The cast and catalog, as of the first demo day. */
function setUp(db: Db, actor: Actor, tenant: Tenant, owner: DemoOwner) {
  const locations = demoLocations.map((spec) =>
    createLocation(db, actor, { ...spec, timezone: tenant.timezone }),
  )
  const ownerRow = createStaffUser(db, actor, {
    email: owner.email,
    firstName: owner.firstName ?? 'Rosa',
    lastName: owner.lastName ?? 'Alvarez',
    subject: owner.subject,
    role: 'owner',
  })
  const staff = demoStaff.map((person) =>
    createStaffUser(db, actor, {
      email: emailOf(person.firstName, person.lastName),
      firstName: person.firstName,
      lastName: person.lastName,
      role: person.role,
      locationId: person.at === null ? undefined : locations[person.at]!.id,
      passcode: DEMO_PASSCODE,
    }),
  )
  createTax(db, actor, {
    title: 'California',
    countryCode: 'US',
    stateCode: 'CA',
    freight: 0,
    food: 775,
    generalMerchandise: 775,
    wine: 775,
    taxCalculation: 'Added',
  })
  for (const location of locations)
    putLocationTaxPlace(db, actor, location.id, { countryCode: 'US', stateCode: 'CA' })
  for (const vendor of demoVendors) createVendor(db, actor, vendor)
  const [vip, local] = ['VIP', 'Local'].map((title) => createTag(db, actor, 'customer', { title }).id)

  const stock = locations.map((location) => ({
    inventoryLocationId: location.id,
    availableForSaleCount: 144,
  }))
  const wines = demoWines.map((wine) =>
    createProduct(db, actor, {
      title: wine.title,
      type: 'Wine',
      variants: [
        {
          title: '750 ml',
          sku: wine.sku,
          price: wine.price,
          costOfGood: wine.cost,
          volumeInML: 750,
          bottleDeposit: 10,
          inventory: stock,
        },
        {
          title: 'Magnum 1.5 l',
          sku: `${wine.sku}-MAG`,
          price: wine.price * 2 + 1500,
          costOfGood: wine.cost * 2,
          volumeInML: 1500,
          bottleDeposit: 25,
          inventory: stock,
        },
      ],
    }),
  )
  for (const other of demoOthers)
    createProduct(db, actor, {
      title: other.title,
      type: other.type,
      variants: [{ title: 'Each', sku: other.sku, price: other.price, costOfGood: other.cost }],
    })
  createCollection(db, actor, { title: 'Red Wines', productIds: [wines[0]!.id, wines[2]!.id] })
  createCoupon(db, actor, { title: 'Welcome, new member', code: 'WELCOME10' })

  const customers = demoCustomers.map(([firstName, lastName], i) =>
    createCustomer(db, actor, {
      firstName,
      lastName,
      email: emailOf(firstName, lastName),
      tags: i < 3 ? [vip!] : i % 2 === 0 ? [local!] : [],
      addresses: [
        {
          label: 'billing',
          name: `${firstName} ${lastName}`,
          line1: `${100 + i * 7} Vineyard Lane`,
          city: 'Napa',
          region: 'CA',
          postalCode: '94558',
          countryCode: 'US',
        },
      ],
    }),
  )
  const club = createClub(db, actor, { title: 'Estate Club', slug: 'estate-club' })
  const today = todayIn(tenant.timezone, new Date(nowIso()))
  for (const customer of customers.slice(0, 5))
    createMembership(
      db,
      actor,
      { customerId: customer.id, clubId: club.id, orderDeliveryMethod: 'Pickup' },
      today,
    )
  // Being planned, to process after the demo's present: never charged by the demo itself.
  createRelease(db, actor, club.id, {
    title: 'Spring Release',
    processDate: addDays(today, DEMO_WEEKS * 7 + 14),
    items: [
      { sku: 'PIN21', quantity: 2 },
      { sku: 'CAB21', quantity: 1 },
    ],
  })
  createNote(db, actor, everyLocation, {
    content: 'Prefers the Pinot; celebrating an anniversary in the spring.',
    noteDate: today,
    customerId: customers[0]!.id,
  })
  const giftCards = [5000, 10000, 7500].map((amount, i) =>
    createGiftCard(db, actor, {
      title: 'Estate gift card',
      type: 'Virtual',
      code: `DEMO-GIFT-${1001 + i}`,
      initialAmount: amount,
      originLocationId: locations[0]!.id,
      activate: true,
    }),
  )
  for (const hook of demoWebhooks)
    createWebhook(db, actor, { ...hook, enabled: false }, { allowPrivateTargets: false })
  const host = createJob(db, actor, everyLocation, { title: 'Tasting Room Host', defaultWageAmount: 2400 })
  for (const person of staff.filter((_, i) => demoStaff[i]!.role === 'staff'))
    createAssignment(db, actor, everyLocation, {
      staffUserId: person.id,
      laborJobId: host.id,
      locationId: locations[demoStaff[staff.indexOf(person)]!.at ?? 0]!.id,
    })
  const experience = createExperience(db, actor, { name: 'Estate Tasting', locationId: locations[0]!.id })
  publishExperience(db, actor, experience.id, {
    publicName: 'Estate Tasting',
    partyMin: 1,
    partyMax: 8,
    cutoffMinutes: 60,
    durationMinutes: 90,
    schedule: [
      {
        daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
        times: ['11:00', '14:00'],
        capacity: 16,
        priceAmount: 4500,
        paymentOption: 'pay_at_venue',
      },
    ],
  })
  return { locations, owner: ownerRow, staff, customers, giftCards, experienceId: experience.id }
}

type Cast = ReturnType<typeof setUp>

/** One location's day: a drawer opened at ten, orders rung up, a closeout at eight. */
function tradingDay(db: Db, actor: Actor, cast: Cast, deps: DayDeps, day: string, at: number) {
  const location: LocationRow = cast.locations[at]!
  const manager = cast.staff.find((_, i) => demoStaff[i]!.role === 'manager' && demoStaff[i]!.at === at)!
  const servers = cast.staff.filter((_, i) => demoStaff[i]!.role === 'staff' && demoStaff[i]!.at === at)
  const as = (person: StaffUserRow): Actor => ({ ...actor, staffUserId: person.id, locationId: location.id })
  const when = (time: string) => zonedInstant(day, time, deps.timeZone)
  const drawer = asOf(when('10:00'), () =>
    createDrawer(db, as(manager), {
      locationId: location.id,
      label: 'Bar',
      startingBalance: 20_000,
      assignedStaffUserId: servers[0]!.id,
    }),
  )
  for (const time of ['12:30', '15:15', '18:00']) {
    asOf(when(time), () => {
      const server = servers[deps.pick(servers.length)]!
      const wine = demoWines[deps.pick(demoWines.length)]!
      const lineItems = [
        { sku: deps.pick(4) === 0 ? `${wine.sku}-MAG` : wine.sku, quantity: 1 + deps.pick(3) },
      ]
      if (deps.pick(3) === 0)
        lineItems.push({ sku: demoOthers[deps.pick(demoOthers.length)]!.sku, quantity: 1 })
      const customer = deps.pick(2) === 0 ? cast.customers[deps.pick(cast.customers.length)] : undefined
      const order = createOrder(db, as(server), {
        locationId: location.id,
        customerId: customer?.id,
        lineItems,
      })
      submitOrder(db, as(server), order.id)
      const due = getOrderRow(db, order.id).balanceDue
      const card = cast.giftCards[deps.pick(12)]
      if (card && getGiftCardRow(db, card.id).currentBalance >= due)
        takeLocalPayment(db, as(server), everyLocation, order.id, {
          tender: 'gift_card',
          amount: due,
          giftCardId: card.id,
        })
      else
        takeLocalPayment(db, as(server), everyLocation, order.id, {
          tender: 'cash',
          amount: due,
          tipAmount: deps.pick(2) === 0 ? 500 : 0,
          amountTendered: Math.ceil((due + 500) / 2000) * 2000,
          drawerId: drawer.id,
        })
      closeOrder(db, as(server), order.id)
    })
  }
  asOf(when('20:00'), () =>
    closeDrawer(db, as(manager), drawer.id, { actualBalance: getDrawerRow(db, drawer.id).expectedBalance }),
  )
}

interface DayDeps {
  timeZone: string
  pick: (below: number) => number
}

/**
 * Fills a new tenant's database with the demo tasting room; answers its first location and the
 * owner (mapped to `owner.subject`), as an empty tenant's creation does.
 */
export function seedDemo(
  db: Db,
  operatorActor: Actor,
  tenant: Tenant,
  owner: DemoOwner,
): { location: LocationRow; owner: StaffUserRow } {
  const actor: Actor = { ...operatorActor, subject: 'system:demo' }
  const timeZone = tenant.timezone
  const today = todayIn(timeZone)
  const firstDay = addDays(today, -DEMO_WEEKS * 7)
  const cast = asOf(zonedInstant(firstDay, '08:00', timeZone), () => setUp(db, actor, tenant, owner))
  const deps: DayDeps = {
    timeZone,
    pick: sequence(7),
  }
  for (let day = firstDay; day < today; day = addDays(day, 1))
    for (const at of [0, 1]) tradingDay(db, actor, cast, deps, day, at)
  for (const location of cast.locations)
    createDrawer(
      db,
      { ...actor, locationId: location.id },
      { locationId: location.id, label: 'Bar', startingBalance: 20_000 },
    )
  bookTheComingWeek(db, actor, cast, deps, today)
  return { location: cast.locations[0]!, owner: cast.owner }
}

/** Guests (the demo customers) booked on the coming days, at the first location. */
function bookTheComingWeek(db: Db, actor: Actor, cast: Cast, deps: DayDeps, today: string) {
  const [{ version }] = bookableExperiences(db, { experienceId: cast.experienceId }) as [
    ReturnType<typeof bookableExperiences>[number],
  ]
  const now = Date.now()
  for (let offset = 1; offset <= 7; offset++) {
    for (const slot of occurrencesOn(version, addDays(today, offset), deps.timeZone)) {
      if (deps.pick(3) === 0 || Date.parse(slot.startsAt) <= now) continue
      const guest = cast.customers[deps.pick(cast.customers.length)]!
      const partySize = 2 + deps.pick(4)
      createTablesReservation(
        db,
        actor,
        cast.locations[0]!.id,
        {
          experienceId: cast.experienceId,
          experienceVersionId: version.id,
          locationId: cast.locations[0]!.id,
          startsAt: slot.startsAt,
          partySize,
          currency: slot.currency,
          subtotalAmount: slot.priceAmount * partySize,
          taxAmount: 0,
          totalAmount: slot.priceAmount * partySize,
          paymentOption: slot.paymentOption,
        },
        { name: `${guest.firstName} ${guest.lastName}`, email: guest.email },
      )
    }
  }
}
