import type { Migration } from '../migration'

/**
 * Privacy units (ALGORITHMS.md section 6): what one dataset's guarantees protect, declared at import.
 *
 * - `dataset_units`: one row per dataset, written in the import's last transaction. `person_column` names the column
 *   that identifies a person (person-level); NULL means each row is a different person (row-level). No foreign key to
 *   `datasets` and no UPDATE or DELETE: the ledger keeps accounting for a deleted dataset under the unit it had, and the
 *   unit can never change under charges already made (dataset ids are never reused). Datasets imported before this
 *   migration are row-level, the only unit there was.
 * - `dataset_columns.per_person`: for a person-level dataset, 1 when the column holds at most one value per person
 *   (an empty value counts as a value), checked over all rows at import; 0 otherwise; NULL for row-level datasets (where
 *   every column is trivially per-unit). Parallel composition across cells is sound for persons only over such columns.
 * - `ledger_unit_epoch`: the ledger's last seq when this migration ran. Entries up to it were written before privacy
 *   units existed and are shown as "row-level accounting (before person-level units)". Stored beside the chain, so
 *   that no hashed row changes (`ledger_entries` is append-only and is not rebuilt here).
 */
export const migration006: Migration | null = {
  version: 6,
  name: 'privacy units (person or row) per dataset',
  up: (db) => {
    db.exec(`
      CREATE TABLE dataset_units (
        dataset_id    INTEGER PRIMARY KEY,
        person_column TEXT,
        declared_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;
      CREATE TRIGGER dataset_units_fixed BEFORE UPDATE ON dataset_units
        BEGIN SELECT RAISE(ABORT, 'a dataset''s privacy unit is fixed at import'); END;
      CREATE TRIGGER dataset_units_kept BEFORE DELETE ON dataset_units
        BEGIN SELECT RAISE(ABORT, 'a dataset''s privacy unit is kept with its ledger history'); END;
      INSERT INTO dataset_units (dataset_id, person_column, declared_at) SELECT id, NULL, created_at FROM datasets;

      ALTER TABLE dataset_columns ADD COLUMN per_person INTEGER CHECK (per_person IS NULL OR per_person IN (0, 1));

      CREATE TABLE ledger_unit_epoch (
        id                    INTEGER PRIMARY KEY CHECK (id = 1),
        row_level_through_seq INTEGER NOT NULL,
        migrated_at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;
      INSERT INTO ledger_unit_epoch (id, row_level_through_seq) VALUES (1, coalesce((SELECT seq FROM ledger_head WHERE id = 1), 0));
      CREATE TRIGGER ledger_unit_epoch_fixed BEFORE UPDATE ON ledger_unit_epoch
        BEGIN SELECT RAISE(ABORT, 'the ledger''s unit epoch is fixed'); END;
      CREATE TRIGGER ledger_unit_epoch_kept BEFORE DELETE ON ledger_unit_epoch
        BEGIN SELECT RAISE(ABORT, 'the ledger''s unit epoch is fixed'); END;
    `)
  }
}
