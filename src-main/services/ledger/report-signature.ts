/**
 * `ledger verify --report-signature S [--report R]`: a signed report (docs/spec/v1/ledger.md section 8, P1-P3) checked
 * against the workspace: signed by a verified officer, tied to a checkpoint the workspace holds and that verifies, its
 * ledger head still in the chain up to that checkpoint, and (given the report's JSON export) its data hashing to what
 * the officer signed.
 */
import { createHash } from 'node:crypto'
import { type ReportSignature, reportSigningText } from '../../contract/reports'
import type { TrustFindings, TrustProblem } from '../trust/kernel'
import { verifyText } from '../trust/officer-crypto'

export interface ReportSignatureFile extends ReportSignature {
  v: 1
  kind: 'quiet-alarm/report-signature'
  dataSha256: string
  ledgerHead: { seq: number; hash: string }
}

/** The file's shape, or null when it is not a report signature. */
export function asReportSignature(x: unknown): ReportSignatureFile | null {
  const s = x as Partial<ReportSignatureFile> | null
  const c = s?.checkpoint
  const ok =
    s !== null &&
    typeof s === 'object' &&
    s.kind === 'quiet-alarm/report-signature' &&
    typeof s.dataSha256 === 'string' &&
    typeof s.keyId === 'string' &&
    typeof s.signature === 'string' &&
    typeof s.officer === 'string' &&
    typeof s.ledgerHead?.seq === 'number' &&
    typeof s.ledgerHead.hash === 'string' &&
    typeof c?.id === 'number' &&
    typeof c.at === 'string' &&
    typeof c.ledgerSeq === 'number' &&
    typeof c.ledgerHash === 'string' &&
    typeof c.auditId === 'number' &&
    typeof c.auditHash === 'string'
  return ok ? (s as ReportSignatureFile) : null
}

export function reportSignatureProblems(f: TrustFindings, s: ReportSignatureFile, reportBytes?: Uint8Array): TrustProblem[] {
  const out: TrustProblem[] = []
  const at = (reason: string) => out.push({ seq: f.lastSeq + 1, reason, afterLastEntry: true })
  const of = `the report signed by officer "${s.officer.slice(0, 100)}"`
  const officer = f.registry.verified.find((o) => o.key_id === s.keyId)
  if (officer === undefined || !verifyText(officer.sign_public, reportSigningText(s.dataSha256, s.checkpoint, s.keyId), s.signature))
    at(`${of} does not carry a valid signature of a verified officer of this workspace`)
  const c = s.checkpoint
  const held = f.checkpoints.find(
    (k) =>
      k.id === c.id &&
      k.at === c.at &&
      k.ledgerSeq === c.ledgerSeq &&
      k.ledgerHash === c.ledgerHash &&
      k.auditId === c.auditId &&
      k.auditHash === c.auditHash
  )
  if (held === undefined) at(`${of} names checkpoint ${c.id}, which this workspace does not hold as signed`)
  else if (s.ledgerHead.seq > 0 && (s.ledgerHead.seq > c.ledgerSeq || f.entryHashAt(s.ledgerHead.seq) !== s.ledgerHead.hash))
    at(`the ledger head of ${of} (entry ${s.ledgerHead.seq}) is not in the chain its checkpoint covers`)
  if (reportBytes !== undefined && createHash('sha256').update(reportBytes).digest('hex') !== s.dataSha256)
    at(`the report file does not hash to the SHA-256 of ${of}`)
  return out
}
