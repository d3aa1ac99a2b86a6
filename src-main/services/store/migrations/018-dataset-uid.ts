import type { Migration } from '../migration'

/**
 * Every dataset made from now on has a random `uid` that is never handed out again: links sign it and the officer's
 * budgets and public declarations name it, so an act counts only for the dataset it was signed for, whatever id a
 * later dataset gets. Datasets from before keep NULL (their acts name none).
 */
export const migration018: Migration | null = {
  version: 18,
  name: 'dataset uid',
  up: (db) => {
    db.exec(`ALTER TABLE datasets ADD COLUMN uid TEXT; CREATE UNIQUE INDEX datasets_uid ON datasets (uid);`)
  }
}
