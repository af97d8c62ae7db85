// Which webhooks are failing: the subscriptions of both families, recent delivery attempts with
// their status and latency, and dead letters with replay and manual review.
import { useState } from 'preact/hooks'
import { api } from '../api'
import { Badge, describeError, Section, Table, useLoad, when } from '../ui'

const latency = (entry: { createdAt: string; updatedAt: string }) =>
  `${Math.max(0, Date.parse(entry.updatedAt) - Date.parse(entry.createdAt))} ms`

const ROTATION_GRACE_SECONDS = 86_400

/** Rotates a subscription's secret and shows the new one, once. */
function RotateSecret(props: {
  subscription: any
  path: string
  onRotated: (text: string, secret?: string) => void
}) {
  const { subscription } = props
  return (
    <button
      type="button"
      aria-label={`Rotate the secret of ${subscription.object}.${subscription.action} to ${subscription.url}`}
      onClick={async () => {
        try {
          const answer = await api(
            'POST',
            `${props.path}/${subscription.id}/rotate-secret`,
            { graceSeconds: ROTATION_GRACE_SECONDS },
            // The tables API takes every write with an idempotency key.
            props.path.startsWith('/tables-api/') ? { 'idempotency-key': crypto.randomUUID() } : undefined,
          )
          const rotated = answer.data ?? answer
          props.onRotated(
            `New secret for ${subscription.object}.${subscription.action}, shown only now. The old one keeps signing until ${when(rotated.previousSecretExpiresAt)}.`,
            rotated.secret ?? rotated.signingSecret,
          )
        } catch (error) {
          props.onRotated(describeError(error as Error))
        }
      }}
    >
      Rotate secret
    </button>
  )
}

function Subscriptions() {
  const legacy = useLoad(() => api('GET', '/web-hook?limit=100'), [])
  const tables = useLoad(() => api('GET', '/tables-api/v1/webhook-subscriptions'), [])
  const [rotated, setRotated] = useState<{ text: string; secret?: string } | null>(null)
  const columns = (path: string) =>
    [
      ['Event', (s: any) => <code>{`${s.object}.${s.action}`}</code>],
      ['URL', (s: any) => <span class="url">{s.url}</span>],
      [
        'Enabled',
        (s: any) => <Badge tone={s.enabled ? 'good' : 'neutral'}>{s.enabled ? 'enabled' : 'disabled'}</Badge>,
      ],
      ['Created', (s: any) => when(s.createdAt)],
      [
        'Signing secret',
        (s: any) => (
          <RotateSecret
            subscription={s}
            path={path}
            onRotated={(text, secret) => setRotated({ text, secret })}
          />
        ),
      ],
    ] as [string, (s: any) => any][]
  return (
    <>
      {rotated && (
        <div class="secret" role="status">
          <p>{rotated.text}</p>
          {rotated.secret && (
            <>
              <label for="rotated-secret">New signing secret</label>
              <input
                id="rotated-secret"
                readOnly
                value={rotated.secret}
                onFocus={(e) => e.currentTarget.select()}
              />
            </>
          )}
          <button type="button" class="link" onClick={() => setRotated(null)}>
            Done, hide it
          </button>
        </div>
      )}
      <Section title="Webhook subscriptions" loaded={legacy}>
        {(list) => (
          <Table caption="Webhooks (/web-hook)" rows={list.webhooks} columns={columns('/web-hook')} />
        )}
      </Section>
      <Section title="Tables API subscriptions" loaded={tables}>
        {(list) => (
          <Table
            caption="Tables API webhook subscriptions"
            rows={list.data}
            columns={columns('/tables-api/v1/webhook-subscriptions')}
          />
        )}
      </Section>
    </>
  )
}

function DeadLetterActions(props: { letter: any; onDone: (message: string) => void }) {
  const { letter } = props
  const [note, setNote] = useState('')
  const [busy, setBusy] = useState(false)
  const run = async (work: () => Promise<unknown>, done: string) => {
    setBusy(true)
    try {
      await work()
      props.onDone(done)
    } catch (error) {
      props.onDone(describeError(error as Error))
    } finally {
      setBusy(false)
    }
  }
  const noteId = `note-${letter.id}`
  return (
    <div class="actions">
      <button
        type="button"
        disabled={busy || !letter.recovery.eligible}
        title={letter.recovery.reason}
        onClick={() =>
          run(
            () => api('POST', `/web-hook-dead-letters/${letter.id}/replay`),
            `Replay of ${letter.objectType}.${letter.action} started.`,
          )
        }
      >
        Replay
      </button>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault()
          if (note.trim())
            void run(
              () => api('POST', `/web-hook-dead-letters/${letter.id}/manual-review`, { note: note.trim() }),
              'Review recorded.',
            )
        }}
      >
        <label class="visually-hidden" for={noteId}>
          Review note for {letter.objectType}.{letter.action}
        </label>
        <input
          id={noteId}
          placeholder="review note"
          value={note}
          onInput={(e) => setNote(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy || !note.trim()}>
          Record review
        </button>
      </form>
    </div>
  )
}

function Deliveries() {
  const log = useLoad(() => api('GET', '/web-hook-log?limit=25'), [])
  const letters = useLoad(() => api('GET', '/web-hook-dead-letters?limit=50'), [])
  const [message, setMessage] = useState<string | null>(null)
  const refresh = (text: string) => {
    setMessage(text)
    letters.reload()
    log.reload()
  }
  return (
    <>
      <Section
        title="Dead letters"
        loaded={letters}
        actions={
          <button type="button" onClick={() => refresh('Refreshed.')}>
            Refresh
          </button>
        }
      >
        {(list) => (
          <>
            <p role="status" class="muted">
              {message ?? `${list.total} dead letter${list.total === 1 ? '' : 's'}.`}
            </p>
            <Table<any>
              caption="Dead letters, newest first"
              rows={list.deadLetters}
              empty="No dead letters: every event reached its subscribers."
              columns={[
                ['Event', (l) => <code>{`${l.objectType}.${l.action}`}</code>],
                [
                  'Status',
                  (l) => (
                    <Badge
                      tone={l.status === 'delivered' ? 'good' : l.status === 'pending' ? 'bad' : 'neutral'}
                    >
                      {l.status}
                    </Badge>
                  ),
                ],
                ['Attempts', (l) => l.attemptCount],
                ['Last error', (l) => l.lastError ?? '—'],
                ['Since', (l) => when(l.createdAt)],
                ['Recovery', (l) => <DeadLetterActions letter={l} onDone={refresh} />],
              ]}
            />
          </>
        )}
      </Section>
      <Section title="Recent deliveries" loaded={log}>
        {(list) => (
          <Table<any>
            caption="Delivery attempts, newest first"
            rows={list.webHookLogs}
            empty="No delivery attempts yet."
            columns={[
              ['When', (e) => when(e.createdAt)],
              ['Event', (e) => <code>{`${e.object}.${e.action}`}</code>],
              ['URL', (e) => <span class="url">{e.url}</span>],
              [
                'Result',
                (e) =>
                  e.isSuccess ? (
                    <Badge tone="good">delivered</Badge>
                  ) : (
                    <Badge tone="bad">
                      {e.error?.status ? `HTTP ${e.error.status}` : (e.error?.message ?? 'failed')}
                    </Badge>
                  ),
              ],
              ['Latency', latency],
              ['Attempt', (e) => `${e.attemptNumber} (cycle ${e.deliveryCycle})`],
            ]}
          />
        )}
      </Section>
    </>
  )
}

export function WebhooksPage() {
  return (
    <>
      <Deliveries />
      <Subscriptions />
    </>
  )
}
