/** The cells a release may be charged on, given the dataset's unit in force (ALGORITHMS.md section 6). */
import type Database from 'better-sqlite3'
import type { PrivacyUnit } from '../../contract/datasets'
import { datasetUnit, isPerPersonColumn } from '../trust/privacy-unit'
import { type CellKey, WHOLE_DATASET, parseCellKey } from './cells'

type Db = Database.Database

/** True when cells over these columns are sound for the dataset's unit: row-level, or every column holds one value per person. */
export function cellsSoundForUnit(db: Db, datasetId: number, columns: Iterable<string>): boolean {
  if (datasetUnit(db, datasetId).kind === 'row') return true
  for (const c of columns) if (!isPerPersonColumn(db, datasetId, c)) return false
  return true
}

/**
 * The cells a release may be charged on: the given cells when parallel composition over them is sound for the unit,
 * else the whole dataset ([WHOLE_DATASET]). A person whose rows lie in several cells would otherwise lose the sum of
 * those cells' epsilons while the ledger counted only the largest.
 */
export function cellsForUnit(db: Db, datasetId: number, cells: CellKey[]): CellKey[] {
  const unit = datasetUnit(db, datasetId)
  return soundCells(unit, (c) => isPerPersonColumn(db, datasetId, c), cells)
}

/** `cellsForUnit` without the database: `perPerson` says whether a column holds one value per person. */
export function soundCells(unit: PrivacyUnit, perPerson: (column: string) => boolean, cells: CellKey[]): CellKey[] {
  if (unit.kind === 'row') return cells
  for (const c of cells) for (const k of Object.keys(parseCellKey(c))) if (!perPerson(k)) return [WHOLE_DATASET]
  return cells
}
