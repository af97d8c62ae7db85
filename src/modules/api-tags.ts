// The OpenAPI tags of the resource families, in the order the document lists them, with what each
// one's operations are about. A test fails when a route uses a tag missing here.
export const apiTags: Record<string, string> = {
  Platform: 'Service description and health probes (public).',
  Auth: 'POS passcode sessions: staff sign in at a location with a passcode and get a `vps_` token.',
  Staff: 'Staff users of the tenant, their roles (tenant-wide or at a location) and POS passcodes.',
  Audit: 'The tenant’s append-only, hash-chained audit trail of every write.',
  Tables: 'The tables dashboard: bookable experiences, their published versions, schedules and settings.',
  'Tables API':
    'The partner reservations API (`/tables-api/v1`): availability, reservations and webhook subscriptions, open to `tpk_live_` credentials with the right scope.',
  Reservations: 'Reservation types and reservations of the Commerce7-style reservations API.',
  Locations:
    'The business’s locations (name, time zone, address, tax region, status); location-bound callers see their own.',
  Operator:
    'The operator API (`/admin/v1`): tenants made, suspended, resumed, exported, imported and deleted by the operator of this service, and its audit log. Operator credentials only.',
  Vendors: 'Suppliers the business buys from.',
  Customers:
    'Customers with their addresses, tags, stored payment methods and merges (`/customer` and `/customers` are the same).',
  Clubs: 'Wine clubs and club memberships: cadence, holds, cancellations.',
  Products: 'Products with variants and wine details; the wine appellation and varietal lists.',
  Collections: 'Product collections (`/collection` and `/collections` are the same).',
  Tags: 'Tags of customers, orders and other objects, per object type.',
  Notes: 'Notes on customers and other records.',
  Taxes: 'Tax rates by country and state.',
  Coupons: 'Coupons and their rules (`/coupon` and `/coupons` are the same).',
  Inventory: 'Ingredients, stock per location, receiving, waste, counts and recipes.',
  Orders:
    'Orders and their lines, discounts and fulfillments through submit, void and close; tax settings per location.',
  Payments: 'Payments on orders: cash, card (authorize, capture, void), gift card; refunds.',
  'Off-premise': 'Pickup and delivery: staging, ready, hand-off; channel settings and controls.',
  Shipping: 'Shipping configurations and rates.',
  'Gift cards': 'Gift cards, their ledger (load, redeem, adjust, cash out, expire), delivery and reports.',
  'Cash management': 'Cash drawers: open, assign, entries, pause and close-out.',
  Apps: 'Installed apps, their data and sync records.',
  Media:
    'Media assets: direct uploads, attach to records, reuse, delete and restore; files of the embedded store.',
  Webhooks: 'Webhook subscriptions, the delivery log and dead letters (the events themselves: `webhooks`).',
  Labor: 'Employees, jobs and job assignments, and shifts with breaks (time clock).',
  Partners: 'The partner directory API: restaurants and connected restaurants.',
  Credentials:
    'Tables-API credentials (`tpk_live_`) of the tenant: made (the token shown once), listed and revoked by an owner.',
  Backups: 'Snapshots, Litestream replication, database sizes and the point-in-time restore window.',
  'Analytics (ERA)': 'Reporting metrics, checks, labor and menu figures, computed asynchronously.',
}
