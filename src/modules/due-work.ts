// Each module job's answer of when a tenant next has work (src/platform/jobs/due-index.ts). Handed
// to openPlatform by the composition roots (src/server.ts, the command line), so that every
// process that writes a tenant stores the answers of every job after the write.
import type { DueWorkSource } from '../platform/jobs/due-index'
import { holdEnds } from './club-memberships/jobs'
import { releasesDue } from './club-releases/jobs'
import { pendingReports } from './era/jobs'
import { giftCardDeliveries } from './gift-cards/jobs'
import { remindersDue } from './legacy-reservations/jobs'
import { abandonedDrafts } from './media/jobs'
import { pendingNotifications, snoozeEnds } from './off-premise/jobs'
import { datedTagsToRefresh } from './tags/jobs'

export const dueWorkSources: readonly DueWorkSource[] = [
  holdEnds,
  releasesDue,
  pendingReports,
  giftCardDeliveries,
  remindersDue,
  abandonedDrafts,
  pendingNotifications,
  snoozeEnds,
  datedTagsToRefresh,
]
