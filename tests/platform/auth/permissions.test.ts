// What a staff user holds where a request acts, and equal holdings kept once in memory: a cached
// principal per tenant must not each carry its own copy of a role's hundred-odd primitives.
import { expect, test } from 'bun:test'
import { builtInRoles, permissionsAt } from '../../../src/platform/auth/permissions'

test('equal holdings are one shared set; a different holding is its own', () => {
  const owner = [{ role: 'owner', locationId: null }]
  const atA = permissionsAt(owner, 'loc-a')
  expect(permissionsAt(owner, 'loc-b')).toBe(atA)
  expect(permissionsAt([{ role: 'owner', locationId: 'loc-c' }], 'loc-c')).toBe(atA)
  expect([...atA].sort()).toEqual([...builtInRoles.owner.grants].sort())

  const denied = permissionsAt(owner, 'loc-a', [{ locationId: 'loc-a', grants: [], denies: ['cash:manage'] }])
  expect(denied).not.toBe(atA)
  expect(denied.has('cash:manage')).toBe(false)
  expect(denied.size).toBe(atA.size - 1)
  // Elsewhere the deny does not apply, and with no location named every deny does.
  expect(permissionsAt(owner, 'loc-b', [{ locationId: 'loc-a', grants: [], denies: ['cash:manage'] }])).toBe(
    atA,
  )
  expect(permissionsAt(owner, null, [{ locationId: 'loc-a', grants: [], denies: ['cash:manage'] }])).toBe(
    denied,
  )
})
