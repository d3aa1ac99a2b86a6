import type { Migration } from '../migration'

/**
 * Linked datasets: a dataset whose rows stay in a file read in place by DuckDB. Imported datasets have no row
 * here. `path` is the file's absolute path (set from the CLI only; no door takes paths), `schema` the JSON list of the
 * file's columns as linked ({name, duckType, type}), `fingerprint` the JSON {size, mtimeMs, hash} when it was linked.
 * The catalog row (`datasets`, `dataset_columns`) is as for an import, with no `ds_<id>` table behind it.
 */
export const migration008: Migration | null = {
  version: 8,
  name: 'linked datasets (files queried in place)',
  up: (db) => {
    db.exec(`
      CREATE TABLE dataset_sources (
        dataset_id  INTEGER PRIMARY KEY REFERENCES datasets(id) ON DELETE CASCADE,
        kind        TEXT NOT NULL CHECK (kind IN ('linked-file')),
        format      TEXT NOT NULL CHECK (format IN ('parquet', 'csv')),
        path        TEXT NOT NULL,
        schema      TEXT NOT NULL,
        fingerprint TEXT NOT NULL
      ) STRICT;
    `)
  }
}
