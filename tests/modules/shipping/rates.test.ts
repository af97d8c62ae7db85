// Shipping rate arithmetic, worked by hand, and its properties.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { exactWeight, rateProblems, shippingPrice, toMilli } from '../../../src/modules/shipping/rates'
import type { RateValue, TopRateValue, WeightUnit } from '../../../src/modules/shipping/schema'
import { MAX_MONEY } from '../../../src/platform/foundation/types'

const rate = (toWeight: number, price: number, weightUnits: WeightUnit = 'Lbs'): RateValue => ({
  id: 'r',
  toWeight,
  price,
  weightUnits,
})
const top = (over: Partial<TopRateValue> = {}): TopRateValue => ({
  id: 't',
  isWrapShipping: false,
  forEveryXWeight: 5,
  weightUnits: 'Lbs',
  price: 300,
  ...over,
})

// Bands: up to 2 lb $8.00, up to 5 lb $12.00, up to 10 lb $18.50; beyond, $3.00 per 5 lb or part.
const ground = { rates: [rate(5, 1200), rate(2, 800), rate(10, 1850)], topRate: top() }

describe('shipping price: worked examples', () => {
  test('bands are inclusive upward and need not be sent in order', () => {
    expect(shippingPrice(ground, 0, 'Lbs')).toBe(800)
    expect(shippingPrice(ground, 1.5, 'Lbs')).toBe(800)
    expect(shippingPrice(ground, 2, 'Lbs')).toBe(800)
    expect(shippingPrice(ground, 2.001, 'Lbs')).toBe(1200)
    expect(shippingPrice(ground, 5, 'Lbs')).toBe(1200)
    expect(shippingPrice(ground, 10, 'Lbs')).toBe(1850)
  })

  test('top rate: the last band plus $3.00 for every 5 lb or part above 10 lb', () => {
    expect(shippingPrice(ground, 10.001, 'Lbs')).toBe(1850 + 300) // one started step
    expect(shippingPrice(ground, 15, 'Lbs')).toBe(1850 + 300) // exactly one step
    expect(shippingPrice(ground, 15.5, 'Lbs')).toBe(1850 + 600) // 5.5 lb over: two steps
    expect(shippingPrice(ground, 32, 'Lbs')).toBe(1850 + 5 * 300) // 22 lb over: 5 steps
  })

  test('kilograms convert exactly: 1 kg = 2.20462262... lb', () => {
    // 0.907 kg = 1.99959... lb: inside the 2 lb band; 0.908 kg = 2.00180... lb: the next one.
    expect(shippingPrice(ground, 0.907, 'Kg')).toBe(800)
    expect(shippingPrice(ground, 0.908, 'Kg')).toBe(1200)
    // 4.536 kg = 10.00016 lb: just over the last band, one step.
    expect(shippingPrice(ground, 4.535, 'Kg')).toBe(1850)
    expect(shippingPrice(ground, 4.536, 'Kg')).toBe(2150)
  })

  test('bands and steps in kilograms, weight in pounds', () => {
    const metric = {
      rates: [rate(1, 500, 'Kg'), rate(3, 900, 'Kg')],
      topRate: top({ forEveryXWeight: 1, weightUnits: 'Kg', price: 250 }),
    }
    // 2.204 lb = 0.99971 kg; 2.205 lb = 1.00016 kg.
    expect(shippingPrice(metric, 2.204, 'Lbs')).toBe(500)
    expect(shippingPrice(metric, 2.205, 'Lbs')).toBe(900)
    // 10 lb = 4.5359237 kg: 1.5359 kg over 3 kg: two started 1 kg steps.
    expect(shippingPrice(metric, 10, 'Lbs')).toBe(900 + 2 * 250)
  })

  test('wrap shipping: full packages of the last band plus the band of the rest', () => {
    const wrap = {
      rates: ground.rates,
      topRate: top({ isWrapShipping: true, forEveryXWeight: null, price: null }),
    }
    expect(shippingPrice(wrap, 10, 'Lbs')).toBe(1850)
    expect(shippingPrice(wrap, 20, 'Lbs')).toBe(2 * 1850)
    expect(shippingPrice(wrap, 21, 'Lbs')).toBe(2 * 1850 + 800) // 1 lb left: the 2 lb band
    expect(shippingPrice(wrap, 24, 'Lbs')).toBe(2 * 1850 + 1200) // 4 lb left: the 5 lb band
  })

  test('a price past 2^53 cents is refused (400), for steps and for wrapped packages alike', () => {
    const steep = {
      rates: [rate(0.001, MAX_MONEY)],
      topRate: top({ forEveryXWeight: 0.001, price: MAX_MONEY }),
    }
    const wrap = {
      rates: steep.rates,
      topRate: top({ isWrapShipping: true, forEveryXWeight: null, price: null }),
    }
    for (const service of [steep, wrap]) {
      // 900 000 thousandths of a pound at MAX_MONEY each: 9e15, just under 2^53 - 1.
      expect(shippingPrice(service, 900, 'Lbs')).toBe(900_000 * MAX_MONEY)
      expect(() => shippingPrice(service, 1000, 'Lbs')).toThrow(
        expect.objectContaining({ code: 'validation_failed', status: 400 }),
      )
    }
  })

  test('more than three decimals is refused; three are exact', () => {
    expect(toMilli(2.675)).toBe(2675)
    expect(toMilli(0.1 + 0.2)).toBeNull()
    expect(toMilli(1.0005)).toBeNull()
    expect(() => shippingPrice(ground, 1.0005, 'Lbs')).toThrow(RangeError)
    expect(exactWeight(1, 'Lbs')).toBe(45_359_237_000n)
    expect(exactWeight(1, 'Kg')).toBe(100_000_000_000n)
  })

  test('rate problems: duplicate band weights across units; top rate needs step and price', () => {
    expect(rateProblems({ rates: [rate(1, 1), rate(1, 2)], topRate: top() })).toEqual([
      ['rates/1/toWeight', 'the same weight as rates/0: bands need distinct weights'],
    ])
    expect(
      rateProblems({ rates: [rate(1, 1)], topRate: top({ forEveryXWeight: null, price: null }) }),
    ).toHaveLength(2)
    expect(
      rateProblems({
        rates: [rate(1, 1)],
        topRate: top({ isWrapShipping: true, forEveryXWeight: null, price: null }),
      }),
    ).toEqual([])
  })
})

