import { Elysia } from 'elysia'
import type { RequestAuth } from '../../platform/auth/authenticate'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import {
  ClubRelease,
  ClubReleaseList,
  ClubReleaseListQuery,
  ClubReleaseParams,
  ClubReleaseRun,
  ClubShipment,
  ClubShipmentList,
  ClubShipmentListQuery,
  ClubShipmentParams,
  CreateClubRelease,
  ReleaseClubParams,
  UpdateClubRelease,
} from './model'
import { type ReleaseDeps, requestRun, retryShipment } from './processing'
import {
  activateRelease,
  archiveRelease,
  createRelease,
  getRelease,
  listReleases,
  listShipments,
  updateRelease,
} from './service'

export interface ReleaseRouteDeps extends ReleaseDeps {
  /** Asks the processing job to run soon (queued runs do not wait for its interval). */
  kick: () => void
}

const processNote =
  'Answers 202 with the run id at once; the `club-releases.process` job runs it. The run takes every membership of the club that is Active (or whose hold ends by the process date), offered the release’s delivery method and due: its `nextProcessDate` (as it stands on `processDate`) is on or before `processDate`. The others get a `Skipped` or `OnHold` shipment with the reason (`not due until <nextProcessDate> (…)` for a member not due), and no order, no charge, no change to the membership. Each member taken gets an order (the items at the release or catalog price, the club’s member coupons, a shipped membership’s default shipping rate as the order’s `shippingTotal`, tax at the ship-to or the pickup location) and a charge of the saved card, idempotency key (release, membership, attempt). A decline leaves the order unpaid and the shipment `Declined` with the provider’s message (`no_payment_method` without a saved card). Success sets the membership’s `lastProcessedDate` (the release’s `processDate`), `nextProcessDate` and `currentNumberOfShipments`. Processing again is safe: members already processed or declined are left alone, and none gets a second order or charge; a run interrupted by a crash is resumed by the scheduler once it has been silent for 10 minutes (or finished by the next run requested), and a member it left `Pending` is charged with the same idempotency key. Only an Active release runs (409).'

