import { t } from 'elysia'
import { oneOf } from '../../platform/foundation/types'

const dateTime = t.String({ format: 'date-time' })

export const ReplicationLag = t.Object(
  {
    state: oneOf(['replicating', 'failing', 'isolated'], {
      description:
        '`failing`: Litestream’s last attempts for this database failed (lastError); `isolated`: it kept failing and now has a Litestream process of its own, so the other databases replicate on.',
    }),
    lastSyncAt: t.Nullable(dateTime),
    lastWriteAt: t.Nullable(dateTime),
    secondsBehind: t.Number({
      minimum: 0,
      description:
        'How long the oldest write not yet uploaded has waited (to within the sync interval); 0: the replica holds every write.',
    }),
    lastError: t.Nullable(t.String()),
    lastErrorAt: t.Nullable(dateTime),
  },
  {
    $id: '#/components/schemas/ReplicationLag',
    description: 'One database’s Litestream replication as the node replicating it measures it.',
  },
)

export const DatabaseBackup = t.Object(
  {
    name: t.String({ description: '`control` or the tenant id: the database file’s and replica’s name.' }),
    tenantSlug: t.Nullable(t.String({ description: 'null for the control database.' })),
    sizeBytes: t.Integer({ minimum: 0 }),
    walBytes: t.Integer({
      minimum: 0,
      description: 'The write-ahead log: the frames written since it last started over, header included.',
    }),
    snapshots: t.Integer({ minimum: 0, description: 'Snapshots in BACKUP_DIR holding this database.' }),
    lastSnapshotAt: t.Nullable(dateTime),
    replica: t.Nullable(
      t.Object(
        {
          url: t.String(),
          earliestRestorableAt: t.Nullable(dateTime),
          latestReplicatedAt: t.Nullable(dateTime),
        },
        {
          description:
            'The Litestream replica (null without LITESTREAM_REPLICA_URL). The times are read from a `file://` replica; null for S3 (`litestream snapshots` lists them).',
        },
      ),
    ),
    replication: t.Nullable(ReplicationLag, {
      description: 'null when Litestream does not run here or does not replicate this database.',
    }),
  },
  { $id: '#/components/schemas/DatabaseBackup' },
)

export const BackupReport = t.Object(
  {
    mode: oneOf(['litestream', 'scheduled-snapshots', 'manual-snapshots'], {
      description:
        'Litestream when LITESTREAM_REPLICA_URL is set; else snapshots every BACKUP_INTERVAL seconds, or only when `restaurant-ops backup` runs (BACKUP_INTERVAL=0).',
    }),
    snapshotIntervalSeconds: t.Integer({ minimum: 0 }),
    snapshotRetention: t.Integer({ minimum: 1, description: 'Snapshots kept (BACKUP_RETENTION).' }),
    replication: t.Nullable(
      t.Object({
        state: oneOf(['running', 'restarting', 'stopped']),
        restarts: t.Integer({ minimum: 0 }),
        lastExit: t.Nullable(t.Object({ code: t.Nullable(t.Integer()), at: dateTime })),
      }),
    ),
    pointInTime: t.Object(
      {
        continuous: t.Boolean({
          description:
            'true under Litestream (any instant in the window); false: the snapshot instants only.',
        }),
        earliest: t.Nullable(dateTime),
        latest: t.Nullable(dateTime),
      },
      { description: 'The instants a restore can bring these databases back to.' },
    ),
    databases: t.Array(DatabaseBackup),
    snapshots: t.Array(
      t.Object({
        stamp: t.String({ description: 'The snapshot’s folder in BACKUP_DIR.' }),
        takenAt: dateTime,
        databases: t.Array(t.String()),
        bytes: t.Integer({ minimum: 0 }),
      }),
      { description: 'Oldest first.' },
    ),
    restore: t.Array(t.String(), {
      description:
        'How to restore, as commands: a restore replaces a database file, so it runs from the command line with the server stopped (or `--to PATH` beside it), never through the API.',
    }),
  },
  { $id: '#/components/schemas/BackupReport' },
)
