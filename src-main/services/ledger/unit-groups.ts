/**
 * The pricing rule every release kind uses (ALGORITHMS.md section 6): how many of a release's groups one unit can add
 * to, and so which cells the release may be charged on. A unit lies in one group over some columns when the data is
 * row-level, or when every one of those columns holds one value per person. Otherwise a person may add to every group
 * (or to maxGroups of them, when the query bounds that and the run truncates to it), and parallel composition over the
 * groups is not sound: the charge is on the whole dataset.
 */
import type Database from 'better-sqlite3'
import type { PrivacyUnit } from '../../contract/datasets'
import { datasetUnit, isPerPersonColumn } from '../trust/privacy-unit'
import { type CellKey, WHOLE_DATASET, parseCellKey } from './cells'

type Db = Database.Database

/** Whether one unit lies in one group over `columns`: row-level data, or each column holds one value per person. */
export function unitLiesInOneGroup(unit: PrivacyUnit, perPerson: (column: string) => boolean, columns: Iterable<string>): boolean {
  if (unit.kind === 'row') return true
  for (const c of columns) if (!perPerson(c)) return false
  return true
}

export interface UnitGroups {
  unit: PrivacyUnit
  /** The unit lies in one group by construction. */
  oneGroup: boolean
  /** How many of the groups one unit can add to: what the per-group charge is multiplied by. */
  groups: number
}

/** How many of `groups` groups over `columns` one unit of the dataset can add to (at most `maxGroups` when the query bounds it). */
export function groupsOneUnitCanAddTo(db: Db, datasetId: number, columns: readonly string[], groups: number, maxGroups?: number): UnitGroups {
  const unit = datasetUnit(db, datasetId)
  const oneGroup = unitLiesInOneGroup(unit, (c) => isPerPersonColumn(db, datasetId, c), columns)
  return { unit, oneGroup, groups: oneGroup ? 1 : Math.min(maxGroups ?? groups, groups) }
}

/**
 * The cells a release may be charged on: the given cells when one unit lies in one of them, else the whole dataset
 * ([WHOLE_DATASET]). A person whose rows lie in several cells would otherwise lose the sum of those cells' epsilons
 * while the ledger counted only the largest.
 */
export function cellsForUnit(db: Db, datasetId: number, cells: CellKey[]): CellKey[] {
  return soundCells(datasetUnit(db, datasetId), (c) => isPerPersonColumn(db, datasetId, c), cells)
}

/** `cellsForUnit` without the database: `perPerson` says whether a column holds one value per person. */
export function soundCells(unit: PrivacyUnit, perPerson: (column: string) => boolean, cells: CellKey[]): CellKey[] {
  for (const c of cells) if (!unitLiesInOneGroup(unit, perPerson, Object.keys(parseCellKey(c)))) return [WHOLE_DATASET]
  return cells
}
