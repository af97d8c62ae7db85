import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { getPrivateLink, rotatePrivateLink } from './links'
import {
  CreateExperience,
  ExperienceData,
  ExperienceList,
  ExperienceListQuery,
  ExperienceParams,
  ExperienceVersionData,
  LocationMappingData,
  PrivateLinkData,
  PublishExperience,
  PutLocationMapping,
  ScheduleList,
  ScheduleQuery,
} from './model'
import { listSchedules } from './schedules'
import {
  archiveExperience,
  createExperience,
  experienceLocated,
  getExperience,
  listExperiences,
  publishExperience,
  publishedVersion,
  restoreExperience,
} from './service'
import { getLocationMapping, putLocationMapping } from './settings'

export const experienceRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'experiences', prefix: '/tables/v1', detail: { tags: ['Tables'] } })
    .use(auth)
    .get(
      '/experiences',
      ({ db, query, locations }) => listExperiences(db, { ...query, ...pageOf(query) }, locations),
      {
        permission: 'reservations:read',
        query: ExperienceListQuery,
        response: ExperienceList,
        detail: {
          summary: 'List experiences',
          description:
            'Ordered by name. `status` is `draft` (never published), `published` or `archived`; each carries its ' +
            'current (latest published) version.',
        },
      },
    )
    .post(
      '/experiences',
      ({ db, actor, body, set }) => {
        set.status = 201
        return { data: createExperience(db, actor, body) }
      },
      {
        permission: 'reservations:write',
        body: CreateExperience,
        response: { 201: ExperienceData },
        detail: {
          summary: 'Create an experience',
          description:
            'A draft: nothing can be booked until it is published. Held at `locationId` (default the ' +
            '`x-location-id` location, else the tenant’s only location).',
        },
      },
    )
    .get('/experiences/:id', ({ db, params }) => ({ data: getExperience(db, params.id) }), {
      permission: 'reservations:read',
      locatedBy: experienceLocated,
      params: ExperienceParams,
      response: ExperienceData,
      detail: { summary: 'Get an experience' },
    })
    .post(
      '/experiences/:id/archive',
      ({ db, actor, params }) => ({ data: archiveExperience(db, actor, params.id) }),
      {
        permission: 'reservations:write',
        locatedBy: experienceLocated,
        params: ExperienceParams,
        response: ExperienceData,
        detail: {
          summary: 'Archive an experience',
          description:
            'No longer offered or bookable (option tokens already issued for it are refused with 409); existing ' +
            'reservations stand. Archiving an archived experience is 409.',
        },
      },
    )
    .post(
      '/experiences/:id/restore',
      ({ db, actor, params }) => ({ data: restoreExperience(db, actor, params.id) }),
      {
        permission: 'reservations:write',
        locatedBy: experienceLocated,
        params: ExperienceParams,
        response: ExperienceData,
        detail: {
          summary: 'Restore an archived experience',
          description:
            'Back to `published` (or `draft` if never published). Restoring one not archived is 409.',
        },
      },
    )
    .get('/experiences/:id/published', ({ db, params }) => ({ data: publishedVersion(db, params.id) }), {
      permission: 'reservations:read',
      locatedBy: experienceLocated,
      params: ExperienceParams,
      response: ExperienceVersionData,
      detail: {
        summary: 'The published version',
        description: 'The latest published version; 404 while the experience has never been published.',
      },
    })
    .post(
      '/experiences/:id/publish',
      ({ db, actor, params, body, set }) => {
        set.status = 201
        return { data: publishExperience(db, actor, params.id, body) }
      },
      {
        permission: 'reservations:write',
        locatedBy: experienceLocated,
        params: ExperienceParams,
        body: PublishExperience,
        response: { 201: ExperienceVersionData },
        detail: {
          summary: 'Publish a new version',
          description:
            'Makes a new immutable version (numbered 1, 2, ...) and makes it current. `partyMin` must not exceed ' +
            '`partyMax`. `schedule` lists slots: weekdays, local start times, covers per start time, price per guest ' +
            '(minor units) and payment option; a start time belongs to one slot only, and a priced slot needs a ' +
            'payment option other than `none`. Fields left out (`schedule`, `durationMinutes`, `visibility`, ' +
            '`description`) carry over from the previous version. Reservations keep the version they were booked ' +
            'on and stand even where the new capacity is below the covers already booked (that start then takes ' +
            'no one more); option tokens issued before are booked under the new version’s start times, party ' +
            'limits, cutoff and capacity. An archived experience is 409.',
        },
      },
    )
    .get('/experiences/:id/private-link', ({ db, params }) => ({ data: getPrivateLink(db, params.id) }), {
      permission: 'reservations:read',
      locatedBy: experienceLocated,
      params: ExperienceParams,
      response: PrivateLinkData,
      detail: {
        summary: 'The private booking link',
        description:
          'A secret link to book the experience, including a `private` one that availability lists only to ' +
          'callers passing this token as `privateLink`.',
      },
    })
    .post(
      '/experiences/:id/private-link/rotate',
      ({ db, actor, params }) => ({ data: rotatePrivateLink(db, actor, params.id) }),
      {
        permission: 'reservations:write',
        locatedBy: experienceLocated,
        params: ExperienceParams,
        response: PrivateLinkData,
        detail: {
          summary: 'Rotate the private link',
          description: 'Issues a new token; the old link stops working at once (404). Bookings made stay.',
        },
      },
    )
    .get('/settings/location-mapping', ({ db, locations }) => ({ data: getLocationMapping(db, locations) }), {
      permission: 'reservations:read',
      response: LocationMappingData,
      detail: {
        summary: 'Public booking page settings',
        description:
          '404 until configured with PUT, and for a caller who cannot act at the location it books into.',
      },
    })
    .put(
      '/settings/location-mapping',
      ({ db, actor, locations, body }) => ({ data: putLocationMapping(db, actor, locations, body) }),
      {
        permission: 'reservations:write',
        body: PutLocationMapping,
        response: LocationMappingData,
        detail: {
          summary: 'Set the public booking page settings',
          description:
            'Replaces the settings: `tenantLocationCode` (the operator’s code for the location), `publicSlug` ' +
            '(lower-case letters, digits and hyphens), `publicName`, `isPublic`, and `locationId`, the location it ' +
            'books into (default `x-location-id`, else the tenant’s only location). Replacing settings that book ' +
            'into a location the caller cannot act at is 403.',
        },
      },
    )
    .get('/schedules', ({ db, query, locations }) => listSchedules(db, query, locations), {
      permission: 'reservations:read',
      query: ScheduleQuery,
      response: ScheduleList,
      detail: {
        summary: 'When experiences can be booked',
        description:
          'Every published, unarchived experience (optionally of one location or one experience) with the slots ' +
          'of its current version: weekdays and local start times in the location’s time zone, covers per start ' +
          'time, price per guest and payment option.',
      },
    })
