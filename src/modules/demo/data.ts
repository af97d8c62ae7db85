// The demo tasting room's cast and catalog: plain data, read by seed.ts.
import type { RoleName } from '../../platform/auth/permissions'

export const demoLocations = [
  {
    name: 'Estate Tasting Room',
    address: {
      addressLine1: '1200 Silverado Trail',
      city: 'Napa',
      stateCode: 'CA',
      postalCode: '94558',
      countryCode: 'US',
      phone: '+1 707 555 0140',
    },
    taxRegion: 'US-CA',
  },
  {
    name: 'Downtown Wine Bar',
    address: {
      addressLine1: '845 Main Street',
      city: 'Napa',
      stateCode: 'CA',
      postalCode: '94559',
      countryCode: 'US',
      phone: '+1 707 555 0199',
    },
    taxRegion: 'US-CA',
  },
] as const

/** Staff in every role: `at` is the index of their location, or null for tenant-wide. */
/** Every demo staff user signs in at the POS with this passcode (`POST /auth/passcode-sessions`). */
export const DEMO_PASSCODE = '1234'

export const demoStaff: { firstName: string; lastName: string; role: RoleName; at: 0 | 1 | null }[] = [
  { firstName: 'Marisol', lastName: 'Vega', role: 'manager', at: 0 },
  { firstName: 'Theo', lastName: 'Brandt', role: 'manager', at: 1 },
  { firstName: 'Priya', lastName: 'Raman', role: 'staff', at: 0 },
  { firstName: 'Jonah', lastName: 'Ellis', role: 'staff', at: 0 },
  { firstName: 'Ines', lastName: 'Okafor', role: 'staff', at: 1 },
  { firstName: 'Walt', lastName: 'Hennessy', role: 'read_only', at: null },
]

/** Wines come as a bottle and a magnum, each with a deposit; the rest in one size. */
export const demoWines = [
  { title: 'Silverado Cabernet Sauvignon 2021', sku: 'CAB21', price: 6800, cost: 1900 },
  { title: 'Carneros Chardonnay 2022', sku: 'CHA22', price: 4200, cost: 1100 },
  { title: 'Estate Pinot Noir 2021', sku: 'PIN21', price: 5400, cost: 1500 },
  { title: 'Rosé of Grenache 2023', sku: 'ROS23', price: 2900, cost: 800 },
]

export const demoOthers = [
  {
    title: 'Cheese and Charcuterie Board',
    type: 'Food' as const,
    sku: 'BOARD',
    price: 2800,
    cost: 900,
  },
  {
    title: 'Estate Corkscrew',
    type: 'General Merchandise' as const,
    sku: 'CORK',
    price: 1800,
    cost: 450,
  },
]

export const demoCustomers = [
  ['Ana', 'Reyes'],
  ['Ben', 'Okoro'],
  ['Claire', 'Dubois'],
  ['Dev', 'Malhotra'],
  ['Elena', 'Rossi'],
  ['Farid', 'Haddad'],
  ['Grace', 'Kim'],
  ['Hugo', 'Lindqvist'],
  ['Isla', 'MacLeod'],
  ['Jamal', 'Carter'],
  ['Keiko', 'Tanaka'],
  ['Luis', 'Ortega'],
] as const

export const demoVendors = [
  { name: 'Napa Glass Co', code: 'NGC', email: 'orders@napaglass.example.com' },
  { name: 'Valley Creamery', code: 'VCR', email: 'hello@valleycreamery.example.com' },
]

export const demoWebhooks = [
  { object: 'order', action: 'close', url: 'https://hooks.example.com/restaurant-ops/orders' },
  { object: 'customer', action: 'create', url: 'https://hooks.example.com/restaurant-ops/customers' },
]

/** How many weeks of orders and payments the demo reaches back. */
export const DEMO_WEEKS = 3
