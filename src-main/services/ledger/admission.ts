/** Admission: would a charge stay within the budgets in force? Reads only; the charge transaction asks it. */
import type Database from 'better-sqlite3'
import type { PrivacyNotion } from '../../contract/ledger'
import { nanoToDisplay } from '../chain/nano-epsilon'
import { NOTION_LABEL } from '../chain/notions'
import { unitWord } from '../catalog/unit-record'
import { notionCapNano, perUnitBudget, unitBudgetNano } from '../trust/budgets-in-force'
import { type TrustFindings, budgetAnalystName, budgetsInForce, inspectWorkspace } from '../trust/kernel'
import { callingAccount } from '../platform/caller'
import type { EntryRow } from '../chain/ledger-chain'
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
   * requested) and, with a notion cap, cap - (notion's spend after - requested); with an analyst budget, the smaller of
   * that and the analyst's own.
   */
  remainingNano: number | null
  /** How far the charge goes over the binding limit (0 when allowed). */
  overNano: number
  /** The notion's own account, before and after, and its cap (null: none). */
  notion: { spentBeforeNano: number; spentAfterNano: number; capNano: number | null }
  /** The calling analyst's own budget on the dataset, when the officer set one (service deployment); else null. */
  analyst: AnalystAdmission | null
  /** One sentence when denied: requested / remaining / difference, in words; it names the budget that binds. */
  denial: string | null
  /** When the dataset's budgets deny it: the limit that binds, the budget per unit or the notion's own cap (null otherwise). */
  limit: { kind: 'per-unit' | 'notion-cap'; nano: number } | null
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
  /** The analyst account the charge is made by (null: none, the workbench); by default the calling account. */
  accountId?: number | null
  /** false: hold an analyst account to the dataset's budgets too, as before allotments (kept for tests of that path). */
  analystAllotment?: boolean
}

/** An analyst's own budget on the dataset (service deployment): their charges held to the officer's budget naming them. */
export interface AnalystAdmission {
  accountId: number
  name: string
  spentBeforeNano: number
  spentAfterNano: number
  budgetNano: number
  remainingNano: number
  overNano: number
}

interface ScopeCheck {
  spentBeforeNano: number
  spentAfterNano: number
  notionBeforeNano: number
  notionAfterNano: number
  unitNano: number | null
  capNano: number | null
  budgetNano: number | null
  remainingNano: number
  overNano: number
  /** The binding limit when over (or the tighter one when within): the per-unit budget or the notion's cap. */
  byUnit: boolean
  left: number
}

/**
 * One scope's figures: the dataset's budgets against every charge (`accountId` null), or an analyst's own budgets
 * against the charges their account made. Spend is per unit summed over notions; a notion's cap is held against that
 * notion's account alone. Null when the scope has no budget at all.
 */
function checkScope(
  db: Db,
  f: TrustFindings,
  datasetId: number,
  notion: PrivacyNotion,
  cells: CellKey[],
  amountNano: number,
  accountId: number | null
) {
  const existing = cellCharges(db, datasetId, notion, f, accountId)
  const total = unitSpend(db, datasetId, f, accountId)
  const notionBefore = total.byNotion[notion]
  const notionAfter = cellSpend([...existing, ...[...new Set(cells)].map((cell) => ({ cell, nano: amountNano }))]).maxNano
  const before = total.spentNano
  const after = before - notionBefore + notionAfter
  const unitNano = unitBudgetNano(db, datasetId, f, accountId)
  const capNano = notionCapNano(db, datasetId, notion, f, accountId)
  const budgetNano = perUnitBudget(db, datasetId, f, accountId).nano
  const unitLeft = unitNano === null ? null : unitNano - (after - amountNano)
  const capLeft = capNano === null ? null : capNano - (notionAfter - amountNano)
  const unitOver = unitNano === null ? 0 : after - unitNano
  const capOver = capNano === null ? 0 : notionAfter - capNano
  const byUnit = unitNano !== null && (capNano === null || unitOver >= capOver)
  const check: ScopeCheck = {
    spentBeforeNano: before,
    spentAfterNano: after,
    notionBeforeNano: notionBefore,
    notionAfterNano: notionAfter,
    unitNano,
    capNano,
    budgetNano,
    remainingNano: unitLeft === null ? (capLeft ?? 0) : capLeft === null ? unitLeft : Math.min(unitLeft, capLeft),
    overNano: Math.max(unitOver, capOver, 0),
    byUnit,
    left: byUnit ? unitLeft! : (capLeft ?? 0)
  }
  return check
}

