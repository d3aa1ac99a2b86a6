/**
 * Signed checkpoints: an officer's signature over the heads of the ledger and of the audit log, chained to the previous
 * checkpoint's signature.
 */
import type Database from 'better-sqlite3'
import { auditHead } from '../chain/audit-chain'
import { type EntrySigner, headOf } from '../chain/ledger-chain'
import { UserError } from '../platform/errors'
import { nowIso } from '../platform/clock'
import { checkpointText } from './checkpoint-text'
import { inspectWorkspace } from './kernel'

type Db = Database.Database

/**
 * Sign the heads of the ledger and of the audit log. Call inside the transaction of the act (after its entries), or
 * alone (`ledger checkpoint`).
 *
 * An officer's signature never covers a workspace the trust kernel rejects: the kernel judges the workspace with the
 * act and its checkpoint written (in a savepoint), and any problem undoes the checkpoint and refuses the act. Every
 * officer act writes its checkpoint in its own transaction, so no officer act (a link, a budget, a public declaration,
 * an unlock, an officer or account added) is recorded while the ledger does not verify: a file writer who hides signed
 * history (a dataset id the ledger names, for one) cannot have the officer act on the hidden state and restore it later.
 * Each act also calls `refuseUnlessVerifies` before it writes anything, so that its signature cannot cover (and so
 * clear) a state changed outside the app, such as a privacy unit a new budget would sign again.
 */
export function writeCheckpoint(
  db: Db,
  key: EntrySigner
): { id: number; ledgerSeq: number; ledgerHash: string; auditId: number; auditHash: string; at: string } {
  return db.transaction(() => {
    const lh = headOf(db)
    const ah = auditHead(db)
    const prev = db.prepare('SELECT signature FROM ledger_checkpoints ORDER BY id DESC LIMIT 1').get() as { signature: string } | undefined
    const c = {
      at: nowIso(),
      ledgerSeq: lh.seq,
      ledgerHash: lh.hash,
      auditId: ah.id,
      auditHash: ah.hash,
      keyId: key.keyId,
      prevSignature: prev?.signature ?? null
    }
    const info = db
      .prepare('INSERT INTO ledger_checkpoints (at, ledger_seq, ledger_hash, audit_id, audit_hash, signer, signature) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(c.at, c.ledgerSeq, c.ledgerHash, c.auditId, c.auditHash, c.keyId, key.sign(checkpointText(c)))
    refuseUnlessVerifies(db)
    return {
      id: Number(info.lastInsertRowid),
      at: c.at,
      ledgerSeq: c.ledgerSeq,
      ledgerHash: c.ledgerHash,
      auditId: c.auditId,
      auditHash: c.auditHash
    }
  })()
}

/**
 * Refuses (code forbidden) while the trust kernel reports any problem: an officer's act neither lands on nor repairs
 * a workspace that does not verify. Call inside the act's transaction, before it writes.
 */
export function refuseUnlessVerifies(db: Db): void {
  const problems = inspectWorkspace(db).problems
  if (problems.length === 0) return
  const first = problems[0]
  throw new UserError(
    `No officer act is recorded while the workspace's ledger does not verify (at entry ${first.seq}: ${first.reason}${problems.length > 1 ? `, and ${problems.length - 1} more` : ''}): run "quiet-alarm ledger verify" to see every problem, and ask whoever keeps the workspace file for a copy that verifies ("quiet-alarm ledger verify --receipt R" tells whether a copy is the one you signed); until then no budget, declaration, link or unlock can be recorded; nothing was written`,
    'forbidden'
  )
}
