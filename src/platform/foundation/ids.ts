// Ids and timestamps, one convention for the whole service.

/** UUID v7: time-ordered, so new rows append to the end of primary-key indexes. */
export const newId = (): string => Bun.randomUUIDv7()

let pinnedAt: number | null = null

/** ISO 8601 UTC with milliseconds. */
export const nowIso = (): string => new Date(pinnedAt ?? Date.now()).toISOString()

/**
 * Runs synchronous `work` with `nowIso` answering `at`: how demo data gets a past (weeks of
 * orders made through the services, audited as of their day). Synchronous only, so no request
 * ever runs while the clock is pinned.
 */
export function asOf<T>(at: Date, work: () => T extends Promise<unknown> ? never : T): T {
  const before = pinnedAt
  pinnedAt = at.getTime()
  try {
    return work() as T
  } finally {
    pinnedAt = before
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const isUuid = (value: string): boolean => uuidPattern.test(value)