/**
 * Would charging `amountNano` on `cells` under `notion` stay within the budgets in force? Reads only. Denied while the
 * workspace does not verify (`untrusted`); when the spend per unit after the charge would exceed the budget per unit,
 * or the notion's account would exceed its own cap, or no budget covers the notion (no per-unit budget and no cap for
 * it). In the service, the same holds for the calling analyst's own budget on the dataset, if the officer set one
 * (entries naming the account, held against the charges the account made): both are checked here, in the caller's one
 * charge transaction, and a denial says which budget. Spend is computed from the hashed ledger entries
 * (trust/kernel.ts), never from the derived cell table.
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
  const accountId = options.accountId !== undefined ? options.accountId : (callingAccount()?.id ?? null)
  // An analyst account of the service sees its own figures only, even in a refusal (allotmentAdmission below).
  const allotted = accountId !== null && options.analystAllotment !== false && callingRole() === 'analyst'
  const ds = checkScope(db, f, datasetId, notion, cells, amountNano, allotted ? accountId : null)
  const budgets = budgetsInForce(f, datasetId)
  const label = NOTION_LABEL[notion]
  const per = `per ${unitWord(datasetUnit(db, datasetId))}`
  const eps = (n: number, mode: 'up' | 'down' = 'up') => nanoToDisplay(n, mode)
  const base = {
    spentBeforeNano: ds.spentBeforeNano,
    spentAfterNano: ds.spentAfterNano,
    budgetNano: ds.budgetNano,
    notion: { spentBeforeNano: ds.notionBeforeNano, spentAfterNano: ds.notionAfterNano, capNano: ds.capNano },
    analyst: null,
    limit: null
  }
  const refused = (denial: string): Admission => ({ ...base, allowed: false, remainingNano: null, overNano: amountNano, denial })
  // The unit the charge was computed with must be the one the officer signed with the budget (privacy-unit.ts); said
  // first, since it names what changed in this dataset.
  const problem = unitProblem(db, datasetId, datasetName, f)
  if (problem !== null) return refused(problem)
  const distrust = untrusted(f, datasetId, datasetName)
  if (distrust !== null) return refused(distrust)
  // (For an analyst: whether the dataset has a budget at all, an officer's fact; its own allotment is checked below.)
  const noBudget = allotted ? budgets.unit === null && Object.keys(budgets.caps).length === 0 : ds.unitNano === null && ds.capNano === null
  if (noBudget) {
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
  const where = cells.length === 1 && cells[0] === WHOLE_DATASET ? '' : ' for the cells it touches'
  const over = (c: ScopeCheck, whose: string) => {
    const what = c.byUnit
      ? `of the ${eps(c.unitNano!, 'down')} budget ${per} (summed over notions)`
      : `of the ${eps(c.capNano!, 'down')} ${label} budget`
    return (
      `Denied: this release requests epsilon ${eps(amountNano)} (${label}) but only ${eps(Math.max(0, c.left), 'down')} ${what} ` +
      `of ${whose} remains${where}; the difference is ${eps(c.overNano)}. Nothing was spent. `
    )
  }
  // An analyst account of the service is held to its own allotment alone: every figure it is shown, and whether it is
  // admitted, depend on its own charges and on the officer's acts only, never on another analyst's spend.
  if (allotted) {
    return allotmentAdmission(f, { datasetId, datasetName, notion, cells, amountNano, accountId: accountId!, label, per, over, an: ds })
  }
  if (ds.overNano > 0) {
    return {
      ...base,
      allowed: false,
      remainingNano: ds.remainingNano,
      overNano: ds.overNano,
      denial: over(ds, `dataset "${datasetName}"`) + 'Ask for less accuracy, or ask the privacy officer to raise the budget.',
      limit: ds.byUnit ? { kind: 'per-unit', nano: ds.unitNano! } : { kind: 'notion-cap', nano: ds.capNano! }
    }
  }
  // The calling analyst's own budget on this dataset, when the officer set one: held against their own charges.
  const own = accountId === null ? null : budgetsInForce(f, datasetId, accountId)
  if (own === null || own.latest === null) return { ...base, allowed: true, remainingNano: ds.remainingNano, overNano: 0, denial: null }
  const an = checkScope(db, f, datasetId, notion, cells, amountNano, accountId)
  const name = budgetAnalystName(own.latest) ?? `account ${accountId}`
  const whose = `analyst "${name}"'s budget on dataset "${datasetName}"`
  const analyst = (remainingNano: number, overNano: number): AnalystAdmission => ({
    accountId: accountId!,
    name,
    spentBeforeNano: an.spentBeforeNano,
    spentAfterNano: an.spentAfterNano,
    budgetNano: an.budgetNano ?? 0,
    remainingNano,
    overNano
  })
  if (an.unitNano === null && an.capNano === null) {
    return {
      ...base,
      allowed: false,
      remainingNano: 0,
      overNano: amountNano,
      analyst: analyst(0, amountNano),
      denial:
        `Denied: this release requests epsilon ${eps(amountNano)} (${label}) but ${whose} has no budget ${per} and no ${label} budget, so 0 remains ` +
        `and the request is ${eps(amountNano)} over; nothing was spent. Ask the privacy officer to set your budget for ${label}.`
    }
  }
  const remaining = Math.min(ds.remainingNano, an.remainingNano)
  if (an.overNano <= 0) return { ...base, allowed: true, remainingNano: remaining, overNano: 0, analyst: analyst(an.remainingNano, 0), denial: null }
  return {
    ...base,
    allowed: false,
    remainingNano: remaining,
    overNano: an.overNano,
    analyst: analyst(an.remainingNano, an.overNano),
    denial: over(an, whose) + 'Ask for less accuracy, or ask the privacy officer to raise your budget.'
  }
}

/** The role of the calling account (null: the workbench's local user, or outside any call). */
function callingRole(): string | null {
  return callingAccount()?.role ?? null
}

