// The shape of the event catalogue: what a subscriber can receive. Each family declares its
// entries in its manifest (src/modules/<family>/index.ts), next to the schemas they name; docs/events.md and the OpenAPI `webhooks`
// section are rendered from it, and the test harness checks every event the test suite emits
// against it.
import type { TSchema } from '@sinclair/typebox'
import { t } from 'elysia'
import type { Permission } from '../auth/permissions'

export interface EventEntry {
  /** `object` of the event, as emitted, in snake_case: `vendor`, `club_membership`, `gift_card`. */
  object: string
  /**
   * What a caller must hold, where the event happened, to receive it on the live event stream
   * (src/modules/event-stream): the permission that reads the record it carries.
   */
  readPermission: Permission
  /** The `action`s this entry covers. */
  actions: readonly string[]
  /** The requests and jobs that emit it, in words (markdown). */
  emittedBy: string
  /** The payload, in words (markdown). */
  payload: string
  /** The payload's schema: the same one the API answers with wherever it is the resource. */
  schema: TSchema
  /**
   * Names this entry's events had before object and action names were unified in snake_case
   * (`cash-drawer`, `clock-in`). They stay valid for one release: a subscription made with them
   * still matches, and receives the event under the name it subscribed with.
   */
  formerly?: { object?: string; actions?: Readonly<Record<string, string>> }
}

export type EventCatalogue = readonly EventEntry[]

/** The actions of a resource that is created, changed and deleted. */
export const CRUD = ['create', 'update', 'delete'] as const

/** A resource's schema with members added for an event's payload. */
export const withMembers = (resource: TSchema, members: Record<string, TSchema>) =>
  t.Intersect([resource, t.Object(members)])
