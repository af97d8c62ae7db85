// Uploading an import file as a multipart form, and following the import to its end.
import { IMPORTS_JOB } from '../../../src/modules/imports/jobs'
import type { StaffFixture, TenantFixture, TestApp, TestResponse } from '../../harness'

export interface UploadOptions {
  as?: StaffFixture | null
  tenant?: TenantFixture
  fileName?: string
  fileType?: string
  headers?: Record<string, string>
}

export async function upload(
  t: TestApp,
  file: string | Uint8Array,
  fields: Record<string, string>,
  options: UploadOptions = {},
): Promise<TestResponse> {
  const form = new FormData()
  form.set(
    'file',
    new File([file], options.fileName ?? 'customers.csv', { type: options.fileType ?? 'text/csv' }),
  )
  for (const [name, value] of Object.entries(fields)) form.set(name, value)
  const headers = new Headers(options.headers)
  const as = options.as === undefined ? t.tenant.owner : options.as
  if (as) headers.set('authorization', `Bearer ${as.token}`)
  headers.set('x-tenant-id', (options.tenant ?? t.tenant).id)
  const response = await t.app.handle(
    new Request('http://localhost/imports', { method: 'POST', headers, body: form }),
  )
  const text = await response.text()
  let body: any = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: response.status, headers: response.headers, body, text }
}

/** Uploads, works the import to its end, and answers its final state. */
export async function imported(
  t: TestApp,
  file: string | Uint8Array,
  fields: Record<string, string>,
  options: UploadOptions = {},
) {
  const res = await upload(t, file, fields, options)
  if (res.status !== 202) throw new Error(`upload: ${res.status} ${res.text}`)
  await t.platform.jobs.runNow(IMPORTS_JOB)
  const done = await t.request('GET', `/imports/${res.body.id}`, {
    tenant: options.tenant,
    as: options.as ?? undefined,
  })
  return done.body
}

/** The rows an import failed, as `GET /imports/{id}/errors` lists them. */
export const importErrors = async (t: TestApp, importId: string): Promise<any[]> =>
  (await t.request('GET', `/imports/${importId}/errors`)).body.errors

/** Each failed row's line and field, in order: what most tests compare. */
export const lineAndField = (errors: { line: number; field: string | null }[]) =>
  errors.map((e): [number, string | null] => [e.line, e.field])

export const csv = (rows: string[][]) => `${rows.map((row) => row.join(',')).join('\n')}\n`

/** The tenant's audit entries of `action`, oldest first. */
export const auditEntries = (t: TestApp, action: string) =>
  t.tenant.db.$client
    .query<{ entity_id: string; metadata: string; subject: string; staff_user_id: string }, [string]>(
      'SELECT entity_id, metadata, subject, staff_user_id FROM audit_entries WHERE action = ? ORDER BY seq',
    )
    .all(action)

/** The actions of the tenant's outbox events about `object`, oldest first. */
export const eventActions = (t: TestApp, object: string) =>
  t.tenant.db.$client
    .query<{ action: string }, [string]>('SELECT action FROM outbox_events WHERE object = ? ORDER BY rowid')
    .all(object)
    .map((e) => e.action)
