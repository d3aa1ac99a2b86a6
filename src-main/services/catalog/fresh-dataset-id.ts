import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'

/**
 * The id a new dataset gets: above every id a dataset ever had in this workspace, as the AUTOINCREMENT counter, the
 * catalog, the ledger, releases and saved queries name it. The counter (`sqlite_sequence`) is a plain row that a file
 * writer can reset; the ledger's entries are hashed and signed, so an id they name is never handed out again, and an
 * officer's acts on a deleted dataset (a public declaration, budgets) never count for a new one. Inside the caller's
 * transaction.
 */
export function freshDatasetId(db: Database.Database): number {
  const row = db
    .prepare(
      `SELECT max(
         coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'datasets'), 0),
         coalesce((SELECT max(id) FROM datasets), 0),
         coalesce((SELECT max(dataset_id) FROM ledger_entries), 0),
         coalesce((SELECT max(dataset_id) FROM releases), 0),
         coalesce((SELECT max(dataset_id) FROM queries), 0)
       ) AS n`
    )
    .get() as { n: number }
  return row.n + 1
}

/**
 * The identity of a new dataset that no other dataset ever has (random): bound into its link's signature and named by
 * the officer's acts on it, so that an act counts only for the dataset it was signed for (trust/kernel.ts).
 */
export function freshDatasetUid(): string {
  return randomUUID()
}

/** A dataset's uid (null: made before datasets had one, or no such dataset). */
export function datasetUid(db: Database.Database, datasetId: number): string | null {
  const row = db.prepare('SELECT uid FROM datasets WHERE id = ?').get(datasetId) as { uid: string | null } | undefined
  return row?.uid ?? null
}

/** The dataset's uid as an officer act's hashed detail names it (nothing for a dataset without one). */
export function datasetUidFact(db: Database.Database, datasetId: number): { datasetUid?: string } {
  const uid = datasetUid(db, datasetId)
  return uid === null ? {} : { datasetUid: uid }
}
