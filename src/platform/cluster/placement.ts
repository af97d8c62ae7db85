// Where tenants go: pure functions over the counts of tenants per live node, computed the same way
// by every node so that survivors of a failure agree on who claims what without talking.

/** The live node with the fewest tenants (ties: the smallest id). */
export function leastLoaded(counts: ReadonlyMap<string, number>): string | null {
  let best: string | null = null
  for (const [node, count] of [...counts].sort(([a], [b]) => a.localeCompare(b)))
    if (best === null || count < counts.get(best)!) best = node
  return best
}

/**
 * Orphans (tenants whose owner is gone) to live nodes, each to the one with the fewest at that
 * point, in tenant-id order: the survivors end up even.
 */
export function assignOrphans(
  orphans: readonly string[],
  counts: ReadonlyMap<string, number>,
): Map<string, string> {
  const load = new Map(counts)
  const plan = new Map<string, string>()
  for (const tenant of [...orphans].sort()) {
    const node = leastLoaded(load)
    if (node === null) break
    plan.set(tenant, node)
    load.set(node, load.get(node)! + 1)
  }
  return plan
}

export interface PlannedMove {
  tenant: string
  from: string
  to: string
}

/** Moves from the fullest to the emptiest live node until no two differ by more than one. */
export function rebalancePlan(tenantsByNode: ReadonlyMap<string, readonly string[]>): PlannedMove[] {
  const held = new Map([...tenantsByNode].map(([node, tenants]) => [node, [...tenants].sort()]))
  const moves: PlannedMove[] = []
  for (;;) {
    const ordered = [...held].sort(([a, x], [b, y]) => x.length - y.length || a.localeCompare(b))
    const [emptiest, fullest] = [ordered[0], ordered.at(-1)]
    if (!emptiest || !fullest || fullest[1].length - emptiest[1].length <= 1) return moves
    const tenant = fullest[1].pop()!
    emptiest[1].push(tenant)
    moves.push({ tenant, from: fullest[0], to: emptiest[0] })
  }
}