/** Whether a budget entry in force froze its scope (no further releases). */
export function isFreeze(e: EntryRow | null | undefined): boolean {
  if (!e) return false
  try {
    return (JSON.parse(e.detail) as { freeze?: unknown }).freeze === true
  } catch {
    return false
  }
}

interface AllotmentAsk {
  datasetId: number
  datasetName: string
  notion: PrivacyNotion
  cells: CellKey[]
  amountNano: number
  accountId: number
  label: string
  per: string
  over: (c: ScopeCheck, whose: string) => string
  /** The analyst's own scope (checkScope over the account's charges). */
  an: ScopeCheck
}

/**
 * Admission of an analyst account (ALGORITHMS.md section 5, "Analysts of one service"): the officer gives each analyst
 * an allotment of the dataset's budget (the allotments of a scope sum to at most the dataset's: ledger/budgets.ts), and
 * the analyst is held to it alone. So the dataset's budget is never exceeded (the dataset's spend is at most the sum of
 * the analysts' own), and nothing here reads another analyst's charges: the figures returned are the analyst's own
 * (spent before and after, budget, remaining), and a denial names only public facts (the officer's acts) and the
 * analyst's own spend. An analyst without an allotment, or without one for a notion the dataset caps, is denied; a
 * dataset (or notion) the officer froze admits nobody.
 */
function allotmentAdmission(f: TrustFindings, a: AllotmentAsk): Admission {
  const { datasetId, datasetName, notion, amountNano, accountId, label, per, over, an } = a
  const eps = (n: number) => nanoToDisplay(n, 'up')
  const own = budgetsInForce(f, datasetId, accountId)
  const dsBudgets = budgetsInForce(f, datasetId)
  const name = own.latest === null ? (callingAccount()?.name ?? `account ${accountId}`) : (budgetAnalystName(own.latest) ?? `account ${accountId}`)
  const analyst = (remainingNano: number, overNano: number): AnalystAdmission => ({
    accountId,
    name,
    spentBeforeNano: an.spentBeforeNano,
    spentAfterNano: an.spentAfterNano,
    budgetNano: an.budgetNano ?? 0,
    remainingNano,
    overNano
  })
  const base = {
    spentBeforeNano: an.spentBeforeNano,
    spentAfterNano: an.spentAfterNano,
    budgetNano: an.budgetNano,
    notion: { spentBeforeNano: an.notionBeforeNano, spentAfterNano: an.notionAfterNano, capNano: an.capNano },
    limit: null
  }
  const deny = (denial: string): Admission => ({
    ...base,
    allowed: false,
    remainingNano: 0,
    overNano: amountNano,
    analyst: analyst(0, amountNano),
    denial
  })
  if (isFreeze(dsBudgets.unit) || isFreeze(dsBudgets.caps[notion])) {
    return deny(
      `Denied: the privacy officer froze dataset "${datasetName}"${isFreeze(dsBudgets.unit) ? '' : ` for ${label}`} (no further releases); nothing was spent.`
    )
  }
  if (an.unitNano === null && an.capNano === null) {
    return deny(
      `Denied: this release requests epsilon ${eps(amountNano)} (${label}) but you have no allotment ${per} on dataset "${datasetName}"` +
        `${an.budgetNano === null ? '' : ` for ${label}`}, so 0 remains; nothing was spent. Ask the privacy officer for an allotment of its budget.`
    )
  }
  if (dsBudgets.caps[notion] !== undefined && an.capNano === null) {
    return deny(
      `Denied: dataset "${datasetName}" has its own ${label} budget and you have no allotment of it, so 0 remains for ${label}; nothing was spent. ` +
        `Ask the privacy officer for an allotment of the ${label} budget.`
    )
  }
  if (an.overNano <= 0) {
    return { ...base, allowed: true, remainingNano: an.remainingNano, overNano: 0, analyst: analyst(an.remainingNano, 0), denial: null }
  }
  return {
    ...base,
    allowed: false,
    remainingNano: an.remainingNano,
    overNano: an.overNano,
    analyst: analyst(an.remainingNano, an.overNano),
    denial: over(an, `your allotment on dataset "${datasetName}"`) + 'Ask for less accuracy, or ask the privacy officer to raise your allotment.'
  }
}
