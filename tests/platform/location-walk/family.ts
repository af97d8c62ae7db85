// What the route-table walk (location-walk.test.ts) needs to know about each resource family:
// which route paths it owns, whether its records live at a location, and how to make records of
// it through the API. One file per family in families/, listed in families/index.ts.
//
// To add a family: write families/<name>.ts exporting a WalkFamily, add it to the index, and run
// `bun test tests/platform/location-walk`. The walk then proves, for every route of the family:
// another tenant's ids are 404; and, for a located family, that a principal bound to another
// location gets 404 by id, lists without the record (total too), and 403 when it names that
// location; each refusal writes nothing.
import type { TenantFixture, TestApp } from '../../harness'

/** Path parameter values by name (`id`, `lineId`, ...), of records one fixture made. */
export type Params = Record<string, string>

export interface WalkRequest {
  body?: unknown
  query?: Record<string, string>
}

export interface WalkFamily {
  name: string
  /** Route paths of the family start with one of these (`/order`, `/cash-management/drawers`). */
  prefixes: string[]
  /** Its records live at a location (a `location_id` column, or derived from a parent that has one). */
  located: boolean
  /**
   * Makes records of the family in `tenant` through the API as the tenant's owner (located ones
   * at `locationId`), and answers the path parameter values that name them. Called once per
   * tenant and location the walk needs; each call makes records of its own.
   */
  create(t: TestApp, tenant: TenantFixture, locationId: string): Promise<Params>
  /**
   * Request bodies (and query strings) by route (`POST /order/:id/line`) where a sample built
   * from the route's schema does not reach the handler, so that another tenant's id is refused
   * by the handler (404) rather than by validation. A function of the location the request
   * should name, where the sample cannot tell a field names one (`restaurantIds`).
   */
  requests?: Record<string, WalkRequest | ((locationId: string) => WalkRequest)>
  /**
   * Query strings that list routes need to show the family's records at all (a required date
   * range, say), so that the list check can see the record is there for a tenant-wide caller.
   */
  listQueries?: Record<string, Record<string, string>>
}

/** The owner's request, failing the test at once when it is refused. */
export async function made(
  t: TestApp,
  tenant: TenantFixture,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const res = await t.request(method, path, { as: tenant.owner, tenant, body, headers })
  if (res.status >= 300) throw new Error(`fixture ${method} ${path}: ${res.status} ${res.text}`)
  return res.body
}
