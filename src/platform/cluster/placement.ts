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

/**
 * Moves from the fullest to the emptiest live node until no two differ by more than one. `fixed`
 * tenants (their move failed) count where they are but are never picked: the next fullest node
 * with a tenant to spare gives one instead.
 */
export function rebalancePlan(
  tenantsByNode: ReadonlyMap<string, readonly string[]>,
  fixed: ReadonlySet<string> = new Set(),
): PlannedMove[] {
  const held = new Map([...tenantsByNode].map(([node, tenants]) => [node, [...tenants].sort()]))
  const moves: PlannedMove[] = []
  for (;;) {
    const ordered = [...held].sort(([a, x], [b, y]) => x.length - y.length || a.localeCompare(b))
    const emptiest = ordered[0]
    if (!emptiest) return moves
    const giver = ordered
      .reverse()
      .find(([, tenants]) => tenants.length - emptiest[1].length > 1 && tenants.some((t) => !fixed.has(t)))
    if (!giver) return moves
    const tenant = giver[1].findLast((t) => !fixed.has(t))!
    giver[1].splice(giver[1].lastIndexOf(tenant), 1)
    emptiest[1].push(tenant)
    moves.push({ tenant, from: giver[0], to: emptiest[0] })
  }
}
