/** Whether a dataset is public: only by a privacy officer's signed declaration (ALGORITHMS.md section 5). */
import type Database from 'better-sqlite3'
import type { EntryRow } from '../chain/ledger-chain'
import { officerSignedEntry } from './budgets-in-force'

/**
 * Whether the dataset was declared public by an officer: a ledger entry of kind 'public' that is what an officer signed
 * (review H10: any 'public' row counted, so one appended with the file made a private dataset browsable, a group list,
 * and a workload swept against its true counts without a charge, until someone ran `ledger verify`).
 */
export function isPublicDataset(db: Database.Database, datasetId: number): boolean {
  const rows = db.prepare(`SELECT * FROM ledger_entries WHERE kind = 'public' AND dataset_id = ? ORDER BY seq`).all(datasetId) as EntryRow[]
  return rows.some((e) => officerSignedEntry(db, e))
}
