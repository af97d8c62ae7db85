// Are backups happening: the mode, the point-in-time window, each database's size, last snapshot
// and replication lag, the snapshots themselves, and how to restore (a command-line step).
import { get, isOperator, type PageProps } from '../api'
import { Badge, bytes, Section, Table, useLoad, when } from '../ui'

export function BackupsPage({ session }: PageProps) {
  const operator = isOperator(session)
  const report = useLoad(() => (operator ? get('/admin/v1/backups') : get('/backups')), [operator])
  return (
    <>
      <Section title="Backup state" loaded={report}>
        {(b) => (
          <dl class="facts">
            <dt>Mode</dt>
            <dd>{b.mode}</dd>
            <dt>Snapshots</dt>
            <dd>
              every {b.snapshotIntervalSeconds ? `${b.snapshotIntervalSeconds / 60} min` : 'manual run'},
              keeping {b.snapshotRetention}
            </dd>
            <dt>Replication</dt>
            <dd>
              {b.replication ? (
                <Badge tone={b.replication.state === 'running' ? 'good' : 'bad'}>
                  Litestream {b.replication.state}, {b.replication.restarts} restarts
                </Badge>
              ) : (
                'Litestream is not configured (LITESTREAM_REPLICA_URL)'
              )}
            </dd>
            <dt>Point-in-time window</dt>
            <dd>
              {b.pointInTime.earliest
                ? `${when(b.pointInTime.earliest)} to ${when(b.pointInTime.latest)}${b.pointInTime.continuous ? ', any instant' : ', at snapshot instants'}`
                : 'nothing to restore from yet'}
            </dd>
          </dl>
        )}
      </Section>
      <Section title="Databases" loaded={report}>
        {(b) => (
          <Table
            caption="Databases and their backups"
            rows={b.databases}
            columns={[
              ['Database', (d) => d.tenantSlug ?? d.name],
              ['Size', (d) => bytes(d.sizeBytes)],
              ['WAL', (d) => bytes(d.walBytes)],
              ['Snapshots', (d) => d.snapshots],
              ['Last snapshot', (d) => when(d.lastSnapshotAt)],
              [
                'Replica',
                (d) =>
                  d.replica
                    ? `${when(d.replica.earliestRestorableAt)} – ${when(d.replica.latestReplicatedAt)}`
                    : '—',
              ],
              [
                'Replication lag',
                (d) =>
                  d.replication ? (
                    <Badge
                      tone={
                        d.replication.state === 'replicating' && d.replication.secondsBehind < 5
                          ? 'good'
                          : 'bad'
                      }
                    >
                      {d.replication.state}, {d.replication.secondsBehind} s behind, last upload{' '}
                      {when(d.replication.lastSyncAt)}
                    </Badge>
                  ) : (
                    '—'
                  ),
              ],
            ]}
          />
        )}
      </Section>
      <Section title="Snapshots" loaded={report}>
        {(b) => (
          <Table
            caption="Snapshots, oldest first"
            rows={b.snapshots}
            empty="No snapshot yet: the first one is taken after one interval, or run restaurant-ops backup."
            columns={[
              ['Taken', (s) => when(s.takenAt)],
              ['Folder', (s) => <code>{s.stamp}</code>],
              ['Databases', (s) => s.databases.length],
              ['Size', (s) => bytes(s.bytes)],
            ]}
          />
        )}
      </Section>
      <Section title="Restoring" loaded={report}>
        {(b) => (
          <ol class="restore">
            {b.restore.map((line) => (
              <li key={line}>{line.startsWith('restaurant-ops') ? <code>{line}</code> : line}</li>
            ))}
          </ol>
        )}
      </Section>
    </>
  )
}
