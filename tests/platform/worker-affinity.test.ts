// Which HTTP worker answers a request for a tenant (src/platform/http/worker-affinity.ts): its owner,
// unless this worker's pool has room beyond its own share, the tenant is hot here, or the owner is
// not serving. Across processes: tests/e2e/worker-affinity.test.ts.
import { describe, expect, test } from 'bun:test'
import { newId } from '../../src/platform/foundation/ids'
import { tenantOwner, WorkerAffinity } from '../../src/platform/http/worker-affinity'
import type { TenantPool } from '../../src/platform/tenancy/databases'

/** Tenant ids owned by each of two workers. */
function idsOwnedBy(worker: number, count: number): string[] {
  const ids: string[] = []
  for (let i = 0; ids.length < count; i++)
    if (tenantOwner(`tenant-${i}`, 2) === worker) ids.push(`tenant-${i}`)
  return ids
}

function affinityOf(options: { room: number; tenants: number; capacity?: number; serving?: boolean }) {
  const pool = { room: options.room, capacity: options.capacity ?? 100 } as unknown as TenantPool
  const affinity = new WorkerAffinity(
    1,
    2,
    '/unused',
    pool,
    () => options.tenants,
    () => options.serving ?? true,
  )
  return { affinity, pool: pool as unknown as { room: number; capacity: number } }
}

describe('the worker that answers', () => {
  const [own] = idsOwnedBy(1, 1)
  const [others, another] = idsOwnedBy(2, 2)

  test('owners spread the tenants evenly between the workers', () => {
    const owners = Array.from({ length: 10_000 }, () => tenantOwner(newId(), 2))
    const first = owners.filter((owner) => owner === 1).length
    expect(first).toBeGreaterThan(4_700)
    expect(first).toBeLessThan(5_300)
  })

  test("a worker answers for its own tenants, whatever its pool holds; another's while its pool has room beyond its own share", () => {
    const { affinity, pool } = affinityOf({ room: 0, tenants: 1_000 })
    expect(affinity.answererFor(own!)).toBe(1)
    expect(affinity.answererFor(others!)).toBe(2)
    pool.room = 501
    expect(affinity.answererFor(others!)).toBe(1)
    // Room for its own 500 and no more: the other's tenant goes to its owner.
    pool.room = 500
    expect(affinity.answererFor(others!)).toBe(2)
  })

  test('a pool that can hold every tenant answers for all of them', () => {
    const { affinity } = affinityOf({ room: 0, capacity: 1_000, tenants: 1_000 })
    expect(affinity.answererFor(others!)).toBe(1)
    expect(affinityOf({ room: 0, capacity: 999, tenants: 1_000 }).affinity.answererFor(others!)).toBe(2)
  })

  test("another worker's tenant asked for more than 32 times in a second is answered here; a quiet one is still passed", () => {
    const { affinity } = affinityOf({ room: 0, tenants: 10_000 })
    const answers = Array.from({ length: 40 }, () => affinity.answererFor(others!))
    expect(answers.slice(0, 32)).toEqual(Array(32).fill(2))
    expect(answers.slice(32)).toEqual(Array(8).fill(1))
    expect(affinity.answererFor(another!)).toBe(2)
  })

  test('an owner that is not serving is not waited for', () => {
    const { affinity } = affinityOf({ room: 0, tenants: 10_000, serving: false })
    expect(affinity.answererFor(others!)).toBe(1)
  })
})
