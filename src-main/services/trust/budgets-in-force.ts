/**
 * The budgets in force, as figures: the officer's budget entries that count by the trust kernel's rules (signed by a
 * verified officer; unsigned ones only in a workspace where no officer ever existed), never a budget row as stored.
 */
import type Database from 'better-sqlite3'
import type { PrivacyNotion } from '../../contract/ledger'
import { NOTIONS } from '../chain/notions'
import { type TrustFindings, budgetsInForce, inspectWorkspace } from './kernel'

type Db = Database.Database

/** The per-unit budget in force: the latest such budget entry that names no notion; null if none counts. */
export function unitBudgetNano(db: Db, datasetId: number, f: TrustFindings = inspectWorkspace(db), accountId: number | null = null): number | null {
  return budgetsInForce(f, datasetId, accountId).unit?.amount_nano ?? null
}

/** A notion's own cap in force: the latest budget entry for exactly this notion; null if none (then only the per-unit budget applies). */
export function notionCapNano(
  db: Db,
  datasetId: number,
  notion: PrivacyNotion,
  f: TrustFindings = inspectWorkspace(db),
  accountId: number | null = null
): number | null {
  return budgetsInForce(f, datasetId, accountId).caps[notion]?.amount_nano ?? null
}

/**
 * The budget one unit is held to, and where it comes from: the officer's per-unit budget; without one, the sum of the
 * notions' own budgets (only notions with a budget may spend then, so a unit's loss is at most that sum); else none.
 */
export function perUnitBudget(
  db: Db,
  datasetId: number,
  f: TrustFindings = inspectWorkspace(db),
  accountId: number | null = null
): { nano: number | null; source: 'per-unit' | 'notion-budgets' | 'none' } {
  const b = budgetsInForce(f, datasetId, accountId)
  if (b.unit !== null) return { nano: b.unit.amount_nano, source: 'per-unit' }
  let sum = 0
  let any = false
  for (const n of NOTIONS) {
    const cap = b.caps[n]
    if (cap !== undefined) {
      sum += cap.amount_nano
      any = true
    }
  }
  return any ? { nano: sum, source: 'notion-budgets' } : { nano: null, source: 'none' }
}
