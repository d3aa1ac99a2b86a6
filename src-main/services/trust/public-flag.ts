/** Whether a dataset is public: only by a privacy officer's declaration in force (ALGORITHMS.md section 5). */
import type Database from 'better-sqlite3'
import { inspectWorkspace } from './kernel'

/**
 * Whether the dataset was declared public by an officer: a ledger entry of kind 'public' that counts by the trust
 * kernel's rules (a 'public' row appended with the file would make a private dataset browsable, a group list, and a
 * workload swept against its true counts without a charge). Nothing is public in a workspace that fails verification:
 * its declarations cannot be told from forged ones.
 */
export function isPublicDataset(db: Database.Database, datasetId: number): boolean {
  const f = inspectWorkspace(db)
  if (f.problems.length > 0) return false
  return f.officerActs.some((e) => e.kind === 'public' && e.dataset_id === datasetId && f.actInForce(e))
}
