/**
 * What a message asks of the privacy officer, and where the app leads for it: a denial that asks to raise or set a
 * budget ("Set a budget"), verify's entries that no checkpoint covers yet ("Sign a checkpoint"). Pure: unit-tested
 * under Node.
 */
import type { LedgerVerifyResult } from '../../../../src-main/contract'

/** What a denial asks of the privacy officer about a budget ("raise" it, "set" it), or null when it asks nothing of them. */
export function budgetAsk(denial: string | null): 'raise' | 'set' | null {
  const m = /ask the privacy officer to (raise|set)\b/i.exec(denial ?? '')
  return m ? (m[1].toLowerCase() as 'raise' | 'set') : null
}

/** What to do about entries and audit events no checkpoint covers yet (null: none is left uncovered). */
export function checkpointAdvice(r: LedgerVerifyResult, officer: boolean): string | null {
  const n = r.notCheckpointed
  const uncovered = n ? n.entries + n.auditEvents > 0 : r.lastCheckpoint === null && r.entries > 0
  if (!uncovered) return null
  return officer
    ? 'Sign a checkpoint now (your passphrase): verify then detects any rewrite or removal of these too.'
    : 'Ask a privacy officer to sign a checkpoint (Ledger, “Sign a checkpoint”): verify then detects any rewrite or removal of these too.'
}
