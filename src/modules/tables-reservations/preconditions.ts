// `if-match` on tables reservations carries the reservation `version` as the reservation's `ETag`
// answers it: a positive integer without leading zeros (platform/http/version-tag.ts).
import { ApiError } from '../../platform/foundation/problem'
import { VERSION_TAG_PATTERN } from '../../platform/http/version-tag'

/** The version an `if-match` header expects: 428 when absent, 400 when malformed. */
export function expectedVersion(header: string | undefined | null): number {
  if (header === undefined || header === null || header === '')
    throw new ApiError(
      'precondition_required',
      'if-match is required: send the reservation version you last read',
    )
  if (!VERSION_TAG_PATTERN.test(header)) {
    const message = 'must be the reservation version: a positive integer without leading zeros'
    throw new ApiError('validation_failed', `if-match ${message}`, {
      errors: [{ path: 'headers/if-match', message }],
    })
  }
  return Number(header)
}
