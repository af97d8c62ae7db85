import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { appendAudit, GENESIS_HASH, verifyAuditChain } from '../../src/platform/audit/audit'
import { systemActor } from '../../src/platform/foundation/actor'
import { inWriteTransaction } from '../../src/platform/tenancy/transaction'
import { createTestApp, type TestApp } from '../harness'

describe('audit trail', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  const sqlite = () => t.tenant.db.$client

  test('entries chain: each stores the previous hash, and the chain verifies', async () => {
    for (const name of ['a', 'b', 'c']) await t.request('POST', '/vendor', { body: { name } })
    const rows = sqlite().query('SELECT prev_hash, hash FROM audit_entries ORDER BY seq').all() as {
      prev_hash: string
      hash: string
    }[]
    expect(rows[0]!.prev_hash).toBe(GENESIS_HASH)
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toBe(rows[i - 1]!.hash)
    expect(verifyAuditChain(t.tenant.db)).toEqual({ ok: true, count: rows.length })
  })

  test('the database refuses to update or delete an entry', () => {
    expect(() => sqlite().exec("UPDATE audit_entries SET action = 'forged'")).toThrow(/append-only/)
    expect(() => sqlite().exec('DELETE FROM audit_entries')).toThrow(/append-only/)
  })

  test('verification names the first entry that was tampered with behind the triggers', async () => {
    for (const name of ['a', 'b', 'c']) await t.request('POST', '/vendor', { body: { name } })
    const target = sqlite()
      .query('SELECT id, seq FROM audit_entries ORDER BY seq LIMIT 1 OFFSET 2')
      .get() as {
      id: string
      seq: number
    }
    sqlite().exec('DROP TRIGGER audit_entries_no_update')
    sqlite().query('UPDATE audit_entries SET metadata = \'{"forged":true}\' WHERE id = ?').run(target.id)
    expect(verifyAuditChain(t.tenant.db)).toMatchObject({
      ok: false,
      firstBadEntryId: target.id,
      seq: target.seq,
    })
  })

  test('an entry written in a transaction that rolls back is gone with it', () => {
    const before = verifyAuditChain(t.tenant.db)
    expect(() =>
      inWriteTransaction(t.tenant.db, (tx) => {
        appendAudit(tx, systemActor(t.tenant.id, 'test'), { action: 'x', entityType: 'y', entityId: null })
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(verifyAuditChain(t.tenant.db)).toEqual(before)
  })
})
