import { t } from 'elysia'
import { CRUD } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import { registerTagsHooks } from './dynamic'
import { datedTagsToRefresh, registerTagJobs } from './jobs'
import * as model from './model'
import { Tag } from './model'
import { tagRoutes } from './routes'

export const tagsFamily = family({
  name: 'tags',
  tags: {
    Tags: 'Tags of customers, orders and other objects, per object type.',
  },
  models: { tags: model },
  events: [
    {
      object: 'tag',
      readPermission: 'tags:read',
      actions: CRUD,
      emittedBy: '`/tag/{objectType}`',
      payload: 'the tag',
      schema: Tag,
    },
    {
      object: 'tag',
      readPermission: 'tags:read',
      actions: ['attach', 'detach'],
      emittedBy: 'tagging customers, club memberships and orders (`aggregateId` is the tag)',
      payload: '`{tagId, title, objectType, objectId}`',
      schema: t.Object({
        tagId: t.String(),
        title: t.String(),
        objectType: t.String(),
        objectId: t.String(),
      }),
    },
  ],
  hooks: registerTagsHooks,
  dueWork: [datedTagsToRefresh],
  jobs: (platform) => registerTagJobs(platform),
  routes: (platform) => [tagRoutes(platform.auth)],
})

// What the other families may use.
export {
  assertManualTagIds,
  attachImportedTags,
  attachTag,
  detachTag,
  manualTagIdsByTitle,
  moveAssignments,
  registerTaggable,
  removeAssignmentsOf,
  replaceTags,
  tagsFor,
  tagsForMany,
  tagsJsonOf,
} from './assignments'
export { registerDynamicSource } from './dynamic'
export type { ConditionSet, ConditionShape, FieldKind } from './fields'
export { allOperators, assertConditionShape, conditionsMatch, objectTypes } from './fields'
export { createTag, findTag, findTagOf } from './service'
