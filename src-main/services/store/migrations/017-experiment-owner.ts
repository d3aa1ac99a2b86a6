import type { Migration } from '../migration'

/**
 * Experiments have an owner: `account_id` is the service account that started the experiment (NULL: the workbench's
 * local user). A resume keeps it; an analyst account reads, resumes and deletes only its own experiments.
 */
export const migration017: Migration | null = {
  version: 17,
  name: 'experiment owner',
  up: (db) => {
    db.exec(`ALTER TABLE experiments ADD COLUMN account_id INTEGER REFERENCES accounts(id);`)
  }
}
