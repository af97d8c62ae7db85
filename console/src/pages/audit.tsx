// Who changed what: the audit trail with filters, one entry's before/after, and the hash chain
// verified on demand. The operator sees the operator audit log instead.
import { useState } from 'preact/hooks'
import type { PageProps } from '../api'
import { type Answer, get, isOperator } from '../api'
import { Badge, describeError, Section, Table, useLoad, when } from '../ui'

const FILTERS = [
  ['subject', 'Actor (subject)', 'e.g. owner or credential:…'],
  ['entityType', 'Entity type', 'e.g. vendor, api_credential'],
  ['entityId', 'Entity id', ''],
  ['action', 'Action', 'e.g. credential.revoke'],
  ['from', 'From (date)', 'YYYY-MM-DD'],
  ['to', 'To (date)', 'YYYY-MM-DD'],
] as const

type Filters = Partial<Record<(typeof FILTERS)[number][0], string>>

type Change = [path: string, before: unknown, after: unknown]

/** Every `{before, after}` or `{from, to}` pair in an entry's metadata, by path. */
function changesIn(value: unknown, path = ''): Change[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return []
  const record = value as Record<string, unknown>
  if ('before' in record && 'after' in record) return [[path || '(entry)', record.before, record.after]]
  if ('from' in record && 'to' in record && Object.keys(record).length === 2)
    return [[path || '(entry)', record.from, record.to]]
  return Object.entries(record).flatMap(([key, inner]) => changesIn(inner, path ? `${path}.${key}` : key))
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

/** An entry of the tenant's trail or of the operator's, as the page shows it. */
interface Entry {
  id: string
  createdAt: string
  subject: string | null
  action: string
  /** What it is about: the record (tenant trail) or the tenant (operator trail). */
  about: string
  request: string
  metadata: Record<string, unknown>
}

const fromTenantTrail = (e: Answer<'/audit-entries', 'get'>['auditEntries'][number]): Entry => ({
  ...e,
  about: `${e.entityType} ${e.entityId ?? ''}`.trim(),
  request: e.method ? `${e.method} ${e.route}` : 'no request',
})

const fromOperatorTrail = (e: Answer<'/admin/v1/audit-entries', 'get'>['auditEntries'][number]): Entry => ({
  ...e,
  about: e.tenantSlug ? `tenant ${e.tenantSlug}` : 'the service',
  request: e.requestId ? `request ${e.requestId}` : 'no request',
})

function EntryDetail(props: { entry: Entry; onClose: () => void }) {
  const { entry } = props
  const changes = changesIn(entry.metadata)
  return (
    <section class="card" aria-labelledby="entry-title">
      <header class="section-head">
        <h3 id="entry-title">
          <code>{entry.action}</code> on {entry.about}
        </h3>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </header>
      <p>
        By <code>{entry.subject}</code> at {when(entry.createdAt)} ({entry.request})
      </p>
      {changes.length > 0 && (
        <Table<Change>
          caption="Before and after"
          rows={changes}
          columns={[
            ['Field', (c) => c[0]],
            ['Before', (c) => <code class="before">{shown(c[1])}</code>],
            ['After', (c) => <code class="after">{shown(c[2])}</code>],
          ]}
        />
      )}
      <details open={changes.length === 0}>
        <summary>Recorded metadata</summary>
        <pre>{JSON.stringify(entry.metadata, null, 2)}</pre>
      </details>
    </section>
  )
}

function Verification() {
  const [result, setResult] = useState<string | null>(null)
  const [ok, setOk] = useState<boolean | null>(null)
  return (
    <div class="actions">
      <button
        type="button"
        onClick={async () => {
          setResult('Verifying…')
          try {
            const verdict = await get('/audit-entries/verification')
            setOk(verdict.ok)
            setResult(
              verdict.ok
                ? `Chain verified: ${verdict.count} entries, none altered.`
                : `Chain broken at entry ${verdict.firstBadEntryId} (seq ${verdict.seq}); ${verdict.count} entries before it verify.`,
            )
          } catch (error) {
            setOk(false)
            setResult(describeError(error as Error))
          }
        }}
      >
        Verify the audit chain
      </button>
      <p role="status">
        {result && <Badge tone={ok ? 'good' : ok === false ? 'bad' : 'neutral'}>{result}</Badge>}
      </p>
    </div>
  )
}

export function AuditPage({ session }: PageProps) {
  const operator = isOperator(session)
  const [draft, setDraft] = useState<Filters>({})
  const [filters, setFilters] = useState<Filters>({})
  const [selected, setSelected] = useState<Entry | null>(null)
  const entries = useLoad(async () => {
    if (operator) {
      const list = await get('/admin/v1/audit-entries', { action: filters.action, limit: 50 })
      return { total: list.page.total, entries: list.auditEntries.map(fromOperatorTrail) }
    }
    const list = await get('/audit-entries', { ...filters, limit: 50 })
    return { total: list.page.total, entries: list.auditEntries.map(fromTenantTrail) }
  }, [operator, filters])
  return (
    <>
      {!operator && <Verification />}
      <form
        class="filters"
        aria-label="Audit filters"
        onSubmit={(event) => {
          event.preventDefault()
          setSelected(null)
          setFilters(draft)
        }}
      >
        {FILTERS.filter(([key]) => !operator || key === 'action').map(([key, label, hint]) => (
          <div key={key}>
            <label for={`filter-${key}`}>{label}</label>
            <input
              id={`filter-${key}`}
              placeholder={hint}
              value={draft[key] ?? ''}
              onInput={(e) => setDraft({ ...draft, [key]: e.currentTarget.value })}
            />
          </div>
        ))}
        <button type="submit">Apply filters</button>
      </form>
      {selected && <EntryDetail entry={selected} onClose={() => setSelected(null)} />}
      <Section title="Audit entries" loaded={entries}>
        {(list) => (
          <>
            <p class="muted">{list.total} entries match.</p>
            <Table
              caption="Audit entries, newest first"
              rows={list.entries}
              empty="No entries match these filters."
              columns={[
                ['When', (e) => when(e.createdAt)],
                ['Actor', (e) => <code>{e.subject}</code>],
                ['Action', (e) => <code>{e.action}</code>],
                ['About', (e) => e.about],
                [
                  'Details',
                  (e) => (
                    <button
                      type="button"
                      onClick={() => setSelected(e)}
                      aria-label={`Show ${e.action} of ${when(e.createdAt)}`}
                    >
                      Show
                    </button>
                  ),
                ],
              ]}
            />
          </>
        )}
      </Section>
    </>
  )
}
