import type { Migration } from '../migration'

/**
 * Datasets, their columns and saved query definitions.
 *
 * - `datasets.id` is AUTOINCREMENT: ids are never reused, so ledger entries (which must not have a foreign key here:
 *   deleting a dataset keeps its ledger history) keep naming the right dataset forever.
 * - Each dataset's rows live in a table named `ds_<id>` with generated column names `c1..cN`; the names from the
 *   file are data in `dataset_columns`, never SQL.
 * - `queries` are immutable once saved and only ever hidden (`deleted_at`), so releases may refer to them for good;
 *   `dataset_id` has no foreign key for the same reason.
 */
export const migration002: Migration | null = {
  version: 2,
  name: 'datasets, columns and saved queries',
  up: (db) => {
    db.exec(`
      CREATE TABLE datasets (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        name         TEXT NOT NULL UNIQUE,
        table_name   TEXT NOT NULL UNIQUE,
        source_file  TEXT NOT NULL,
        source_bytes INTEGER NOT NULL,
        delimiter    TEXT NOT NULL,
        row_count    INTEGER NOT NULL,
        skipped_rows INTEGER NOT NULL DEFAULT 0,
        created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;
      CREATE TABLE dataset_columns (
        dataset_id  INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        position    INTEGER NOT NULL,
        name        TEXT NOT NULL,
        sql_name    TEXT NOT NULL,
        type        TEXT NOT NULL CHECK (type IN ('integer', 'real', 'text', 'timestamp')),
        type_source TEXT NOT NULL CHECK (type_source IN ('inferred', 'override')),
        PRIMARY KEY (dataset_id, position),
        UNIQUE (dataset_id, name)
      ) STRICT;
      CREATE TABLE queries (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        dataset_id  INTEGER NOT NULL,
        name        TEXT NOT NULL,
        kind        TEXT NOT NULL CHECK (kind IN ('threshold', 'anomaly-identification', 'anomaly-search')),
        definition  TEXT NOT NULL,
        created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        deleted_at  TEXT
      ) STRICT;
      CREATE INDEX queries_by_dataset ON queries (dataset_id);
      CREATE TRIGGER queries_immutable BEFORE UPDATE OF dataset_id, kind, definition ON queries
        BEGIN SELECT RAISE(ABORT, 'saved queries are immutable; save a new one'); END;
    `)
  }
}
