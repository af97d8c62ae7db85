// Who changed what: the audit trail with filters, one entry's before/after, and the hash chain
// verified on demand. The operator sees the operator audit log instead.
import { useState } from 'preact/hooks'
import { api, isOperator } from '../api'
import type { PageProps } from '../main'
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

function EntryDetail(props: { entry: any; onClose: () => void }) {
  const { entry } = props
  const changes = changesIn(entry.metadata)
  return (
    <section class="card" aria-labelledby="entry-title">
      <header class="section-head">
        <h3 id="entry-title">
          <code>{entry.action}</code> on {entry.entityType} {entry.entityId}
        </h3>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </header>
      <p>
        By <code>{entry.subject}</code> at {when(entry.createdAt)} ({entry.method} {entry.route})
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
            const verdict = await api('GET', '/audit-entries/verification')
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
  const [selected, setSelected] = useState<any>(null)
  const query = new URLSearchParams({ limit: '50' })
  for (const [key, value] of Object.entries(filters)) if (value) query.set(key, value)
  const entries = useLoad(
    () => api('GET', `${operator ? '/admin/v1/audit-entries' : '/audit-entries'}?${query}`),
    [operator, query.toString()],
  )
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
            <p class="muted">{list.page.total} entries match.</p>
            <Table<any>
              caption="Audit entries, newest first"
              rows={list.auditEntries}
              empty="No entries match these filters."
              columns={[
                ['When', (e) => when(e.createdAt)],
                ['Actor', (e) => <code>{e.subject}</code>],
                ['Action', (e) => <code>{e.action}</code>],
                ['Entity', (e) => (operator ? (e.tenantSlug ?? '—') : `${e.entityType} ${e.entityId ?? ''}`)],
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
