// Which webhooks are failing: the subscriptions of both families, recent delivery attempts with
// their status and latency, and dead letters with replay and manual review.
import { useState } from 'preact/hooks'
import { type Answer, get, post } from '../api'
import { Badge, type Column, describeError, Section, Table, useLoad, when } from '../ui'

const latency = (entry: { createdAt: string; updatedAt: string }) =>
  `${Math.max(0, Date.parse(entry.updatedAt) - Date.parse(entry.createdAt))} ms`

const ROTATION_GRACE_SECONDS = 86_400

type Family = 'legacy' | 'tables'
/** What both families' subscriptions show. */
type Subscription = Pick<
  Answer<'/web-hook', 'get'>['webhooks'][number],
  'id' | 'object' | 'action' | 'url' | 'enabled' | 'createdAt'
>
type DeadLetter = Answer<'/web-hook-dead-letters', 'get'>['deadLetters'][number]

/** A new signing secret; the old one signs next to it for a day. */
async function rotate(family: Family, id: string) {
  const grace = { graceSeconds: ROTATION_GRACE_SECONDS }
  if (family === 'legacy') {
    const answer = await post('/web-hook/{id}/rotate-secret', { id }, grace)
    return { secret: answer.secret, until: answer.previousSecretExpiresAt }
  }
  // The tables API takes every write with an idempotency key.
  const { data } = await post('/tables-api/v1/webhook-subscriptions/{id}/rotate-secret', { id }, grace, {
    'idempotency-key': crypto.randomUUID(),
  })
  return { secret: data.signingSecret, until: data.previousSecretExpiresAt }
}

/** Rotates a subscription's secret and shows the new one, once. */
function RotateSecret(props: {
  subscription: Subscription
  family: Family
  onRotated: (text: string, secret?: string) => void
}) {
  const { subscription } = props
  const event = `${subscription.object}.${subscription.action}`
  return (
    <button
      type="button"
      aria-label={`Rotate the secret of ${event} to ${subscription.url}`}
      onClick={async () => {
        try {
          const { secret, until } = await rotate(props.family, subscription.id)
          props.onRotated(
            `New secret for ${event}, shown only now. The old one keeps signing until ${when(until)}.`,
            secret,
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
  const legacy = useLoad(() => get('/web-hook', { limit: 100 }), [])
  const tables = useLoad(() => get('/tables-api/v1/webhook-subscriptions'), [])
  const [rotated, setRotated] = useState<{ text: string; secret?: string } | null>(null)
  const columns = (family: Family): Column<Subscription>[] => [
    ['Event', (s) => <code>{`${s.object}.${s.action}`}</code>],
    ['URL', (s) => <span class="url">{s.url}</span>],
    [
      'Enabled',
      (s) => <Badge tone={s.enabled ? 'good' : 'neutral'}>{s.enabled ? 'enabled' : 'disabled'}</Badge>,
    ],
    ['Created', (s) => when(s.createdAt)],
    [
      'Signing secret',
      (s) => (
        <RotateSecret
          subscription={s}
          family={family}
          onRotated={(text, secret) => setRotated({ text, secret })}
        />
      ),
    ],
  ]
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
        {(list) => <Table caption="Webhooks (/web-hook)" rows={list.webhooks} columns={columns('legacy')} />}
      </Section>
      <Section title="Tables API subscriptions" loaded={tables}>
        {(list) => (
          <Table caption="Tables API webhook subscriptions" rows={list.data} columns={columns('tables')} />
        )}
      </Section>
    </>
  )
}

function DeadLetterActions(props: { letter: DeadLetter; onDone: (message: string) => void }) {
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
            () => post('/web-hook-dead-letters/{id}/replay', { id: letter.id }),
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
              () =>
                post('/web-hook-dead-letters/{id}/manual-review', { id: letter.id }, { note: note.trim() }),
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
  const log = useLoad(() => get('/web-hook-log', { limit: 25 }), [])
  const letters = useLoad(() => get('/web-hook-dead-letters', { limit: 50 }), [])
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
            <Table
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
          <Table
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
