// Who has access: staff users with their roles per location, and the tables-API credentials
// (`tpk_live_`): made here (the token shown once) and revoked.
import { useState } from 'preact/hooks'
import { type Answer, get, post } from '../api'
import { Badge, describeError, ErrorNote, Section, Table, useLoad, when } from '../ui'

type Credential = Answer<'/credentials', 'get'>['credentials'][number]
type Location = Answer<'/locations', 'get'>['locations'][number]

const SCOPES = ['events:read', 'reservations:read', 'reservations:write', 'webhooks:manage'] as const

function useLocations() {
  return useLoad(async () => {
    const { locations } = await get('/locations', { limit: 100 })
    return locations
  }, [])
}

function StaffUsers(props: { names: Map<string, string> }) {
  const staff = useLoad(() => get('/staff-users', { limit: 100 }), [])
  return (
    <Section title="Staff users and roles" loaded={staff}>
      {(list) => (
        <Table
          caption="Staff users"
          rows={list.staffUsers}
          columns={[
            ['Name', (s) => `${s.firstName} ${s.lastName}`],
            ['Email', (s) => s.email],
            ['Status', (s) => <Badge tone={s.status === 'active' ? 'good' : 'neutral'}>{s.status}</Badge>],
            [
              'Roles',
              (s) =>
                s.roles.length === 0
                  ? 'none'
                  : s.roles
                      .map(
                        (r) =>
                          `${r.role} @ ${r.locationId ? (props.names.get(r.locationId) ?? r.locationId) : 'every location'}`,
                      )
                      .join(', '),
            ],
            ['POS passcode', (s) => (s.passcodeSet ? 'set' : '—')],
          ]}
        />
      )}
    </Section>
  )
}

function NewCredential(props: { locations: Location[]; onCreated: () => void }) {
  const [name, setName] = useState('')
  const [scopes, setScopes] = useState<string[]>(['reservations:read'])
  const [locationIds, setLocationIds] = useState<string[]>(props.locations.slice(0, 1).map((l) => l.id))
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null)
  const [error, setError] = useState<Error | null>(null)
  const toggle = (list: string[], value: string) =>
    list.includes(value) ? list.filter((v) => v !== value) : [...list, value]
  return (
    <form
      class="card"
      aria-labelledby="new-credential"
      onSubmit={async (event) => {
        event.preventDefault()
        setError(null)
        try {
          const answer = await post('/credentials', {}, { name: name.trim(), scopes, locationIds })
          setCreated({ name: answer.credential.name, token: answer.token })
          setName('')
          props.onCreated()
        } catch (caught) {
          setError(caught as Error)
        }
      }}
    >
      <h3 id="new-credential">New credential</h3>
      <label for="credential-name">Name</label>
      <input
        id="credential-name"
        required
        maxLength={200}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <fieldset>
        <legend>Scopes</legend>
        {SCOPES.map((scope) => (
          <label key={scope} class="check">
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={() => setScopes(toggle(scopes, scope))}
            />
            {scope}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Locations</legend>
        {props.locations.map((location) => (
          <label key={location.id} class="check">
            <input
              type="checkbox"
              checked={locationIds.includes(location.id)}
              onChange={() => setLocationIds(toggle(locationIds, location.id))}
            />
            {location.name}
          </label>
        ))}
      </fieldset>
      <button type="submit">Create credential</button>
      {error && <ErrorNote error={error} />}
      {created && (
        <div class="secret" role="status">
          <p>
            Token of <strong>{created.name}</strong>, shown only now: copy it into the partner’s system.
          </p>
          <label for="new-token">New token</label>
          <input id="new-token" readOnly value={created.token} onFocus={(e) => e.currentTarget.select()} />
          <button type="button" class="link" onClick={() => setCreated(null)}>
            Done, hide it
          </button>
        </div>
      )}
    </form>
  )
}

function Credentials(props: { locations: Location[]; names: Map<string, string> }) {
  const credentials = useLoad(() => get('/credentials'), [])
  const [message, setMessage] = useState<string | null>(null)
  const revoke = async (credential: Credential) => {
    try {
      await post('/credentials/{id}/revoke', { id: credential.id })
      setMessage(`Revoked ${credential.name}: its token is refused from now on.`)
    } catch (error) {
      setMessage(describeError(error as Error))
    }
    credentials.reload()
  }
  return (
    <Section title="Tables API credentials" loaded={credentials}>
      {(list) => (
        <>
          {message && (
            <p role="status" class="muted">
              {message}
            </p>
          )}
          <Table
            caption="Tables API credentials"
            rows={list.credentials}
            empty="No credentials yet."
            columns={[
              ['Name', (c) => c.name],
              ['Token', (c) => <code>tpk_live_…{c.tokenHint}</code>],
              ['Scopes', (c) => c.scopes.join(', ')],
              ['Locations', (c) => c.locationIds.map((id) => props.names.get(id) ?? id).join(', ')],
              ['Created', (c) => when(c.createdAt)],
              [
                'Status',
                (c) =>
                  c.status === 'active' ? (
                    <button type="button" onClick={() => revoke(c)} aria-label={`Revoke ${c.name}`}>
                      Revoke
                    </button>
                  ) : (
                    <Badge tone="neutral">revoked {when(c.revokedAt)}</Badge>
                  ),
              ],
            ]}
          />
          <NewCredential locations={props.locations} onCreated={credentials.reload} />
        </>
      )}
    </Section>
  )
}

function PasscodeSessions(props: { names: Map<string, string> }) {
  const loaded = useLoad(async () => {
    const [sessions, staff] = await Promise.all([
      get('/auth/passcode-sessions', { limit: 100 }),
      get('/staff-users', { limit: 100 }),
    ])
    const staffNames = new Map(staff.staffUsers.map((s) => [s.id, `${s.firstName} ${s.lastName}`]))
    return sessions.passcodeSessions.map((session) => ({
      ...session,
      staffName: staffNames.get(session.staffUserId) ?? session.staffUserId,
    }))
  }, [])
  return (
    <Section title="Open passcode sessions" loaded={loaded}>
      {(sessions) => (
        <Table
          caption="POS passcode sessions still open"
          rows={sessions}
          empty="Nobody is signed in at a POS."
          columns={[
            ['Staff user', (s) => s.staffName],
            ['Location', (s) => props.names.get(s.locationId) ?? s.locationId],
            ['Signed in', (s) => when(s.createdAt)],
            ['Until', (s) => when(s.expiresAt)],
          ]}
        />
      )}
    </Section>
  )
}

export function PeoplePage() {
  const locations = useLocations()
  if (locations.error) return <ErrorNote error={locations.error} />
  if (!locations.data) return <p class="muted">Loading…</p>
  const names = new Map(locations.data.map((l) => [l.id, l.name]))
  return (
    <>
      <StaffUsers names={names} />
      <Credentials locations={locations.data} names={names} />
      <PasscodeSessions names={names} />
    </>
  )
}
