/** Admission: would a charge stay within the budgets in force? Reads only; the charge transaction asks it. */
import type Database from 'better-sqlite3'
import type { PrivacyNotion } from '../../contract/ledger'
import { nanoToDisplay } from '../chain/nano-epsilon'
import { NOTION_LABEL } from '../chain/notions'
import { unitWord } from '../catalog/unit-record'
import { notionCapNano, perUnitBudget, unitBudgetNano } from '../trust/budgets-in-force'
import { type TrustFindings, budgetsInForce, inspectWorkspace } from '../trust/kernel'
import { datasetUnit, unitProblem } from '../trust/privacy-unit'
import { cellCharges, unitSpend } from './accounts'
import { type CellKey, WHOLE_DATASET, cellSpend } from './cells'

type Db = Database.Database

export interface Admission {
  allowed: boolean
  /** What one unit (person or row) has lost at most, summed over notions, before and after this charge. */
  spentBeforeNano: number
  spentAfterNano: number
  /** The budget per unit it is held to (`perUnitBudget`); null: no budget at all, releases are denied. */
  budgetNano: number | null
  /**
   * What the budgets leave for this charge on the cells it touches: the smaller of budget per unit - (spent per unit after -
   * requested) and, with a notion cap, cap - (notion's spend after - requested).
   */
  remainingNano: number | null
  /** How far the charge goes over the binding limit (0 when allowed). */
  overNano: number
  /** The notion's own account, before and after, and its cap (null: none). */
  notion: { spentBeforeNano: number; spentAfterNano: number; capNano: number | null }
  /** One sentence when denied: requested / remaining / difference, in words. */
  denial: string | null
}

/**
 * Why nothing may be charged on this workspace, or null: the trust kernel found something that is not what the app and
 * the officers wrote (what `ledger verify` reports). Admission and verify read the same findings, so a state verify
 * rejects is never admitted. A forged budget of this dataset is named as such.
 */
function untrusted(f: TrustFindings, datasetId: number, datasetName: string): string | null {
  if (f.problems.length === 0) return null
  const nothing = 'the workspace was changed outside the app. Nothing was spent. Ask the privacy officer to run "quiet-alarm ledger verify".'
  const written = budgetsInForce(f, datasetId).latestWritten
  if (written !== null && f.whyNotInForce(written) === 'forged') {
    return `Denied: the budget of dataset "${datasetName}" (ledger entry ${written.seq}) does not carry a valid signature of a registered officer; ${nothing}`
  }
  const first = f.problems[0]
  return `Denied: the workspace's ledger does not verify (at entry ${first.seq}: ${first.reason}); ${nothing}`
}

export interface AdmissionOptions {
  /** The trust kernel's findings when the caller has them (inside the charge transaction: read there). */
  findings?: TrustFindings
}

/**
 * Would charging `amountNano` on `cells` under `notion` stay within the budgets in force? Reads only. Denied while the
 * workspace does not verify (`untrusted`); when the spend per unit after the charge would exceed the budget per unit,
 * or the notion's account would exceed its own cap, or no budget covers the notion (no per-unit budget and no cap for
 * it). Spend is computed from the hashed ledger entries (trust/kernel.ts), never from the derived cell table.
 */
export function admission(
  db: Db,
  datasetId: number,
  datasetName: string,
  notion: PrivacyNotion,
  cells: CellKey[],
  amountNano: number,
  options: AdmissionOptions = {}
): Admission {
  const f = options.findings ?? inspectWorkspace(db)
  const existing = cellCharges(db, datasetId, notion, f)
  const total = unitSpend(db, datasetId, f)
  const notionBefore = total.byNotion[notion]
  const notionAfter = cellSpend([...existing, ...[...new Set(cells)].map((cell) => ({ cell, nano: amountNano }))]).maxNano
  const before = total.spentNano
  const after = before - notionBefore + notionAfter
  const budgets = budgetsInForce(f, datasetId)
  const unitNano = unitBudgetNano(db, datasetId, f)
  const capNano = notionCapNano(db, datasetId, notion, f)
  const budget = perUnitBudget(db, datasetId, f).nano
  const label = NOTION_LABEL[notion]
  const per = `per ${unitWord(datasetUnit(db, datasetId))}`
  const eps = (n: number, mode: 'up' | 'down' = 'up') => nanoToDisplay(n, mode)
  const base = {
    spentBeforeNano: before,
    spentAfterNano: after,
    budgetNano: budget,
    notion: { spentBeforeNano: notionBefore, spentAfterNano: notionAfter, capNano }
  }
  const refused = (denial: string): Admission => ({ ...base, allowed: false, remainingNano: null, overNano: amountNano, denial })
  // The unit the charge was computed with must be the one the officer signed with the budget (privacy-unit.ts); said
  // first, since it names what changed in this dataset.
  const problem = unitProblem(db, datasetId, datasetName, f)
  if (problem !== null) return refused(problem)
  const distrust = untrusted(f, datasetId, datasetName)
  if (distrust !== null) return refused(distrust)
  if (unitNano === null && capNano === null) {
    // A budget written before officer keys stops counting once an officer exists: it must be set again, signed.
    if (budgets.latestWritten !== null && f.whyNotInForce(budgets.latestWritten) === 'unsigned') {
      return refused(
        `Denied: the budget of dataset "${datasetName}" was set before budgets carried the officer's signature on the dataset's privacy unit; ` +
          'nothing was spent. Ask the privacy officer to set the budget again (the same figure will do), which signs the unit.'
      )
    }
    return refused(
      `Denied: this release requests epsilon ${eps(amountNano)} (${label}) but dataset "${datasetName}" has no budget ${per} and no ${label} budget, so 0 remains ` +
        `and the request is ${eps(amountNano)} over; nothing was spent. Ask the privacy officer to set a budget (quiet-alarm budget).`
    )
  }
  const unitLeft = unitNano === null ? null : unitNano - (after - amountNano)
  const capLeft = capNano === null ? null : capNano - (notionAfter - amountNano)
  const remaining = unitLeft === null ? capLeft! : capLeft === null ? unitLeft : Math.min(unitLeft, capLeft)
  const unitOver = unitNano === null ? 0 : after - unitNano
  const capOver = capNano === null ? 0 : notionAfter - capNano
  if (unitOver <= 0 && capOver <= 0) return { ...base, allowed: true, remainingNano: remaining, overNano: 0, denial: null }
  const where = cells.length === 1 && cells[0] === WHOLE_DATASET ? '' : ' for the cells it touches'
  const byUnit = unitOver >= capOver
  const what = byUnit ? `of the ${eps(unitNano!, 'down')} budget ${per} (summed over notions)` : `of the ${eps(capNano!, 'down')} ${label} budget`
  const left = byUnit ? unitLeft! : capLeft!
  return {
    ...base,
    allowed: false,
    remainingNano: remaining,
    overNano: Math.max(unitOver, capOver),
    denial:
      `Denied: this release requests epsilon ${eps(amountNano)} (${label}) but only ${eps(Math.max(0, left), 'down')} ${what} ` +
      `of dataset "${datasetName}" remains${where}; the difference is ${eps(Math.max(unitOver, capOver))}. Nothing was spent. ` +
      'Ask for less accuracy, or ask the privacy officer to raise the budget.'
  }
}
