// What a resource family brings to the service, declared once in its `src/modules/<family>/index.ts`:
// its routes, jobs, hooks, models, events and API tags. The composition roots loop over the
// families (src/modules/index.ts); nothing else lists them. See docs/architecture.md.
import type { AnyElysia } from 'elysia'
import type { EventCatalogue } from './events/catalogue'
import type { DueWorkSource } from './jobs/due-index'
import type { Platform } from './platform'

export interface Family<Jobs = void> {
  /** The family's name: its folder under src/modules. */
  name: string
  /** The OpenAPI tags its operations use, with what each is about. */
  tags?: Readonly<Record<string, string>>
  /**
   * Its model files by a name unique in the service (the family's, camelCased, for its main one):
   * the OpenAPI document names their schemas by the names they export, and tells apart two
   * different schemas of one name by the file's.
   */
  models?: Readonly<Record<string, Record<string, unknown>>>
  /** The events it emits, as webhook subscribers receive them. */
  events?: EventCatalogue
  /**
   * Registers what it lends other families (reference movers, taggable objects, dynamic sources):
   * keyed registrations, so calling it again replaces rather than adds.
   */
  hooks?(): void
  /**
   * Each of its jobs' answer of when a tenant next has work, stored after every commit to a tenant
   * (src/platform/jobs/due-index.ts), so a sweep opens only the tenants with work due.
   */
  dueWork?: readonly DueWorkSource[]
  /** Registers its jobs with the platform's scheduler; what it answers, its routes receive. */
  jobs?(platform: Platform): Jobs
  /** Its route plugins, in the order the route table and the document list them. */
  routes?(platform: Platform, jobs: Jobs): AnyElysia[]
}

/** Declares a family, inferring what its jobs hand its routes. */
export const family = <Jobs = void>(declared: Family<Jobs>): Family<Jobs> => declared
