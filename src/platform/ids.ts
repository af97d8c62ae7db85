// Ids and timestamps, one convention for the whole service.

/** UUID v7: time-ordered, so new rows append to the end of primary-key indexes. */
export const newId = (): string => Bun.randomUUIDv7()

/** ISO 8601 UTC with milliseconds. */
export const nowIso = (): string => new Date().toISOString()

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const isUuid = (value: string): boolean => uuidPattern.test(value)
