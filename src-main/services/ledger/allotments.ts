/**
 * Allotments (ALGORITHMS.md section 5, "Analysts of one service"): an analyst's own budget on a dataset is an allotment
 * of the dataset's budget, and the allotments sum to at most it, scope by scope:
 * - per unit: the sum over analysts of each one's budget per unit (their per-unit allotment, else the sum of their
 *   notion allotments) is at most the dataset's budget per unit (the same reading: `perUnitBudget`);
 * - per notion the dataset caps: the sum of the analysts' allotments of that notion is at most the dataset's cap (an
 *   analyst without one is denied under that notion: admission.ts).
 * Admission then holds each analyst to their allotment alone, and the dataset's spend (at most the sum of the analysts'
 * own spends) stays within its budget without any analyst's figures depending on another's.
 *
 * `allotmentProblem` is asked by the officer's budget act before it writes: a change that would oversubscribe a scope
 * (an allotment raised, or the dataset's budget lowered, past the other side) is refused with one sentence. A change
 * that brings an oversubscribed scope closer (an allotment lowered, a budget raised) and a freeze are never refused.
 */
import type { PrivacyNotion } from '../../contract/ledger'
import { NOTIONS, NOTION_LABEL } from '../chain/notions'
import { nanoToDisplay } from '../chain/nano-epsilon'
import { type TrustFindings, budgetAccount, budgetAnalystName, budgetsInForce } from '../trust/kernel'

/** One scope's budgets as figures: per unit (null: none) and each notion's cap. */
interface Scope {
  unit: number | null
  caps: Partial<Record<PrivacyNotion, number>>
}

function scopeOf(f: TrustFindings, datasetId: number, accountId: number | null): Scope {
  const b = budgetsInForce(f, datasetId, accountId)
  const caps: Scope['caps'] = {}
  for (const n of NOTIONS) if (b.caps[n] !== undefined) caps[n] = b.caps[n]!.amount_nano
  return { unit: b.unit?.amount_nano ?? null, caps }
}

/** The budget per unit a scope holds one unit to (perUnitBudget's reading): the per-unit budget, else the sum of the caps. */
function perUnit(s: Scope): number | null {
  if (s.unit !== null) return s.unit
  const caps = Object.values(s.caps)
  return caps.length === 0 ? null : caps.reduce((a, b) => a + b, 0)
}

/** The analyst accounts given an allotment on the dataset (budget entries naming them), with the name recorded. */
export function allottedAnalysts(f: TrustFindings, datasetId: number): Array<{ id: number; name: string }> {
  const out = new Map<number, string>()
  for (const e of f.officerActs) {
    if (e.kind !== 'budget' || e.dataset_id !== datasetId) continue
    const id = budgetAccount(e)
    if (id !== null) out.set(id, budgetAnalystName(e) ?? `account ${id}`)
  }
  return [...out].map(([id, name]) => ({ id, name })).sort((a, b) => a.id - b.id)
}

export interface BudgetChange {
  datasetId: number
  datasetName: string
  /** null: per unit. */
  notion: PrivacyNotion | null
  nano: number
  /** The analyst whose allotment this is; null: the dataset's own budget. */
  analyst: { id: number; name: string } | null
  freeze: boolean
  /** "per person" / "per row". */
  per: string
}

/** Why the change would oversubscribe the dataset's budget (one sentence), or null. */
export function allotmentProblem(f: TrustFindings, c: BudgetChange): string | null {
  if (c.freeze) return null
  const analysts = allottedAnalysts(f, c.datasetId)
  if (c.analyst !== null && !analysts.some((a) => a.id === c.analyst!.id)) analysts.push(c.analyst)
  if (analysts.length === 0) return null
  const apply = (s: Scope): Scope => {
    const next: Scope = { unit: s.unit, caps: { ...s.caps } }
    if (c.notion === null) next.unit = c.nano
    else next.caps[c.notion] = c.nano
    return next
  }
  const dsBefore = scopeOf(f, c.datasetId, null)
  const ds = c.analyst === null ? apply(dsBefore) : dsBefore
  const scopes = analysts.map((a) => {
    const before = scopeOf(f, c.datasetId, a.id)
    return { ...a, before, after: c.analyst !== null && a.id === c.analyst.id ? apply(before) : before }
  })
  const eps = (n: number) => nanoToDisplay(n, 'down')
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
  // Per unit.
  const unitAllotted = (which: 'before' | 'after') => sum(scopes.map((s) => perUnit(s[which]) ?? 0))
  const dsUnitAfter = perUnit(ds)
  const dsUnitBefore = perUnit(dsBefore)
  const unitOver = (allotted: number, budget: number | null) => allotted > (budget ?? 0)
  const worse = (overAfter: number, overBefore: number) => overAfter > 0 && overAfter > overBefore
  const unitOverBy = (allotted: number, budget: number | null) => (unitOver(allotted, budget) ? allotted - (budget ?? 0) : 0)
  if (worse(unitOverBy(unitAllotted('after'), dsUnitAfter), unitOverBy(unitAllotted('before'), dsUnitBefore))) {
    return sentence(c, eps(unitAllotted('after')), dsUnitAfter === null ? null : eps(dsUnitAfter), `${c.per} (summed over notions)`)
  }
  // Per notion the dataset caps.
  for (const n of NOTIONS) {
    const capAfter = ds.caps[n]
    if (capAfter === undefined) continue
    const capBefore = dsBefore.caps[n]
    const allottedAfter = sum(scopes.map((s) => s.after.caps[n] ?? 0))
    const allottedBefore = sum(scopes.map((s) => s.before.caps[n] ?? 0))
    const overAfter = Math.max(0, allottedAfter - capAfter)
    const overBefore = capBefore === undefined ? 0 : Math.max(0, allottedBefore - capBefore)
    if (worse(overAfter, overBefore)) return sentence(c, eps(allottedAfter), eps(capAfter), `for ${NOTION_LABEL[n]}`)
  }
  return null
}

function sentence(c: BudgetChange, allotted: string, budget: string | null, what: string): string {
  const theirs = budget === null ? `the dataset has no budget ${what}` : `the dataset's budget is ${budget} ${what}`
  if (c.analyst !== null) {
    return (
      `Refused: this allotment for analyst "${c.analyst.name}" would bring the analysts' allotments on dataset "${c.datasetName}" to epsilon ${allotted} ` +
      `${what}, and ${theirs}: allotments sum to at most the dataset's budget. Lower another analyst's allotment, or raise the dataset's budget, first; nothing was written.`
    )
  }
  return (
    `Refused: the analysts' allotments on dataset "${c.datasetName}" sum to epsilon ${allotted} ${what}, and this budget would leave ` +
    `${budget === null ? 'none' : budget}: allotments sum to at most the dataset's budget. Lower the allotments first, or freeze the dataset; nothing was written.`
  )
}
