// Bulk imports: upload a file, validate it (a dry run), read the failed rows, apply it, and watch
// its progress; the tenant's recent imports below.
import { useEffect, useState } from 'preact/hooks'
import { type Answer, get, type PageProps, postForm } from '../api'
import { Badge, bytes, describeError, ErrorNote, Section, Table, useLoad, when } from '../ui'

type DataImport = Answer<'/imports/{id}', 'get'>
type ImportErrors = Answer<'/imports/{id}/errors', 'get'>['errors']

const finished = (i: DataImport) => i.state === 'succeeded' || i.state === 'failed'

/** Polls an import once a second until it finishes, with its first failed rows. */
function useImport(id: string | null) {
  const [current, setCurrent] = useState<{ import: DataImport; errors: ImportErrors } | null>(null)
  const [error, setError] = useState<Error | null>(null)
  useEffect(() => {
    if (!id) return
    let stopped = false
    const poll = async () => {
      try {
        const found = await get('/imports/{id}', {}, { id })
        const errors = await get('/imports/{id}/errors', { limit: 100 }, { id })
        if (stopped) return
        setCurrent({ import: found, errors: errors.errors })
        if (!finished(found)) setTimeout(poll, 1000)
      } catch (e) {
        if (!stopped) setError(e as Error)
      }
    }
    void poll()
    return () => {
      stopped = true
    }
  }, [id])
  return { current, error }
}

export function ImportsPage(_props: PageProps) {
  const [file, setFile] = useState<File | null>(null)
  const [kind, setKind] = useState<'customers' | 'gift-cards' | 'club-memberships' | 'products' | 'orders'>(
    'customers',
  )
  const [id, setId] = useState<string | null>(null)
  const [failure, setFailure] = useState<string | null>(null)
  const [listed, setListed] = useState(0)
  const { current, error } = useImport(id)
  const recent = useLoad(() => get('/imports', { limit: 20 }), [listed, current?.import.state])

  const start = async (mode: 'validate' | 'apply') => {
    if (!file) return
    const form = new FormData()
    form.set('file', file)
    form.set('kind', kind)
    form.set('mode', mode)
    setFailure(null)
    try {
      const created = await postForm('/imports', form)
      setId(created.id)
      setListed((n) => n + 1)
    } catch (e) {
      setFailure(describeError(e as Error))
    }
  }
  const shown = current?.import
  const validated = shown?.mode === 'validate' && shown.state === 'succeeded'

  return (
    <>
      <section aria-labelledby="import-file">
        <h2 id="import-file">Import a file</h2>
        <form
          class="import-form"
          onSubmit={(event) => {
            event.preventDefault()
            void start('validate')
          }}
        >
          <label for="import-kind">Kind</label>
          <select
            id="import-kind"
            value={kind}
            onChange={(e) => setKind(e.currentTarget.value as typeof kind)}
          >
            <option value="customers">Customers (with an address and tags)</option>
            <option value="gift-cards">Gift cards (with their balance)</option>
            <option value="club-memberships">
              Club memberships (with saved cards as provider references)
            </option>
            <option value="products">Products (with their variants, one row each)</option>
            <option value="orders">Orders (closed, with their lines and payments)</option>
          </select>
          <label for="import-upload">CSV or NDJSON file</label>
          <input
            id="import-upload"
            type="file"
            accept=".csv,.ndjson,.jsonl,text/csv"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
          <button type="submit" disabled={!file}>
            Validate
          </button>
          <button type="button" disabled={!file || !validated} onClick={() => void start('apply')}>
            Apply
          </button>
        </form>
        {failure && <p role="alert">{failure}</p>}
        {error && <ErrorNote error={error} />}
        {shown && (
          <div aria-live="polite">
            <p>
              {shown.mode === 'validate' ? 'Dry run' : 'Import'} of {shown.fileName ?? 'the file'} (
              {bytes(shown.fileBytes)}):{' '}
              <Badge tone={shown.state === 'failed' ? 'bad' : finished(shown) ? 'good' : 'neutral'}>
                {shown.state}
              </Badge>
            </p>
            <progress max={100} value={Math.round(shown.progress * 100)} aria-label="Progress" />
            <p>
              {shown.rowsRead} rows read, {shown.rowsApplied}{' '}
              {shown.mode === 'validate' ? 'would apply' : 'applied'}, {shown.rowsUnchanged} unchanged,{' '}
              {shown.rowsFailed} failed{shown.error ? `: ${shown.error}` : ''}
            </p>
            {current && current.errors.length > 0 && (
              <Table
                caption="Failed rows (the first 100)"
                rows={current.errors}
                columns={[
                  ['Line', (e) => e.line],
                  ['Field', (e) => e.field ?? '(the row)'],
                  ['Reason', (e) => e.reason],
                ]}
              />
            )}
          </div>
        )}
      </section>
      <Section title="Recent imports" loaded={recent}>
        {(list) => (
          <Table
            caption="Recent imports"
            rows={list.imports}
            empty="No imports yet."
            columns={[
              ['When', (i) => when(i.createdAt)],
              ['Kind', (i) => i.kind],
              ['Mode', (i) => i.mode],
              ['File', (i) => i.fileName ?? '—'],
              ['State', (i) => i.state],
              ['Applied', (i) => i.rowsApplied],
              ['Failed', (i) => i.rowsFailed],
            ]}
          />
        )}
      </Section>
    </>
  )
}
