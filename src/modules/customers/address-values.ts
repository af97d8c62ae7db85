// Address values as stored: the country code checked against ISO 3166-1 and upper-cased.
import { countries } from 'countries-list'
import { invalid } from '../../platform/foundation/problem'
import type { CreateAddressInput } from './model'

/** ISO 3166-1 alpha-2 country code, upper-cased; 400 for a code that names no country. */
export function countryCode(value: string, path: string): string {
  const code = value.toUpperCase()
  if (!Object.hasOwn(countries, code))
    throw invalid(path, `"${value}" is not an ISO 3166-1 alpha-2 country code`)
  return code
}

/** The stored columns of an address from a create body; validates the country code. */
export function addressValues(input: CreateAddressInput, path = 'body') {
  return {
    label: input.label,
    name: input.name,
    phone: input.phone ?? null,
    line1: input.line1,
    line2: input.line2 ?? null,
    city: input.city,
    region: input.region,
    postalCode: input.postalCode,
    countryCode: countryCode(input.countryCode, `${path}/countryCode`),
  }
}
