// Is it healthy: readiness, the scheduler's jobs, backups at a glance; the operator also sees the
// tenant pool and the tenants with their status. A tenant's staff see today's orders, live.

import { useEffect, useState } from 'preact/hooks'
import type { PageProps } from '../api'
import { type Answer, get, isOperator, post, readiness } from '../api'
import { Badge, bytes, dollars, ErrorNote, Section, Table, useLoad, when } from '../ui'

type Health = Answer<'/health/ready', 'get'>
type Cluster = NonNullable<Health['cluster']>
type TenantPool = NonNullable<Health['tenantPool']>

/** The operator's view of the pool of open tenant databases: how full, how often it had to open one. */
function PoolSummary({ pool }: { pool: TenantPool }) {
  return (
    <>
      <h3>Tenant pool</h3>
      <p>
        {pool.open} of {pool.capacity} tenant databases open ({bytes(pool.memoryBytes)} allowed,{' '}
        {bytes(pool.connectionBytes)} measured per connection). Hit rate{' '}
        <strong>{(100 * pool.hitRate).toFixed(1)}%</strong> ({pool.hits} hits, {pool.misses} misses since
        start); {pool.evictions} evictions.
      </p>
    </>
  )
}

/** Several nodes: this node, and how long the last failover took and what it restored (RTO, RPO). */
function ClusterSummary({ cluster }: { cluster: Cluster }) {
  const last = cluster.lastFailover
  return (
    <>
      <h3>Cluster</h3>
      <p>
        Node <code>{cluster.node}</code>{' '}
        <Badge tone={cluster.fenced ? 'bad' : 'good'}>
          {cluster.fenced ? 'fenced: cut off from etcd' : 'in the cluster'}
        </Badge>{' '}
        of {cluster.nodes} live nodes; it owns {cluster.tenantsOwned} tenants.
      </p>
      <p>
        {last
          ? `Last failover: tenant ${last.slug} served again ${when(last.at)}, ${(last.rtoMs / 1000).toFixed(1)} s after its node was lost (RTO); restored through ${when(last.restoredThrough)} (RPO: writes after that were lost).`
          : 'No failover yet.'}
      </p>
    </>
  )
}

type Order = Answer<'/order', 'get'>['orders'][number]

/** The order events that change what the list shows. */
const ORDER_EVENTS = [
  'order.create',
  'order.update',
  'order.submit',
  'order.pay',
  'order.close',
  'order.void',
  'order.refund',
]

const startOfToday = () => {
  const midnight = new Date()
  midnight.setHours(0, 0, 0, 0)
  return midnight.toISOString()
}

type LiveState = 'connecting' | 'live' | 'reconnecting' | 'stopped'

/**
 * Today's orders, kept current by the event stream: the stream cookie first (EventSource sends no
 * Authorization header, and the token stays out of the URL), then the day's orders, then every
 * order event folded in as it commits. EventSource reconnects by itself, sending the last event id.
 */
function TodaysOrders() {
  const [orders, setOrders] = useState<Map<string, Order> | null>(null)
  const [state, setState] = useState<LiveState>('connecting')
  const [error, setError] = useState<Error | null>(null)
  useEffect(() => {
    let source: EventSource | null = null
    let live = true
    const since = startOfToday()
    const fold = (order: Order) =>
      order.createdAt >= since && setOrders((known) => new Map(known ?? []).set(order.id, order))
    ;(async () => {
      await post('/events/stream/cookie')
      // Left meanwhile: a stream opened now would never be closed.
      if (!live) return
      // The stream first, so no order committed while the list loads is missed (folding is idempotent).
      source = new EventSource(`/events/stream?types=${ORDER_EVENTS.join(',')}`)
      source.onopen = () => setState('live')
      source.onerror = () => setState(source?.readyState === EventSource.CLOSED ? 'stopped' : 'reconnecting')
      for (const name of ORDER_EVENTS)
        source.addEventListener(name, (event) => fold(JSON.parse((event as MessageEvent).data).payload))
      source.addEventListener('end', (event) => {
        if (!JSON.parse((event as MessageEvent).data).reconnect) {
          source?.close()
          setState('stopped')
        }
      })
      const today = await get('/order', { createdAfter: since, limit: 100 })
      if (live) for (const order of today.orders) fold(order)
      if (live) setOrders((known) => known ?? new Map())
    })().catch((failure: Error) => live && setError(failure))
    return () => {
      live = false
      source?.close()
    }
  }, [])
  const rows = [...(orders?.values() ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt))
  const tone = state === 'live' ? 'good' : state === 'stopped' ? 'bad' : 'neutral'
  return (
    <section aria-labelledby="section-today-s-orders" aria-busy={orders === null}>
      <header class="section-head">
        <h2 id="section-today-s-orders">Today’s orders</h2>
        <Badge tone={tone}>{state}</Badge>
      </header>
      {error ? (
        <ErrorNote error={error} />
      ) : orders === null ? (
        <p class="muted">Loading…</p>
      ) : (
        <Table
          caption="Orders created today, newest first"
          rows={rows}
          empty="No order yet today."
          columns={[
            ['Number', (o) => o.orderNumber],
            ['Status', (o) => o.status],
            ['Guest', (o) => o.customerName ?? o.guestName ?? '—'],
            ['Total', (o) => dollars(o.total)],
            ['Created', (o) => when(o.createdAt)],
          ]}
        />
      )}
    </section>
  )
}

