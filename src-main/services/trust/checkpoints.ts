/**
 * Signed checkpoints: an officer's signature over the heads of the ledger and of the audit log, chained to the previous
 * checkpoint's signature.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { auditHead } from '../chain/audit-chain'
import { type EntrySigner, headOf } from '../chain/ledger-chain'
import { nowIso } from '../platform/clock'

type Db = Database.Database

/**
 * What a checkpoint signs: both heads, and the previous checkpoint's signature (hashed), so that checkpoints form a chain
 * of their own: removing one before the last breaks the signature of the next.
 */
export function checkpointText(c: {
  at: string
  ledgerSeq: number
  ledgerHash: string
  auditId: number
  auditHash: string
  keyId: string
  prevSignature: string | null
}): string {
  const prev = c.prevSignature === null ? 'none' : createHash('sha256').update(c.prevSignature).digest('hex')
  return `quiet-alarm/checkpoint/v1\n${c.at}\n${c.ledgerSeq}\n${c.ledgerHash}\n${c.auditId}\n${c.auditHash}\n${c.keyId}\n${prev}`
}

/**
 * Sign the heads of the ledger and of the audit log. Call inside the transaction of the act (after its entries), or
 * alone (`ledger checkpoint`).
 */
export function writeCheckpoint(
  db: Db,
  key: EntrySigner
): { id: number; ledgerSeq: number; ledgerHash: string; auditId: number; auditHash: string; at: string } {
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
  return { id: Number(info.lastInsertRowid), at: c.at, ledgerSeq: c.ledgerSeq, ledgerHash: c.ledgerHash, auditId: c.auditId, auditHash: c.auditHash }
}
