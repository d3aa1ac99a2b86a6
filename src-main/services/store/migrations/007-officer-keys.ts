import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { Migration } from '../migration'

/**
 * Officer keys, signed acts, a hash-chained audit log and signed checkpoints.
 *
 * - `officers`: one row per registered privacy officer: the Ed25519 (sign) and X25519 (seal) public keys, the private
 *   keys wrapped with AES-256-GCM under a key derived from the officer's passphrase by scrypt, who added the officer
 *   (`added_by`: the key id of an officer already registered, or the officer's own for the first one) and that
 *   officer's Ed25519 signature over the registration. Append-only.
 * - `ledger_entries.signer` / `.signature`: an officer act (budget, public declaration) carries the officer's key id and
 *   an Ed25519 signature over the entry's hash (which covers every hashed field and the previous hash). Added columns:
 *   the hashed fields of older entries are unchanged, so the chain still verifies.
 * - `audit_events.prev_hash` / `.hash` / `.signer` / `.signature`: the audit log becomes a hash chain of its own (events
 *   already there are chained here, in id order); an officer's act recorded as an audit event (an unlock) is signed.
 * - `ledger_checkpoints`: an officer's signature over the heads of both chains (ledger seq + hash, audit id + hash),
 *   written at every officer act and on demand (`ledger checkpoint`). Append-only.
 * - `ledger_trust_epoch`: the ledger's and the audit log's last seq when this migration ran: budget and public entries up
 *   to it were written before officer keys existed and are reported as unsigned (older) acts.
 */
export const migration007: Migration | null = {
  version: 7,
  name: 'officer keys, signed acts, chained audit log, signed checkpoints',
  up: (db) => {
    db.exec(`
      CREATE TABLE officers (
        key_id      TEXT PRIMARY KEY,
        name        TEXT NOT NULL UNIQUE,
        created_at  TEXT NOT NULL,
        sign_public TEXT NOT NULL,
        seal_public TEXT NOT NULL,
        wrapped     TEXT NOT NULL,
        added_by    TEXT NOT NULL,
        signature   TEXT NOT NULL
      ) STRICT;
      CREATE TRIGGER officers_no_update BEFORE UPDATE ON officers
        BEGIN SELECT RAISE(ABORT, 'officer registrations cannot change'); END;
      CREATE TRIGGER officers_no_delete BEFORE DELETE ON officers
        BEGIN SELECT RAISE(ABORT, 'officer registrations cannot be deleted'); END;

      ALTER TABLE ledger_entries ADD COLUMN signer TEXT;
      ALTER TABLE ledger_entries ADD COLUMN signature TEXT;

      DROP TRIGGER audit_events_no_update;
      ALTER TABLE audit_events ADD COLUMN prev_hash TEXT;
      ALTER TABLE audit_events ADD COLUMN hash TEXT;
      ALTER TABLE audit_events ADD COLUMN signer TEXT;
      ALTER TABLE audit_events ADD COLUMN signature TEXT;

      CREATE TABLE ledger_checkpoints (
        id          INTEGER PRIMARY KEY,
        at          TEXT NOT NULL,
        ledger_seq  INTEGER NOT NULL,
        ledger_hash TEXT NOT NULL,
        audit_id    INTEGER NOT NULL,
        audit_hash  TEXT NOT NULL,
        signer      TEXT NOT NULL,
        signature   TEXT NOT NULL
      ) STRICT;
      CREATE TRIGGER ledger_checkpoints_no_update BEFORE UPDATE ON ledger_checkpoints
        BEGIN SELECT RAISE(ABORT, 'checkpoints cannot change'); END;
      CREATE TRIGGER ledger_checkpoints_no_delete BEFORE DELETE ON ledger_checkpoints
        BEGIN SELECT RAISE(ABORT, 'checkpoints cannot be deleted'); END;

      CREATE TABLE ledger_trust_epoch (
        id                  INTEGER PRIMARY KEY CHECK (id = 1),
        unsigned_through_seq INTEGER NOT NULL,
        migrated_at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;
      INSERT INTO ledger_trust_epoch (id, unsigned_through_seq) VALUES (1, coalesce((SELECT seq FROM ledger_head WHERE id = 1), 0));
      CREATE TRIGGER ledger_trust_epoch_fixed BEFORE UPDATE ON ledger_trust_epoch
        BEGIN SELECT RAISE(ABORT, 'the ledger''s trust epoch is fixed'); END;
      CREATE TRIGGER ledger_trust_epoch_kept BEFORE DELETE ON ledger_trust_epoch
        BEGIN SELECT RAISE(ABORT, 'the ledger''s trust epoch is fixed'); END;
    `)
    // Chain the audit events already there (in id order), then forbid changes again: only the chain columns of a row
    // written before this migration were ever set after insertion.
    chainAuditRows(db)
    db.exec(`
      CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;
    `)
  }
}

/**
 * The audit chain as it was defined when this migration shipped (chain/audit-chain.ts keeps the same definition and must
 * go on verifying what this wrote): hash of event n = SHA-256( prev_hash || "\n" || canonical JSON of {id, at, kind,
 * actor, subject, detail} ), keys sorted, no whitespace; the first event's prev_hash is 64 zeros. A migration is frozen
 * history, so it carries its own copy instead of importing live code.
 */
function chainAuditRows(db: Database.Database): void {
  const canonical = (v: unknown): string =>
    v === null
      ? 'null'
      : typeof v === 'object'
        ? `{${Object.keys(v as object)
            .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
            .join(',')}}`
        : JSON.stringify(v)
  type Row = { id: number; at: string; kind: string; actor: string; subject: string | null; detail: string }
  let prev = '0'.repeat(64)
  const rows = db.prepare('SELECT id, at, kind, actor, subject, detail FROM audit_events ORDER BY id').all() as Row[]
  const upd = db.prepare('UPDATE audit_events SET prev_hash = ?, hash = ? WHERE id = ?')
  for (const r of rows) {
    const fields = { id: r.id, at: r.at, kind: r.kind, actor: r.actor, subject: r.subject, detail: r.detail }
    const hash = createHash('sha256').update(prev).update('\n').update(canonical(fields)).digest('hex')
    upd.run(prev, hash, r.id)
    prev = hash
  }
}
