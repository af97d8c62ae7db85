import { family } from '../../platform/family'
import { registerMediaHooks } from './entities'
import { abandonedDrafts, registerMediaJobs } from './jobs'
import * as model from './model'
import { MediaAsset } from './model'
import { mediaRoutes } from './routes'
import { mediaFileRoutes } from './uploads'

export const mediaFamily = family({
  name: 'media',
  tags: {
    Media:
      'Media assets: direct uploads, attach to records, reuse, delete and restore; files of the embedded store.',
  },
  models: { media: model },
  events: [
    {
      object: 'media_asset',
      readPermission: 'media:read',
      formerly: { object: 'media-asset' },
      actions: ['create', 'complete', 'attach', 'reuse', 'delete', 'restore'],
      emittedBy: '`/media/uploads/direct`, `/media/assets/{id}/...`; the purge of abandoned drafts',
      payload: 'the asset',
      schema: MediaAsset,
    },
  ],
  hooks: registerMediaHooks,
  dueWork: [abandonedDrafts],
  jobs: (platform) => registerMediaJobs(platform),
  routes: (platform) => [mediaRoutes(platform.auth, platform), mediaFileRoutes(platform)],
})
