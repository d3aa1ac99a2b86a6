import type { Migration } from '../migration'

/**
 * Linked PostgreSQL tables and views: a dataset whose rows stay in the organisation's PostgreSQL. `url` is the
 * connection URL WITHOUT a password (linking refuses one that has it); the password is read at use from the environment
 * variable `password_env` (null: PGPASSWORD), never stored. `schema_name`.`relation_name` is the table or view, `columns`
 * the JSON list of its columns as linked ({name, pgType, type}), `fingerprint` the JSON {relation, oid, kind,
 * rowEstimate} when it was linked. The catalog row (`datasets`, `dataset_columns`) is as for an import, with no
 * `ds_<id>` table behind it; `datasets.row_count` holds the planner's estimate (pg_class.reltuples), not a count.
 */
export const migration009: Migration | null = {
  version: 9,
  name: 'linked PostgreSQL tables and views',
  up: (db) => {
    db.exec(`
      CREATE TABLE dataset_postgres_sources (
        dataset_id    INTEGER PRIMARY KEY REFERENCES datasets(id) ON DELETE CASCADE,
        url           TEXT NOT NULL,
        password_env  TEXT,
        schema_name   TEXT NOT NULL,
        relation_name TEXT NOT NULL,
        columns       TEXT NOT NULL,
        fingerprint   TEXT NOT NULL
      ) STRICT;
    `)
  }
}
