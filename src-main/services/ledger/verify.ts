/**
 * `ledger verify`: what the trust kernel finds (trust/kernel.ts), read afresh and reported. The kernel recomputes the hash
 * chain and checks everything that refers to it; admission asks the same kernel, so what verify rejects is never
 * admitted.
 *
 * Detected: an edited entry (its hash no longer matches), a deleted entry (a gap in seq, or a prev_hash that does not
 * match), reordered entries (prev_hash / seq mismatch), a cut tail (the head record names a later entry), edited or
 * deleted cell charges (they no longer match the hashed cell list), a release without its charge. Every
 * officer signature (registrations, budgets, public declarations, unlocks), the audit log's own hash chain, and every
 * signed checkpoint (the heads of both chains under an officer's signature): a rewrite before the last checkpoint, even
 * a consistent one with every hash recomputed, no longer matches what the officer signed. Not detectable from the file
 * alone: a rewrite of what came after the last checkpoint, or a rollback to an older file. Against that, keep the head
 * hash that verify prints somewhere else and pass it back (`expectHead`, any prefix of at least 16 hex digits).
 */
import type Database from 'better-sqlite3'
import type { LedgerVerifyResult } from '../../contract/ledger'
import { UserError } from '../platform/errors'
import { formatTime } from '../../contract/format-time'
import { type TrustFindings, type TrustProblem, inspectWorkspace } from '../trust/kernel'
import { type LedgerReceipt, receiptProblems } from '../trust/receipts'
import { unsignedActsText } from '../../contract/officer-acts'
import { unsignedActsInForce } from './ledger-views'
import { type ReportSignatureFile, reportSignatureProblems } from './report-signature'

/** `--head`: a head hash verify printed, or any prefix of it of at least 16 hex digits. */
export function normalizeExpectHead(expectHead: string | undefined): string | undefined {
  if (expectHead === undefined) return undefined
  const h = expectHead.trim().toLowerCase()
  if (h === '') return undefined
  if (!/^[0-9a-f]{16,64}$/.test(h)) {
    throw new UserError('The head hash must be at least 16 hexadecimal digits (0-9, a-f) of a head hash that ledger verify printed')
  }
  return h
}

/**
 * `receipt`: a receipt the officer kept (`ledger checkpoint --receipt`): everything up to its heads must still be as
 * the officer signed it (a rollback or a rewrite after the last checkpoint shows only against it).
 */
export function verifyLedger(
  db: Database.Database,
  expectHead?: string,
  receipt?: LedgerReceipt,
  report?: { signature: ReportSignatureFile; bytes?: Uint8Array }
): LedgerVerifyResult {
  const expect = normalizeExpectHead(expectHead)
  const f = inspectWorkspace(db, { fresh: true })
  const problems = [
    ...f.problems,
    ...(receipt === undefined ? [] : receiptProblems(f, receipt)),
    ...(report === undefined ? [] : reportSignatureProblems(f, report.signature, report.bytes))
  ]
  // A head that names no entry proves nothing by itself (a mistyped or foreign hash looks the same as a cut tail): it is
  // reported as that, never as a broken entry.
  let headFound: boolean | undefined
  if (expect !== undefined) {
    headFound = false
    for (let seq = 1; seq <= f.lastSeq && !headFound; seq++) headFound = f.entryHashAt(seq)?.startsWith(expect) ?? false
  }
  problems.sort((a, b) => a.seq - b.seq)
  return verifyResult(f, problems, expect, headFound)
}

function headNotFoundText(expect: string): string {
  return (
    `The head ${expect.slice(0, 16)}… is not in this ledger: check that you copied it from this workspace's verify;` +
    ' if you did, entries after it were cut or rewritten.'
  )
}

/** The findings as `ledger verify` reports them: the first problem, or a green sentence with what is signed and checkpointed. */
function verifyResult(f: TrustFindings, problems: TrustProblem[], expect?: string, headFound?: boolean): LedgerVerifyResult {
  const first = problems[0] ?? null
  const count = f.entries
  const headHash = f.headHash
  const cp = f.lastCheckpoint
  const n = f.notCheckpointed
  const trustText =
    cp === null
      ? ` No signed checkpoint yet: ${count === 1 ? 'the entry is' : `all ${count} entries are`} not yet checkpointed (an officer act or "ledger checkpoint" signs the head).`
      : ` ${f.signedActs} officer ${f.signedActs === 1 ? 'act' : 'acts'} signed; last checkpoint at entry ${cp.ledgerSeq} by ${cp.officer} (${formatTime(cp.at)})` +
        (n.entries + n.auditEvents === 0
          ? '; nothing after it.'
          : `; not yet checkpointed: ${n.entries} ${n.entries === 1 ? 'entry' : 'entries'} and ${n.auditEvents} audit ${n.auditEvents === 1 ? 'event' : 'events'} after it.`)
  const unsigned = unsignedActsInForce(f)
  const unsignedText = unsigned > 0 ? ` ${unsignedActsText(unsigned)}` : ''
  const headNotFound = headFound === false
  const headText = headNotFound ? headNotFoundText(expect ?? '') : ''
  return {
    ok: first === null && !headNotFound,
    entries: count,
    headHash,
    firstBroken: first === null ? null : { seq: first.seq, reason: first.reason, ...(first.afterLastEntry ? { afterLastEntry: true } : {}) },
    ...(headFound === undefined ? {} : { headFound }),
    message: first
      ? `Ledger verification FAILED ${first.afterLastEntry ? `after the last entry (${f.lastSeq})` : `at entry ${first.seq}`}: ${first.reason}.${headText ? ` ${headText}` : ''}`
      : headNotFound
        ? `${headText} The chain itself is intact: ${count} ${count === 1 ? 'entry' : 'entries'}, head ${headHash.slice(0, 16)}.${trustText}`
        : `Ledger verified: ${count} ${count === 1 ? 'entry' : 'entries'}, hash chain intact, head ${headHash.slice(0, 16)}.${unsignedText}${trustText}`,
    unsignedActsInForce: unsigned,
    signedActs: f.signedActs,
    checkpoints: f.checkpoints.length,
    lastCheckpoint: cp === null ? null : { ledgerSeq: cp.ledgerSeq, auditId: cp.auditId, officer: cp.officer, at: cp.at },
    notCheckpointed: n,
    officers: f.registry.all.map((o) => ({ name: o.name, keyId: o.key_id }))
  }
}
