// A record's `version` as an HTTP validator: `if-match` carries it and `ETag` answers it as its
// digits alone (no quotes, no weak validators, no lists), so a client sends back what it read.
// The tables API's reservations use it (src/modules/tables-reservations/preconditions.ts).

export const VERSION_TAG_PATTERN = /^[1-9][0-9]{0,14}$/

export const versionTag = (version: number): string => String(version)
