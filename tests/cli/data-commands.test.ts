// `import FILE` and `export KIND` run as real subprocesses against a test app's data directory:
// what the command line imports, the server reads; plain progress lines when not on a terminal.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { createTestApp, type TestApp } from '../harness'

const main = join(import.meta.dir, '..', '..', 'src', 'main.ts')

describe('cli: import and export', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  const cli = async (...args: string[]) => {
    const proc = Bun.spawn([process.execPath, main, ...args], {
      env: { ...process.env, DATA_DIR: t.dataDir, LOG_LEVEL: 'silent' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ])
    return { code, stdout, stderr }
  }
  const lastJson = (text: string) => JSON.parse(text.trim().split('\n').pop()!)

  test('import --validate keeps nothing; import applies, reports failed rows, and a second run changes nothing', async () => {
    const file = join(t.dataDir, 'people.csv')
    writeFileSync(
      file,
      'External ID,First Name,Last Name,Email\nc-1,Ada,Lovelace,ada@example.com\nc-2,Bad,Email,nope\n',
    )
    const dry = await cli('import', file, '--tenant', 'acme', '--kind', 'customers', '--validate')
    expect(dry.code).toBe(0)
    expect(lastJson(dry.stdout).import).toMatchObject({ mode: 'validate', rowsApplied: 1, rowsFailed: 1 })
    expect(dry.stderr).toContain('import people.csv 100%: 2 rows, 1 failed')
    expect((await t.request('GET', '/customers')).body.customers).toEqual([])

    const applied = await cli('import', file, '--tenant', 'acme', '--kind', 'customers')
    const result = lastJson(applied.stdout)
    expect(result.import).toMatchObject({ mode: 'apply', state: 'succeeded', rowsApplied: 1, rowsFailed: 1 })
    expect(result.errors).toEqual([{ line: 3, field: 'email', reason: expect.any(String) }])
    expect((await t.request('GET', '/customers')).body.customers.map((c: any) => c.email)).toEqual([
      'ada@example.com',
    ])
    const again = lastJson((await cli('import', file, '--tenant', 'acme', '--kind', 'customers')).stdout)
    expect(again.import).toMatchObject({ rowsApplied: 0, rowsUnchanged: 1 })

    const unknown = await cli('import', file, '--tenant', 'acme', '--kind', 'wines')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('body/kind')
  })

  test('import --kind orders --location: rows naming no location land at it; the import and its location show on the orders', async () => {
    const file = join(t.dataDir, 'orders.csv')
    writeFileSync(
      file,
      'Order Number,Created At,Lineitem name,Lineitem quantity,Lineitem price,Payment Method\nO-1,2022-01-01T10:00:00.000Z,Wine,2,1500,cash\nO-1,,Glass,1,0,\n',
    )
    const run = await cli(
      'import',
      file,
      '--tenant',
      'acme',
      '--kind',
      'orders',
      '--location',
      t.tenant.locationId,
    )
    expect(run.code).toBe(0)
    const result = lastJson(run.stdout)
    expect(result.errors).toEqual([])
    expect(result.import).toMatchObject({ rowsApplied: 2, rowsFailed: 0, locationId: t.tenant.locationId })
    const order = (await t.request('GET', '/order')).body.orders.find((o: any) => o.externalRef === 'O-1')
    expect(order).toMatchObject({ importId: result.import.id, locationId: t.tenant.locationId, total: 3000 })
    expect(order.lineItems).toHaveLength(2)
  })

  test('export streams to stdout, or to --out with the result on stdout', async () => {
    await t.request('POST', '/customers', {
      body: { firstName: 'Eve', lastName: 'Exported', email: 'eve@example.com' },
    })
    const piped = await cli('export', 'customers', '--tenant', 'acme')
    expect(piped.code).toBe(0)
    const rows = parse(piped.stdout, { columns: true }) as Record<string, string>[]
    expect(rows.map((r) => r.email)).toContain('eve@example.com')
    expect(lastJson(piped.stderr)).toMatchObject({ kind: 'customers', tenant: 'acme', rows: rows.length })

    const out = join(t.dataDir, 'audit.ndjson')
    const written = await cli('export', 'audit-log', '--tenant', 'acme', '--format', 'ndjson', '--out', out)
    expect(written.code).toBe(0)
    const lines = readFileSync(out, 'utf8').trim().split('\n')
    expect(lastJson(written.stdout)).toMatchObject({ kind: 'audit-log', rows: lines.length, out })
    expect(JSON.parse(lines[0]!)).toHaveProperty('action')
    expect((await cli('export', 'wines', '--tenant', 'acme')).code).toBe(1)
  })
})
