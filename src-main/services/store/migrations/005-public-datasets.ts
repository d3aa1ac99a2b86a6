import type { Migration } from '../migration'

/**
 * Public datasets (ALGORITHMS.md section 5): a dataset becomes public only by the privacy officer's act, with a
 * reason, recorded in the ledger as an entry of kind 'public' (hash-chained like budgets and charges). Only a public
 * dataset may supply values that reach a release (thresholds, group lists, the individuals of a search).
 *
 * SQLite cannot change a CHECK constraint in place, so `ledger_entries` is rebuilt with the same columns, rows, index and
 * triggers, and a kind check that also admits 'public'. The hashed fields are copied unchanged, so the chain still
 * verifies. (DROP TABLE drops the table's triggers before its implicit delete, so the append-only triggers do not fire.)
 */
export const migration005: Migration | null = {
  version: 5,
  name: 'public datasets (officer declarations in the ledger)',
  up: (db) => {
    db.exec(`
      CREATE TABLE ledger_entries_v5 (
        seq          INTEGER PRIMARY KEY,
        at           TEXT NOT NULL,
        kind         TEXT NOT NULL CHECK (kind IN ('charge', 'budget', 'public')),
        dataset_id   INTEGER NOT NULL,
        dataset_name TEXT NOT NULL,
        notion       TEXT CHECK (notion IS NULL OR notion IN ('eps-dp', 'predicate-wise-dp', 'eps-k-sensitive', 'anomaly-restricted-dp')),
        amount_nano  INTEGER NOT NULL CHECK (amount_nano >= 0),
        cells        TEXT NOT NULL,
        release_id   INTEGER UNIQUE,
        actor        TEXT NOT NULL,
        description  TEXT NOT NULL,
        detail       TEXT NOT NULL,
        prev_hash    TEXT NOT NULL,
        hash         TEXT NOT NULL UNIQUE,
        CHECK (kind <> 'charge' OR notion IS NOT NULL),
        CHECK (kind <> 'public' OR (amount_nano = 0 AND notion IS NULL))
      ) STRICT;
      INSERT INTO ledger_entries_v5 (seq, at, kind, dataset_id, dataset_name, notion, amount_nano, cells, release_id, actor, description, detail, prev_hash, hash)
        SELECT seq, at, kind, dataset_id, dataset_name, notion, amount_nano, cells, release_id, actor, description, detail, prev_hash, hash FROM ledger_entries;
      DROP TABLE ledger_entries;
      ALTER TABLE ledger_entries_v5 RENAME TO ledger_entries;
      CREATE INDEX ledger_entries_by_dataset ON ledger_entries (dataset_id, notion);
      CREATE INDEX ledger_entries_by_kind ON ledger_entries (kind, dataset_id);
      CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
      CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
    `)
  }
}
