import type { Migration } from '../migration'

/**
 * The trust kernel's records:
 * - `ledger_seal_epoch`: the last release when sealed costs began to be bound into the audit log (each blob's SHA-256
 *   in a `release/sealed-costs` event): the costs of releases up to it may be unbound (written before); later ones must
 *   be bound. Fixed by triggers; the kernel also refuses unbound costs of any release after the first bound one.
 * - `dataset_sources.signer`, `.signature`, `.identity`: a linked file is an officer act, signed over what identifies it
 *   (path, format, columns, unit, the real path it leads to); a link made before this migration has none and is
 *   refused at use until an officer links the file again.
 * - An index of audit events by kind, for the registration events every officer check reads.
 */
export const migration013: Migration | null = {
  version: 13,
  name: 'sealed costs bound into the audit log, signed file links',
  up: (db) => {
    db.exec(`
      CREATE TABLE ledger_seal_epoch (
        id                        INTEGER PRIMARY KEY CHECK (id = 1),
        sealed_through_release_id INTEGER NOT NULL,
        migrated_at               TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;
      INSERT INTO ledger_seal_epoch (id, sealed_through_release_id) VALUES (1, coalesce((SELECT max(id) FROM releases), 0));
      CREATE TRIGGER ledger_seal_epoch_fixed BEFORE UPDATE ON ledger_seal_epoch
        BEGIN SELECT RAISE(ABORT, 'the ledger''s seal epoch is fixed'); END;
      CREATE TRIGGER ledger_seal_epoch_kept BEFORE DELETE ON ledger_seal_epoch
        BEGIN SELECT RAISE(ABORT, 'the ledger''s seal epoch is fixed'); END;

      ALTER TABLE dataset_sources ADD COLUMN identity TEXT;
      ALTER TABLE dataset_sources ADD COLUMN signer TEXT;
      ALTER TABLE dataset_sources ADD COLUMN signature TEXT;

      CREATE INDEX audit_events_by_kind ON audit_events (kind, subject);
    `)
  }
}
