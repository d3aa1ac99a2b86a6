/**
 * Receipts: a checkpoint as a small signed document the officer keeps outside the workspace (`ledger checkpoint
 * --receipt F`). The workspace file alone cannot show a rollback to an older copy or a consistent rewrite after the last
 * checkpoint; checked against a receipt (`ledger verify --receipt F`) it can: every entry and audit event up to the
 * receipt's heads must still be there with the hashes the officer signed, and the officer who signed it must still be a
 * verified officer of the workspace. The receipt carries the officer's public keys, so a registry replaced wholesale
 * (keys of the writer's own) does not verify it either.
 */
import type { LedgerReceipt } from '../../contract/ledger'
import { canonicalJson } from '../chain/canonical'
import { UserError } from '../platform/errors'
import type { TrustFindings, TrustProblem } from './kernel'
import { keyIdOf, verifyText } from './officer-crypto'

export type { LedgerReceipt }

/** What the officer signs: both heads, when, and the key (the document's other fields are not trusted). */
export function receiptText(r: Pick<LedgerReceipt, 'at' | 'ledgerSeq' | 'ledgerHash' | 'auditId' | 'auditHash'>, keyId: string): string {
  return `quiet-alarm/ledger-receipt/v1\n${canonicalJson({
    at: r.at,
    ledgerSeq: r.ledgerSeq,
    ledgerHash: r.ledgerHash,
    auditId: r.auditId,
    auditHash: r.auditHash,
    keyId
  })}`
}

/** A receipt of the heads a checkpoint just signed. */
export function makeReceipt(
  cp: { at: string; ledgerSeq: number; ledgerHash: string; auditId: number; auditHash: string },
  key: { name: string; keyId: string; signPublic: string; sealPublic: string; sign: (text: string) => string }
): LedgerReceipt {
  const heads = { at: cp.at, ledgerSeq: cp.ledgerSeq, ledgerHash: cp.ledgerHash, auditId: cp.auditId, auditHash: cp.auditHash }
  return {
    v: 1,
    kind: 'quiet-alarm/ledger-receipt',
    ...heads,
    officer: { name: key.name, keyId: key.keyId, signPublic: key.signPublic, sealPublic: key.sealPublic },
    signature: key.sign(receiptText(heads, key.keyId))
  }
}

/** The receipt's own signature: refused with one sentence when the document is not one an officer signed. */
export function checkReceipt(r: LedgerReceipt): void {
  let ok: boolean
  try {
    ok =
      keyIdOf(r.officer.signPublic, r.officer.sealPublic) === r.officer.keyId &&
      verifyText(r.officer.signPublic, receiptText(r, r.officer.keyId), r.signature)
  } catch {
    ok = false
  }
  if (!ok)
    throw new UserError(
      'The receipt does not carry a valid officer signature (it was changed, or is not a Quiet Alarm receipt); nothing was checked against it'
    )
}

/** What the workspace no longer holds of what the receipt covers. */
export function receiptProblems(f: TrustFindings, r: LedgerReceipt): TrustProblem[] {
  checkReceipt(r)
  const out: TrustProblem[] = []
  const of = `the receipt signed by officer "${r.officer.name}" at ${r.at}`
  if (!f.registry.verified.some((o) => o.key_id === r.officer.keyId && o.sign_public === r.officer.signPublic)) {
    out.push({
      seq: 1,
      reason: `the officer who signed ${of} (key id ${r.officer.keyId.slice(0, 16)}) is not a verified officer of this workspace: the officer registry was replaced`
    })
  }
  if (r.ledgerSeq > 0) {
    const h = f.entryHashAt(r.ledgerSeq)
    if (h === null)
      out.push({
        seq: Math.min(r.ledgerSeq, f.lastSeq + 1),
        reason: `entry ${r.ledgerSeq}, covered by ${of}, is missing: the workspace was rolled back or cut short`
      })
    else if (h !== r.ledgerHash)
      out.push({ seq: r.ledgerSeq, reason: `the ledger up to entry ${r.ledgerSeq} was rewritten after ${of}: it no longer matches the receipt` })
  }
  if (r.auditId > 0) {
    const h = f.auditHashAt(r.auditId)
    if (h === null)
      out.push({
        seq: f.lastSeq + 1,
        reason: `audit event ${r.auditId}, covered by ${of}, is missing: the workspace was rolled back or cut short`,
        afterLastEntry: true
      })
    else if (h !== r.auditHash)
      out.push({ seq: f.lastSeq + 1, reason: `the audit log up to event ${r.auditId} was rewritten after ${of}`, afterLastEntry: true })
  }
  return out
}
