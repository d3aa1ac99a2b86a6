import type { Migration } from '../migration'

/**
 * Accounts of the service deployment: one row per account (custodian, officer or analyst).
 *
 * - The credential is never stored: `secret_hash` is SHA-256 of it (a 256-bit random secret needs no slow hash).
 * - A registration is an officer act: `signer` (the officer's key id) and `signature` (Ed25519 over the registration text,
 *   which covers the name, role, expiry and secret hash), so that an account row written around the app is not trusted.
 * - Revocation sets the `revoked_*` columns once, signed; nothing else of a row ever changes and no row is deleted.
 */
export const migration011: Migration = {
  version: 11,
  name: 'accounts',
  up: (db) => {
    db.exec(`
      CREATE TABLE accounts (
        id               INTEGER PRIMARY KEY,
        name             TEXT NOT NULL UNIQUE,
        role             TEXT NOT NULL CHECK (role IN ('custodian', 'officer', 'analyst')),
        created_at       TEXT NOT NULL,
        expires_at       TEXT NOT NULL,
        secret_hash      TEXT NOT NULL UNIQUE,
        signer           TEXT NOT NULL,
        signature        TEXT NOT NULL,
        revoked_at       TEXT,
        revoked_by       TEXT,
        revoke_reason    TEXT,
        revoke_signature TEXT
      ) STRICT;
      CREATE TRIGGER accounts_no_delete BEFORE DELETE ON accounts
        BEGIN SELECT RAISE(ABORT, 'accounts cannot be deleted (revoke them)'); END;
      CREATE TRIGGER accounts_registration_fixed BEFORE UPDATE OF id, name, role, created_at, expires_at, secret_hash, signer, signature ON accounts
        BEGIN SELECT RAISE(ABORT, 'an account''s registration cannot change'); END;
      CREATE TRIGGER accounts_revoked_once BEFORE UPDATE ON accounts WHEN OLD.revoked_at IS NOT NULL
        BEGIN SELECT RAISE(ABORT, 'an account is revoked once'); END;
    `)
  }
}
