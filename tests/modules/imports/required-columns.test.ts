// Every kind: a CSV without a column for a field its records need (a list's items' too: a
// product's variants, an order's lines) is 400 naming the field, before anything is stored.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { csv, upload } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const cases = [
  { kind: 'customers', header: ['First Name', 'Last Name'], missing: 'email' },
  { kind: 'gift-cards', header: ['Code', 'Recipient'], missing: 'balance' },
  { kind: 'club-memberships', header: ['Customer ID', 'Club'], missing: 'signupDate' },
  { kind: 'products', header: ['Handle', 'Title'], missing: 'variant.sku' },
  { kind: 'orders', header: ['Order Number', 'Created At'], missing: 'line.title' },
]

for (const { kind, header, missing } of cases)
  test(`${kind}: a file without a column for ${missing} is 400 naming it, nothing stored`, async () => {
    const res = await upload(t, csv([header, header.map((_, i) => `v${i}`)]), { kind })
    expect(res.status).toBe(400)
    expect(res.body.detail).toContain(`"${missing}"`)
    expect(res.body.errors[0].path).toBe('body/mapping')
    expect(countRows(t.tenant.db, 'data_imports')).toBe(0)
  })
