import type { Migration } from '../migration'

/**
 * Linked PostgreSQL relations as officer acts:
 * - `signer`, `signature`: the privacy officer's Ed25519 signature over what the link is (link-signature.ts); a link
 *   without one (made before this migration) is refused at use until an officer links the relation again.
 * - The planner's row estimate is no longer kept in clear: it is removed from the stored link's fingerprint and the
 *   catalog's `row_count` of a linked relation is 0 (nothing counts, or estimates, the rows of a private relation).
 */
export const migration010: Migration | null = {
  version: 10,
  name: 'signed PostgreSQL links, no row estimate in clear',
  up: (db) => {
    db.exec(`
      ALTER TABLE dataset_postgres_sources ADD COLUMN signer TEXT;
      ALTER TABLE dataset_postgres_sources ADD COLUMN signature TEXT;
      UPDATE dataset_postgres_sources SET fingerprint = json_remove(fingerprint, '$.rowEstimate');
      UPDATE datasets SET row_count = 0 WHERE id IN (SELECT dataset_id FROM dataset_postgres_sources);
    `)
  }
}
