/**
 * The fields a partial update really changes, as `{field: {from, to}}`, for audit metadata.
 * Fields absent from the patch are untouched; fields sent with their current value are no change.
 */
export function diffFields<T extends Record<string, unknown>>(
  before: T,
  patch: Partial<Record<keyof T, unknown>>,
): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {}
  for (const [field, to] of Object.entries(patch)) {
    if (to === undefined) continue
    const from = before[field]
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to }
  }
  return changes
}
