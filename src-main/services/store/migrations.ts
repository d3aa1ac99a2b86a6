/**
 * Numbered schema migrations. Append only: never edit or reorder a migration that has shipped; add a new one.
 * Each runs in its own transaction and is recorded in `schema_migrations`.
 */
import type { Migration } from './migration'
import { migration002 } from './migrations/002-datasets'
import { migration003 } from './migrations/003-ledger'
import { migration004 } from './migrations/004-experiments'
import { migration005 } from './migrations/005-public-datasets'
import { migration006 } from './migrations/006-privacy-unit'
import { migration007 } from './migrations/007-officer-keys'
import { migration008 } from './migrations/008-linked-sources'
import { migration009 } from './migrations/009-postgres-sources'
import { migration010 } from './migrations/010-postgres-link-trust'
import { migration011 } from './migrations/011-accounts'
import { migration012 } from './migrations/012-clickhouse-sources'
import { migration013 } from './migrations/013-trust-kernel'
import { migration014 } from './migrations/014-query-versions'
import { migration015 } from './migrations/015-query-owner'
import { migration016 } from './migrations/016-seal-epoch-event'
import { migration017 } from './migrations/017-experiment-owner'
import { migration018 } from './migrations/018-dataset-uid'
import { migration019 } from './migrations/019-kinds-in-code'
import { migration020 } from './migrations/020-alarms'
import { migration021 } from './migrations/021-webhooks'

export type { Migration }

const migration001: Migration = {
  version: 1,
  name: 'workspace metadata and audit events',
  up: (db) => {
    db.exec(`
        CREATE TABLE workspace_meta (
          key   TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) STRICT;
        CREATE TABLE audit_events (
          id         INTEGER PRIMARY KEY,
          at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
          kind       TEXT NOT NULL,
          actor      TEXT NOT NULL DEFAULT 'analyst',
          subject    TEXT,
          detail     TEXT NOT NULL DEFAULT '{}'
        ) STRICT;
        CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
          BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;
        CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
          BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;
      `)
  }
}

/** In order. Each area's migration lives in `migrations/NNN-area.ts` (null until that area lands). */
export const migrations: Migration[] = [
  migration001,
  migration002,
  migration003,
  migration004,
  migration005,
  migration006,
  migration007,
  migration008,
  migration009,
  migration010,
  migration011,
  migration012,
  migration013,
  migration014,
  migration015,
  migration016,
  migration017,
  migration018,
  migration019,
  migration020,
  migration021
].filter((m): m is Migration => m !== null)

export const LATEST_SCHEMA_VERSION = migrations[migrations.length - 1].version
