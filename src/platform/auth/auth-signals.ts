// Change signals for cached principals, shared by every process on one data directory.
//
// The source of truth is the auth version in each database (a row bumped, in the writing
// transaction, by triggers on a tenant's staff, role, job, assignment, location, session and
// credential tables, and on the control database's tenants). Reading it would cost a query per
// request, so after a transaction that moved it
// commits, the writer also stores a fresh random value in this tenant's slot of a small file that
// every process maps into memory (`auth-signals` in DATA_DIR). A cached principal remembers the
// slot's value from before it was built and is used only while the slot still holds it: a cache
// hit reads one number from memory and runs no SQL. The writer stores the signal before it
// answers, so the next request anywhere sees the change.
//
// Tenants share slots by hash (a collision only costs a rebuild). Slot 0 is the control
// database's: the tenants (their status). A tenant's sessions and credentials are its own slot's.
import { fnv1a, mapSharedFile } from '../foundation/shared-memory'

const TENANT_SLOTS = 4096
const BYTES = (TENANT_SLOTS + 1) * 8

const slotOf = (tenantId: string) => 1 + (fnv1a(tenantId) % TENANT_SLOTS)

export class AuthSignals {
  private readonly slots: Float64Array

  /** `dataDir` null: signals within this process only. */
  constructor(dataDir: string | null) {
    const { buffer, byteOffset } = mapSharedFile(dataDir, 'auth-signals', BYTES)
    this.slots = new Float64Array(buffer, byteOffset, TENANT_SLOTS + 1)
  }

  tenant(tenantId: string): number {
    return this.slots[slotOf(tenantId)]!
  }

  control(): number {
    return this.slots[0]!
  }

  /** A fresh value, not a counter: two processes bumping at once must still leave a change. */
  bumpTenant(tenantId: string): void {
    this.slots[slotOf(tenantId)] = Math.random()
  }

  bumpControl(): void {
    this.slots[0] = Math.random()
  }
}
