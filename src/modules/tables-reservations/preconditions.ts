// `if-match` on tables reservations carries the reservation `version` itself: a positive integer
// without leading zeros (no quotes, no weak validators, no lists).
import { ApiError } from '../../platform/http/problem'

const VERSION_PATTERN = /^[1-9][0-9]{0,14}$/

/** The version an `if-match` header expects: 428 when absent, 400 when malformed. */
export function expectedVersion(header: string | undefined | null): number {
  if (header === undefined || header === null || header === '')
    throw new ApiError(
      'precondition_required',
      'if-match is required: send the reservation version you last read',
    )
  if (!VERSION_PATTERN.test(header)) {
    const message = 'must be the reservation version: a positive integer without leading zeros'
    throw new ApiError('validation_failed', `if-match ${message}`, {
      errors: [{ path: 'headers/if-match', message }],
    })
  }
  return Number(header)
}
