import type { Migration } from '../migration'

/**
 * Saved query versions: editing a saved query saves a new row (the rows stay immutable, so a release keeps pointing at
 * exactly the version it ran). `first_id` is the id of the query's first version (NULL on the first version itself) and
 * `version` counts from 1 along it; at most one row per (first_id, version).
 */
export const migration014: Migration | null = {
  version: 14,
  name: 'saved query versions',
  up: (db) => {
    db.exec(`
      ALTER TABLE queries ADD COLUMN first_id INTEGER REFERENCES queries(id);
      ALTER TABLE queries ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
      CREATE UNIQUE INDEX queries_one_per_version ON queries (first_id, version);
      DROP TRIGGER queries_immutable;
      CREATE TRIGGER queries_immutable BEFORE UPDATE OF dataset_id, kind, definition, first_id, version ON queries
        BEGIN SELECT RAISE(ABORT, 'saved queries are immutable; save a new version'); END;
      CREATE TRIGGER queries_version_line BEFORE INSERT ON queries
        WHEN (NEW.first_id IS NULL) <> (NEW.version = 1)
          OR (NEW.first_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM queries f WHERE f.id = NEW.first_id AND f.first_id IS NULL))
        BEGIN SELECT RAISE(ABORT, 'a later version of a saved query names its first version'); END;
    `)
  }
}
