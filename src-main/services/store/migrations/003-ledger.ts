import type { Migration } from '../migration'

/**
 * The privacy-budget ledger and releases.
 *
 * - `ledger_entries`: append-only (triggers refuse UPDATE and DELETE), hash-chained: `hash` = SHA-256 over `prev_hash` and
 *   the canonical serialisation of the other columns (see services/ledger/canonical.ts). Charges and budget changes.
 *   Amounts are whole nano-epsilon. No foreign key to `datasets`: the history stays when a dataset is deleted, and the
 *   dataset's name is kept as it was when the entry was written.
 * - `ledger_cell_charges`: the partition cells each charge touches (copied from the entry's hashed `cells` list, for
 *   queries); append-only; `ledger verify` checks it against the entries.
 * - `ledger_head`: the last entry's seq and hash, updated with every append, so that a cut tail is noticed.
 * - `releases`: one row per charged release, written in the same transaction as its charge; the answer is written once
 *   afterwards. Charge columns can never change, a row can never be deleted.
 * - `release_ex_post`: the sealed, data-dependent costs, read only through the officer's recorded unlock.
 */
export const migration003: Migration | null = {
  version: 3,
  name: 'privacy-budget ledger and releases',
  up: (db) => {
    db.exec(`
      CREATE TABLE ledger_entries (
        seq          INTEGER PRIMARY KEY,
        at           TEXT NOT NULL,
        kind         TEXT NOT NULL CHECK (kind IN ('charge', 'budget')),
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
        CHECK (kind = 'budget' OR notion IS NOT NULL)
      ) STRICT;
      CREATE INDEX ledger_entries_by_dataset ON ledger_entries (dataset_id, notion);
      CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
      CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;

      CREATE TABLE ledger_cell_charges (
        entry_seq   INTEGER NOT NULL,
        dataset_id  INTEGER NOT NULL,
        notion      TEXT NOT NULL,
        cell        TEXT NOT NULL,
        amount_nano INTEGER NOT NULL CHECK (amount_nano >= 0),
        PRIMARY KEY (entry_seq, cell)
      ) STRICT;
      CREATE INDEX ledger_cell_charges_by_account ON ledger_cell_charges (dataset_id, notion);
      CREATE TRIGGER ledger_cell_charges_no_update BEFORE UPDATE ON ledger_cell_charges
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
      CREATE TRIGGER ledger_cell_charges_no_delete BEFORE DELETE ON ledger_cell_charges
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;

      CREATE TABLE ledger_head (
        id   INTEGER PRIMARY KEY CHECK (id = 1),
        seq  INTEGER NOT NULL,
        hash TEXT NOT NULL
      ) STRICT;
      CREATE TRIGGER ledger_head_no_delete BEFORE DELETE ON ledger_head
        BEGIN SELECT RAISE(ABORT, 'the ledger head cannot be deleted'); END;
      CREATE TRIGGER ledger_head_forward_only BEFORE UPDATE ON ledger_head WHEN NEW.seq <> OLD.seq + 1
        BEGIN SELECT RAISE(ABORT, 'the ledger head only moves forward by one entry'); END;

      CREATE TABLE releases (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at   TEXT NOT NULL,
        dataset_id   INTEGER NOT NULL,
        dataset_name TEXT NOT NULL,
        query_id     INTEGER NOT NULL,
        query_name   TEXT NOT NULL,
        kind         TEXT NOT NULL CHECK (kind IN ('threshold', 'anomaly-identification', 'anomaly-search')),
        mechanism    TEXT NOT NULL,
        params       TEXT NOT NULL,
        notion       TEXT NOT NULL,
        charge_nano  INTEGER NOT NULL,
        guarantee    TEXT NOT NULL,
        status       TEXT NOT NULL CHECK (status IN ('charged', 'answered', 'failed')),
        answer       TEXT,
        answered_at  TEXT,
        failure      TEXT
      ) STRICT;
      CREATE INDEX releases_by_dataset ON releases (dataset_id);
      CREATE TRIGGER releases_charge_fixed BEFORE UPDATE OF id, created_at, dataset_id, dataset_name, query_id, query_name, kind,
          mechanism, params, notion, charge_nano, guarantee ON releases
        BEGIN SELECT RAISE(ABORT, 'a release''s charge cannot change'); END;
      CREATE TRIGGER releases_answer_once BEFORE UPDATE ON releases WHEN OLD.status <> 'charged'
        BEGIN SELECT RAISE(ABORT, 'a release is answered once'); END;
      CREATE TRIGGER releases_no_delete BEFORE DELETE ON releases
        BEGIN SELECT RAISE(ABORT, 'releases cannot be deleted'); END;

      CREATE TABLE release_ex_post (
        release_id INTEGER PRIMARY KEY REFERENCES releases(id),
        sealed     TEXT NOT NULL
      ) STRICT;
      CREATE TRIGGER release_ex_post_no_update BEFORE UPDATE ON release_ex_post
        BEGIN SELECT RAISE(ABORT, 'sealed costs cannot change'); END;
      CREATE TRIGGER release_ex_post_no_delete BEFORE DELETE ON release_ex_post
        BEGIN SELECT RAISE(ABORT, 'sealed costs cannot be deleted'); END;
    `)
  }
}
