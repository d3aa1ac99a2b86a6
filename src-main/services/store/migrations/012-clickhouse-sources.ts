import type { Migration } from '../migration'

/**
 * Linked ClickHouse tables: a dataset whose rows stay in the organisation's ClickHouse (a local table or a
 * Distributed one over shards). `url` is the HTTP(S) URL WITHOUT a password (linking refuses one that has it); the
 * password is read at use from the environment variable `password_env` (null: CLICKHOUSE_PASSWORD), never stored.
 * `database_name`.`table_name` is the table, `table_engine` its engine when linked, `columns` the JSON list of its
 * columns as declared ({name, chType, type}); `signer` and `signature` are the officer's signature over all of it
 * with the dataset's unit (link-signature.ts, kind 'clickhouse'), checked before every use. No row count or estimate
 * is kept.
 */
export const migration012: Migration | null = {
  version: 12,
  name: 'linked ClickHouse tables',
  up: (db) => {
    db.exec(`
      CREATE TABLE dataset_clickhouse_sources (
        dataset_id    INTEGER PRIMARY KEY REFERENCES datasets(id) ON DELETE CASCADE,
        url           TEXT NOT NULL,
        password_env  TEXT,
        database_name TEXT NOT NULL,
        table_name    TEXT NOT NULL,
        table_engine  TEXT NOT NULL,
        columns       TEXT NOT NULL,
        signer        TEXT,
        signature     TEXT
      ) STRICT;
    `)
  }
}
