// The one half-up division every money and quantity rule uses: worked examples and a property.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { divideHalfUp } from '../../src/platform/foundation/rounding'

describe('divideHalfUp', () => {
  test('worked examples', () => {
    expect(divideHalfUp(7n, 2n)).toBe(4n) // 3.5 -> 4
    expect(divideHalfUp(5n, 2n)).toBe(3n) // 2.5 -> 3
    expect(divideHalfUp(2357n, 22n)).toBe(107n) // 107.136...
    expect(divideHalfUp(1477n, 14n)).toBe(106n) // 105.5 -> 106
    expect(divideHalfUp(10n, 3n)).toBe(3n)
    expect(divideHalfUp(11n, 3n)).toBe(4n)
    expect(divideHalfUp(0n, 9n)).toBe(0n)
    expect(divideHalfUp(-7n, 2n)).toBe(-4n) // half away from zero
    expect(divideHalfUp(175n, 10n)).toBe(18n) // 17.5 -> 18 (a tax of 8.75% on 2.00, in tenths)
    expect(divideHalfUp(174n, 10n)).toBe(17n)
    expect(() => divideHalfUp(1n, 0n)).toThrow(RangeError)
    expect(() => divideHalfUp(1n, -2n)).toThrow(RangeError)
  })

  test('property: the result is within half a unit, ties going up', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        (a, b) => {
          const q = divideHalfUp(a, b)
          // twice the remainder against the rounded quotient: a tie rounds up, leaving exactly -b
          const diff = 2n * (a - q * b)
          expect(diff >= -b && diff < b).toBe(true)
        },
      ),
    )
  })
})
