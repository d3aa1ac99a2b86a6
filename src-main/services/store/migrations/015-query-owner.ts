import type { Migration } from '../migration'

/**
 * Saved queries have an owner: `account_id` is the service account that saved the version (NULL: the workbench's local
 * user, or a query saved before accounts). An analyst account reads, versions and deletes only its own queries.
 */
export const migration015: Migration | null = {
  version: 15,
  name: 'saved query owner',
  up: (db) => {
    db.exec(`ALTER TABLE queries ADD COLUMN account_id INTEGER REFERENCES accounts(id);`)
  }
}
