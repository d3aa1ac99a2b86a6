/**
 * The ledger's accounts: what each notion's account has spent on each cell, and what one unit (person or row) has lost
 * summed over notions.
 */
import type Database from 'better-sqlite3'
import type { PrivacyNotion } from '../../contract/ledger'
import { NOTIONS } from '../chain/notions'
import { notionCapNano } from '../trust/budgets-in-force'
import { type TrustFindings, inspectWorkspace } from '../trust/kernel'
import { type CellKey, type CellTotal, cellSpend } from './cells'

type Db = Database.Database

// ---------------------------------------------------------------------------------------------------------------
// Accounts
//
// One figure per unit (ALGORITHMS.md section 6): every notion protects a *normal* unit (not anomalous, k-sensitive,
// score below t-low) with its epsilon, so what one normal person (or row) has lost is the SUM over notions of each
// notion's account (basic composition). Each notion's account keeps its cell accounting (a record's spend is the sum of
// the charges of the cells it lies in; the account's spend is the maximum over records). The headline per dataset is
// that sum, `spentPerUnit`, held to one budget per unit; a notion's own budget, if the officer set one, is an extra cap.
//
// Why spentPerUnit is never below what one unit truly lost (proof sketch; checked by brute force in
// test/unit/ledger-per-person.test.ts and test/integration/ledger/person-level.test.ts):
// 1. A release r charged c_r costs one unit at most c_r (its charge is per unit: contribution bounds times the
//    mechanism's per-predicate epsilon), and nothing if none of the unit's rows lies in r's predicates (parallel
//    composition: the predicates are public and r's output depends only on the rows they select).
// 2. The ledger holds r under its notion on cells C_r: the whole dataset, or (privacy-unit.ts `cellsForUnit`) cells over
//    columns that hold one value per unit. Each predicate's rows lie in a cell of C_r (a cell keeps only the predicate's
//    equality conditions, so it can only be larger).
// 3. All rows of a unit p agree on those columns, so p behaves like one record x_p: a row of p lies in cell c iff x_p
//    does. The cells of one release are over one column set and pairwise disjoint, so x_p lies in at most one of them.
//    Hence p's loss under a notion is at most the sum of the charges of the cells containing x_p, and `cellSpend` takes
//    the maximum of that sum over all records (exactly, or an upper bound if its search is cut short).
// 4. A normal unit is protected by every notion, and its losses under them add up (basic composition): summing step 3
//    over notions bounds its total loss by spentPerUnit. On a row-level dataset the unit is one row and x_p is the row.

/** A notion's charges per cell, summed, from the hashed ledger entries (the kernel's reading; never the derived cell table). */
export function cellCharges(
  db: Db,
  datasetId: number,
  notion: PrivacyNotion,
  f: TrustFindings = inspectWorkspace(db),
  accountId: number | null = null
): Array<{ cell: CellKey; nano: number }> {
  return f.cellTotals(datasetId, notion, accountId)
}

export interface Account {
  spentNano: number
  /** The notion's own cap (null: none; the per-unit budget applies). */
  budgetNano: number | null
  cells: CellTotal[]
  releases: number
}

/** A notion's account on a dataset; `accountId`: of one analyst's own charges, held to their own allotment. */
export function accountOf(
  db: Db,
  datasetId: number,
  notion: PrivacyNotion,
  f: TrustFindings = inspectWorkspace(db),
  accountId: number | null = null
): Account {
  const spend = cellSpend(cellCharges(db, datasetId, notion, f, accountId))
  return {
    spentNano: spend.maxNano,
    budgetNano: notionCapNano(db, datasetId, notion, f, accountId),
    cells: spend.cells,
    releases: f.chargeCount(datasetId, notion, accountId)
  }
}

/**
 * Spend per unit: the sum over notions of each notion's account spend (and the parts). `accountId`: the spend of the
 * charges one analyst account made (their own budget's figure, within the dataset's).
 */
export function unitSpend(
  db: Db,
  datasetId: number,
  f: TrustFindings = inspectWorkspace(db),
  accountId: number | null = null
): { spentNano: number; byNotion: Record<PrivacyNotion, number> } {
  const byNotion = {} as Record<PrivacyNotion, number>
  let spentNano = 0
  for (const n of NOTIONS) {
    byNotion[n] = cellSpend(cellCharges(db, datasetId, n, f, accountId)).maxNano
    spentNano += byNotion[n]
  }
  return { spentNano, byNotion }
}

export function rowLevelThroughSeq(db: Db): number {
  const row = db.prepare('SELECT row_level_through_seq AS seq FROM ledger_unit_epoch WHERE id = 1').get() as { seq: number } | undefined
  return row ? row.seq : 0
}
