import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { todayIn } from '../../platform/foundation/dates'
import { pageOf } from '../../platform/foundation/paging'
import type { Db } from '../../platform/tenancy/databases'
import type { Tenant } from '../../platform/tenancy/tenants'
import {
  CancelClubMembership,
  ClubMembership,
  ClubMembershipGetQuery,
  ClubMembershipList,
  ClubMembershipListQuery,
  ClubMembershipParams,
  CreateClubMembership,
  HoldClubMembership,
  UpdateClubMembership,
} from './model'
import { createMembership, getMembership, listMemberships, parseExpand, updateMembership } from './service'
import { cancelMembership, holdMembership, releaseEndedHolds, resumeMembership } from './transitions'

/**
 * Before a write: today for the tenant, after releasing holds that have ended (a write must start
 * from the truth). Reads do not release; they present ended holds as released (service.ts).
 */
function settle(db: Db, tenant: Tenant): string {
  const today = todayIn(tenant.timezone)
  releaseEndedHolds(db, tenant.id, today)
  return today
}

const expandNote = '`expand=customer,club` embeds the member and the club.'

export const clubMembershipRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'club-memberships', prefix: '/club-membership', detail: { tags: ['Clubs'] } })
    .use(auth)
    .get(
      '',
      ({ db, tenant, query }) =>
        listMemberships(db, {
          ...query,
          ...pageOf(query),
          expand: parseExpand(query.expand),
          today: todayIn(tenant.timezone),
        }),
      {
        permission: 'clubs:read',
        query: ClubMembershipListQuery,
        response: ClubMembershipList,
        detail: {
          summary: 'List club memberships',
          description: `Newest sign-up first. \`q\` matches the member’s first name, last name or email, or the club’s title; \`clubId\`, \`customerId\` (merged ids follow the merge) and \`status\` filter (a hold that has ended counts as Active). ${expandNote}`,
        },
      },
    )
    .post(
      '',
      ({ db, actor, tenant, body, set }) => {
        const today = settle(db, tenant)
        set.status = 201
        return createMembership(db, actor, body, today)
      },
      {
        permission: 'clubs:write',
        body: CreateClubMembership,
        response: { 201: ClubMembership },
        detail: {
          summary: 'Sign a customer up to a club',
          description:
            'Addresses and the card must belong to the customer (400 otherwise); `Ship` needs `shipToCustomerAddressId`. A customer has at most one live (not cancelled) membership per club (409), and the club must be `adminStatus` Available (409). The card’s provider references are copied onto the membership. `nextProcessDate` is the `processDate` of the club’s next release planned for the member, else the sign-up date plus one cadence (the override, else the club’s); see the field.',
        },
      },
    )
    .get(
      '/:id',
      ({ db, tenant, params, query }) =>
        getMembership(db, params.id, parseExpand(query.expand), todayIn(tenant.timezone)),
      {
        permission: 'clubs:read',
        params: ClubMembershipParams,
        query: ClubMembershipGetQuery,
        response: ClubMembership,
        detail: { summary: 'Get a club membership', description: expandNote },
      },
    )
    .put(
      '/:id',
      ({ db, actor, tenant, params, body }) => {
        settle(db, tenant)
        return updateMembership(db, actor, params.id, body)
      },
      {
        permission: 'clubs:write',
        params: ClubMembershipParams,
        body: UpdateClubMembership,
        response: ClubMembership,
        detail: {
          summary: 'Update a club membership',
          description:
            'Partial. The same address, card and Ship rules as sign-up apply to the result; `nextProcessDate` follows the result (`lastProcessedDate`, the delivery method, the cadence; see the field). A cancelled membership is 409.',
        },
      },
    )
    .post(
      '/:id/hold',
      ({ db, actor, tenant, params, body }) => holdMembership(db, actor, params.id, body, settle(db, tenant)),
      {
        permission: 'clubs:write',
        params: ClubMembershipParams,
        body: HoldClubMembership,
        response: ClubMembership,
        detail: {
          summary: 'Put a membership on hold',
          description:
            'Status `On Hold` until `holdUntil` (after today; a membership already on hold gets the new date). No processing happens before `holdUntil`: `nextProcessDate` is the first date on or after it (a planned release’s for a member never processed, else the cadence’s). On `holdUntil` (the tenant’s date) the membership is Active again by itself: reads show it Active from that day, and the `club-memberships.release-holds` job records the release (audited by the system, with the `resume` event) within 15 minutes. A cancelled membership is 409.',
        },
      },
    )
    .post(
      '/:id/resume',
      ({ db, actor, tenant, params }) => {
        settle(db, tenant)
        return resumeMembership(db, actor, params.id)
      },
      {
        permission: 'clubs:write',
        params: ClubMembershipParams,
        response: ClubMembership,
        detail: {
          summary: 'End a hold early',
          description: 'Back to `Active` now. Only a membership on hold can be resumed (409 otherwise).',
        },
      },
    )
    .post(
      '/:id/cancel',
      ({ db, actor, tenant, params, body }) =>
        cancelMembership(db, actor, params.id, body, settle(db, tenant)),
      {
        permission: 'clubs:write',
        params: ClubMembershipParams,
        body: CancelClubMembership,
        response: ClubMembership,
        detail: {
          summary: 'Cancel a membership',
          description:
            'Status `Cancelled` with `cancelDate` (default today, not before the sign-up) and optional `cancelReason`; no further processing (`nextProcessDate` null). Cancelling twice is 409. The customer may sign up to the club again afterwards.',
        },
      },
    )
