/**
 * The privacy unit in force (ALGORITHMS.md section 6): the one the privacy officer signed with the dataset's
 * latest budget in force (trust/kernel.ts), and whether the workspace's tables still say the same
 * (trust/unit-declaration.ts reads them). Releases are charged with the signed unit and denied when the tables differ.
 */
import type Database from 'better-sqlite3'
import { statement } from '../store/statements'
import type { PrivacyUnit } from '../../contract/datasets'
import { type TrustFindings, inspectWorkspace, signedUnitOf } from './kernel'
import { type UnitDeclaration, sameDeclaration, unitDeclaration } from './unit-declaration'

export type { PrivacyUnit }

type Db = Database.Database

/**
 * Why a release on this dataset may not be charged as its tables say, or null: the latest budget carries no signed
 * declaration (set before declarations were signed), or the tables differ from what the officer signed (the workspace
 * was changed outside the app). No budget at all is the admission's own denial.
 */
export function unitProblem(db: Db, datasetId: number, datasetName: string, f: TrustFindings = inspectWorkspace(db)): string | null {
  const signed = signedUnitOf(f, datasetId)
  if (signed === 'none') return null
  if (signed === 'unsigned') {
    // A workspace from before officer keys, with no officer registered yet, has no signatures to check anything
    // against (its budgets are unsigned too); once an officer exists, every budget in force must carry the unit.
    // "No officer" is read from every trace an officer leaves (the kernel's `officerTrace`), not from the registry
    // alone: deleting the officers' rows (with the file) must not bring back the unsigned path.
    if (f.officerTrace === null) return null
    return (
      `Denied: the budget of dataset "${datasetName}" was set before budgets carried the officer's signature on the dataset's privacy unit; ` +
      'nothing was spent. Ask the privacy officer to set the budget again (the same figure will do), which signs the unit.'
    )
  }
  if (!sameDeclaration(signed.declaration, unitDeclaration(db, datasetId))) {
    return (
      `Denied: the privacy unit of dataset "${datasetName}" in the workspace differs from the one the officer signed with its budget (ledger entry ${signed.seq}); ` +
      'the workspace was changed outside the app. Nothing was spent. Ask the privacy officer to run "quiet-alarm ledger verify".'
    )
  }
  return null
}

/** The unit the accounting uses: the one signed with the latest budget when there is one, else the stored one. */
function declarationInForce(db: Db, datasetId: number): UnitDeclaration {
  const signed = signedUnitOf(inspectWorkspace(db), datasetId)
  return typeof signed === 'object' ? signed.declaration : unitDeclaration(db, datasetId)
}

/** The dataset's unit (the signed one once a budget carries it). */
export function datasetUnit(db: Db, datasetId: number): { kind: 'row' } | { kind: 'person'; column: string } {
  const d = declarationInForce(db, datasetId)
  return d.person === null ? { kind: 'row' } : { kind: 'person', column: d.person }
}

/**
 * Does `column` hold at most one value per unit? Always true for a column of a row-level dataset; for a person-level
 * dataset, the person column and the columns declared at import (and signed with the budget). False for a column the
 * dataset does not have, and for every other column of a linked source.
 */
export function isPerPersonColumn(db: Db, datasetId: number, column: string): boolean {
  const exists = statement(db, 'SELECT 1 FROM dataset_columns WHERE dataset_id = ? AND name = ?').get(datasetId, column)
  if (!exists) return false
  const d = declarationInForce(db, datasetId)
  if (d.person === null) return true
  return d.person === column || d.perPerson.includes(column)
}