export function OverviewPage({ session }: PageProps) {
  const operator = isOperator(session)
  const health = useLoad(readiness, [])
  const backups = useLoad(() => (operator ? get('/admin/v1/backups') : get('/backups')), [operator])
  const tenants = useLoad(
    () => (operator ? get('/admin/v1/tenants', { limit: 100 }) : Promise.resolve(null)),
    [operator],
  )
  return (
    <>
      {!operator && <TodaysOrders />}
      <Section title="Health and readiness" loaded={health}>
        {(h) => (
          <>
            <p>
              Status:{' '}
              <Badge tone={h.status === 'ok' ? 'good' : 'bad'}>
                {h.status === 'ok' ? 'ready' : h.status}
              </Badge>
            </p>
            <ul class="checks">
              {Object.entries(h.checks).map(([name, result]) => (
                <li key={name}>
                  {name}:{' '}
                  <Badge tone={result === 'ok' || result === 'running' ? 'good' : 'bad'}>{result}</Badge>
                </li>
              ))}
            </ul>
            {h.tenantPool && <PoolSummary pool={h.tenantPool} />}
            {h.cluster && <ClusterSummary cluster={h.cluster} />}
          </>
        )}
      </Section>
      <Section title="Scheduler jobs" loaded={health}>
        {(h) => (
          <Table
            caption="Background jobs"
            rows={h.jobs}
            columns={[
              ['Job', (j) => <code>{j.name}</code>],
              ['State', (j) => (j.running ? <Badge tone="neutral">running</Badge> : 'idle')],
              ['Last run', (j) => when(j.lastStartedAt)],
              ['Next run', (j) => when(j.nextRunAt)],
              ['Runs', (j) => j.runs],
              [
                'Failures',
                (j) =>
                  j.failures === 0 ? (
                    '0'
                  ) : (
                    <Badge tone={j.consecutiveFailures > 0 ? 'bad' : 'neutral'}>
                      {j.failures}
                      {j.lastError ? `: ${j.lastError}` : ''}
                    </Badge>
                  ),
              ],
            ]}
          />
        )}
      </Section>
      <Section title="Backups at a glance" loaded={backups}>
        {(b) => (
          <>
            <p>
              Mode: <strong>{b.mode}</strong>
              {b.replication && (
                <>
                  {' '}
                  · Litestream{' '}
                  <Badge tone={b.replication.state === 'running' ? 'good' : 'bad'}>
                    {b.replication.state}
                  </Badge>
                </>
              )}
            </p>
            <Table
              caption="Databases"
              rows={b.databases}
              columns={[
                ['Database', (d) => d.tenantSlug ?? d.name],
                ['Size', (d) => bytes(d.sizeBytes + d.walBytes)],
                ['Last snapshot', (d) => when(d.lastSnapshotAt)],
                [
                  'Replicated up to',
                  (d) => (d.replica ? when(d.replica.latestReplicatedAt) : 'not replicated'),
                ],
              ]}
            />
          </>
        )}
      </Section>
      {operator && (
        <Section title="Tenants" loaded={tenants}>
          {(list) => (
            <Table
              caption="Tenants"
              rows={list?.tenants ?? []}
              columns={[
                ['Slug', (t) => <code>{t.slug}</code>],
                ['Name', (t) => t.name],
                ['Status', (t) => <Badge tone={t.status === 'active' ? 'good' : 'bad'}>{t.status}</Badge>],
                ['Created', (t) => when(t.createdAt)],
                ['Expires', (t) => (t.ephemeral ? when(t.expiresAt) : 'never')],
              ]}
            />
          )}
        </Section>
      )}
    </>
  )
}