/** One implementation, mounted under `/club` and `/clubs`. */
const releaseResource = (auth: AuthPlugin, deps: ReleaseRouteDeps, prefix: string) => {
  /** Queues a run (`retry`: of the declined shipments only), wakes the job, answers 202 with it. */
  const queueRun =
    (retry: boolean) =>
    ({
      db,
      actor,
      params,
      set,
    }: Pick<RequestAuth, 'db' | 'actor'> & {
      params: { id: string; releaseId: string }
      set: { status?: number | string }
    }) => {
      const run = requestRun(db, actor, params.id, params.releaseId, retry)
      deps.kick()
      set.status = 202
      return run
    }
  return new Elysia({
    name: `club-releases${prefix}`,
    prefix: `${prefix}/:id/releases`,
    detail: { tags: ['Clubs'] },
  })
    .use(auth)
    .get(
      '',
      ({ db, params, query }) => listReleases(db, params.id, { status: query.status, ...pageOf(query) }),
      {
        permission: 'clubs:read',
        params: ReleaseClubParams,
        query: ClubReleaseListQuery,
        response: ClubReleaseList,
        detail: {
          summary: 'List a club’s releases',
          description: 'Latest process date first; `status` filters.',
        },
      },
    )
    .post(
      '',
      ({ db, actor, params, body, set }) => {
        set.status = 201
        return createRelease(db, actor, params.id, body)
      },
      {
        permission: 'clubs:write',
        params: ReleaseClubParams,
        body: CreateClubRelease,
        response: { 201: ClubRelease },
        detail: {
          summary: 'Create a club release',
          description:
            'Status `Planning`. Items name a variant by `productVariantId` or `sku` (400 when none exists); `price` is the release price of one unit, else the catalog price applies when processed. `deliveryMethods` (default both) chooses which members it is for. Members never processed, signed up by its `processDate` and delivered a way it offers, take that date as `nextProcessDate` when it comes before theirs.',
        },
      },
    )
    .get('/:releaseId', ({ db, params }) => getRelease(db, params.id, params.releaseId), {
      permission: 'clubs:read',
      params: ClubReleaseParams,
      response: ClubRelease,
      detail: {
        summary: 'Get a club release',
        description: '`summary` counts the shipments so far by status, with the cents of their orders.',
      },
    })
    .put(
      '/:releaseId',
      ({ db, actor, params, body }) => updateRelease(db, actor, params.id, params.releaseId, body),
      {
        permission: 'clubs:write',
        params: ClubReleaseParams,
        body: UpdateClubRelease,
        response: ClubRelease,
        detail: {
          summary: 'Update a club release',
          description:
            'Only while `Planning` (409 otherwise). The `nextProcessDate` of members never processed follows a new `processDate` or `deliveryMethods`.',
        },
      },
    )
    .post(
      '/:releaseId/activate',
      ({ db, actor, params }) => activateRelease(db, actor, params.id, params.releaseId),
      {
        permission: 'clubs:write',
        params: ClubReleaseParams,
        response: ClubRelease,
        detail: {
          summary: 'Activate a club release',
          description:
            'Planning → Active, irreversibly: the scheduler processes it on `processDate` (the tenant’s date), and it can be processed on request. 409 from any other status.',
        },
      },
    )
    .post(
      '/:releaseId/archive',
      ({ db, actor, params }) => archiveRelease(db, actor, params.id, params.releaseId),
      {
        permission: 'clubs:write',
        params: ClubReleaseParams,
        response: ClubRelease,
        detail: {
          summary: 'Archive a club release',
          description:
            'From Planning or Active: never processed or charged again (a run in progress stops before its next member). Members never processed whose `nextProcessDate` was its date move to the next release planned, else to the cadence. 409 when already archived.',
        },
      },
    )
    .post('/:releaseId/process', queueRun(false), {
      permission: 'clubs:write',
      params: ClubReleaseParams,
      response: { 202: ClubReleaseRun },
      detail: { summary: 'Process a club release now', description: processNote },
    })
    .post('/:releaseId/retry', queueRun(true), {
      permission: 'clubs:write',
      params: ClubReleaseParams,
      response: { 202: ClubReleaseRun },
      detail: {
        summary: 'Retry every declined shipment of a release',
        description:
          'Answers 202 with the run id; the run charges each `Declined` shipment’s order again (a new attempt, so a new idempotency key) with the membership’s current card. Only an Active release (409).',
      },
    })
    .get(
      '/:releaseId/shipments',
      ({ db, params, query }) =>
        listShipments(db, params.id, params.releaseId, { status: query.status, ...pageOf(query) }),
      {
        permission: 'clubs:read',
        params: ClubReleaseParams,
        query: ClubShipmentListQuery,
        response: ClubShipmentList,
        detail: {
          summary: 'List a release’s shipments',
          description: 'One per membership the release has considered, oldest first; `status` filters.',
        },
      },
    )
    .post(
      '/:releaseId/shipments/:shipmentId/retry',
      ({ db, actor, params }) =>
        retryShipment(db, actor, deps, {
          clubId: params.id,
          releaseId: params.releaseId,
          shipmentId: params.shipmentId,
        }),
      {
        permission: 'clubs:write',
        params: ClubShipmentParams,
        response: ClubShipment,
        detail: {
          summary: 'Retry a declined shipment',
          description:
            'Charges the shipment’s order again now, with the membership’s current card, and answers the shipment: `Processed`, or `Declined` with the new reason. Only a `Declined` shipment of an Active release (409).',
        },
      },
    )
}

export const clubReleaseRoutes = (auth: AuthPlugin, deps: ReleaseRouteDeps) =>
  new Elysia({ name: 'club-releases' })
    .use(releaseResource(auth, deps, '/club'))
    .use(releaseResource(auth, deps, '/clubs'))