const milliWeight = (max: number) => fc.integer({ min: 0, max }).map((m) => m / 1000)

describe('shipping price: properties', () => {
  test('never decreases as the weight grows, for a fixed unit', () => {
    fc.assert(
      fc.property(
        milliWeight(100_000),
        milliWeight(100_000),
        fc.constantFrom<WeightUnit>('Lbs', 'Kg'),
        (a, b, unit) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a]
          return shippingPrice(ground, lo, unit) <= shippingPrice(ground, hi, unit)
        },
      ),
    )
  })

  test('across units, the heavier exact weight never prices lower', () => {
    fc.assert(
      fc.property(milliWeight(60_000), milliWeight(60_000), (kg, lbs) => {
        const heavierInLbs = exactWeight(kg, 'Kg') <= exactWeight(lbs, 'Lbs')
        const [light, heavy] = heavierInLbs
          ? [shippingPrice(ground, kg, 'Kg'), shippingPrice(ground, lbs, 'Lbs')]
          : [shippingPrice(ground, lbs, 'Lbs'), shippingPrice(ground, kg, 'Kg')]
        return light <= heavy
      }),
    )
  })

  test('integer cents out, and above the last band it grows by exactly one step price per step', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10_001, max: 200_000 }), (milli) => {
        const w = milli / 1000
        const price = shippingPrice(ground, w, 'Lbs')
        const steps = Math.ceil((milli - 10_000) / 5_000)
        return Number.isInteger(price) && price === 1850 + steps * 300
      }),
    )
  })

  test('wrap: one more full package adds exactly the last band price', () => {
    const wrap = { rates: ground.rates, topRate: top({ isWrapShipping: true }) }
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), (milli) => {
        const w = milli / 1000
        return shippingPrice(wrap, (milli + 10_000) / 1000, 'Lbs') === shippingPrice(wrap, w, 'Lbs') + 1850
      }),
    )
  })
})
