// Integer rounding shared by every money and quantity rule (pricing, tax, labor pay, inventory
// costing, report hours): one definition, so a half cent rounds the same way everywhere.

/**
 * numerator / denominator rounded to the nearest integer, halves away from zero (for the
 * non-negative amounts of money, half up). The denominator must be positive.
 */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('divideHalfUp takes a positive denominator')
  if (numerator < 0n) return -divideHalfUp(-numerator, denominator)
  return (2n * numerator + denominator) / (2n * denominator)
}
