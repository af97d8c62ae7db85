// The operator console: sign in with a token the API accepts, then seven pages, each reading the
// public HTTP API. Pages are addressed by the URL hash (#/overview), so /console is the only
// document the server serves.
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { bindSession, isOperator, loadSession, type Session, saveSession } from './api'
import { AuditPage } from './pages/audit'
import { BackupsPage } from './pages/backups'
import { ImportsPage } from './pages/imports'
import { OverviewPage } from './pages/overview'
import { PeoplePage } from './pages/people'
import { SalesPage } from './pages/sales'
import { WebhooksPage } from './pages/webhooks'
import './style.css'

const pages = [
  { path: 'overview', title: 'Overview', Page: OverviewPage },
  { path: 'sales', title: 'Sales and money', Page: SalesPage },
  { path: 'webhooks', title: 'Webhooks', Page: WebhooksPage },
  { path: 'people', title: 'People and access', Page: PeoplePage },
  { path: 'audit', title: 'Audit', Page: AuditPage },
  { path: 'imports', title: 'Imports', Page: ImportsPage },
  { path: 'backups', title: 'Backups', Page: BackupsPage },
] as const

const currentPath = () => location.hash.replace(/^#\/?/, '') || 'overview'

function SignIn(props: { onSignIn: (session: Session) => void }) {
  const [token, setToken] = useState('')
  const [tenant, setTenant] = useState('')
  return (
    <main id="main" class="sign-in">
      <h1>restaurant-ops console</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          if (token.trim()) props.onSignIn({ token: token.trim(), tenant: tenant.trim() })
        }}
      >
        <label for="token">Token</label>
        <textarea
          id="token"
          name="token"
          rows={4}
          required
          autocomplete="off"
          spellcheck={false}
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          aria-describedby="token-help"
        />
        <p id="token-help" class="muted">
          A JWT from your identity provider (on the embedded default:{' '}
          <code>restaurant-ops token --tenant default --subject owner</code>), a <code>tpk_live_</code>{' '}
          credential, or an operator key (<code>opk_</code>) for the operator pages. It is kept in this tab
          only.
        </p>
        <label for="tenant">Tenant slug (optional)</label>
        <input
          id="tenant"
          name="tenant"
          value={tenant}
          onInput={(e) => setTenant(e.currentTarget.value)}
          placeholder="the default tenant"
          aria-describedby="tenant-help"
        />
        <p id="tenant-help" class="muted">
          Leave empty for the default tenant; ignored for an operator key.
        </p>
        <button type="submit">Sign in</button>
      </form>
    </main>
  )
}

function App() {
  const [session, setSession] = useState<Session | null>(loadSession)
  const [path, setPath] = useState(currentPath)
  useEffect(() => {
    const onHash = () => setPath(currentPath())
    addEventListener('hashchange', onHash)
    return () => removeEventListener('hashchange', onHash)
  }, [])
  const page = pages.find((p) => p.path === path) ?? pages[0]
  useEffect(() => {
    document.title = `${page.title} · restaurant-ops console`
  }, [page])
  bindSession(session)
  if (!session) {
    return (
      <SignIn
        onSignIn={(next) => {
          saveSession(next)
          setSession(next)
        }}
      />
    )
  }
  const signOut = () => {
    saveSession(null)
    setSession(null)
  }
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">restaurant-ops</span>
        <span class="who">
          {isOperator(session) ? 'Operator' : `Tenant ${session.tenant || 'default'}`}
          <button type="button" class="link" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <nav aria-label="Console pages">
        <ul>
          {pages.map((p) => (
            <li key={p.path}>
              <a href={`#/${p.path}`} aria-current={p === page ? 'page' : undefined}>
                {p.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <h1>{page.title}</h1>
        <page.Page key={page.path} session={session} />
      </main>
    </>
  )
}

render(<App />, document.getElementById('app')!)
