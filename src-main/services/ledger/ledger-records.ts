/**
 * The ledger's records as stored, for verifiers outside Quiet Alarm (contract/ledger-records.ts): read as they are,
 * judged by nothing, so that a record changed outside the app reaches the verifier changed. The wrapped private keys
 * leave only as their SHA-256 and their KDF parameters.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { LedgerEntryRecord, LedgerRecords, OfficerRecord } from '../../contract/ledger-records'
import type { AuditRow } from '../chain/audit-chain'
import type { EntryRow } from '../chain/ledger-chain'
import type { OfficerRow } from '../trust/officer-registry'

type Db = Database.Database

const tableExists = (db: Db, name: string) => db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined

export function entryRecord(e: EntryRow): LedgerEntryRecord {
  return {
    seq: e.seq,
    at: e.at,
    kind: e.kind,
    datasetId: e.dataset_id,
    datasetName: e.dataset_name,
    notion: e.notion,
    amountNano: e.amount_nano,
    cells: e.cells,
    releaseId: e.release_id,
    actor: e.actor,
    description: e.description,
    detail: e.detail,
    prevHash: e.prev_hash,
    hash: e.hash,
    signer: e.signer ?? null,
    signature: e.signature ?? null
  }
}

function kdfOf(wrapped: string): OfficerRecord['kdf'] {
  try {
    const k = (JSON.parse(wrapped) as { kdf?: Record<string, unknown> }).kdf
    if (!k || typeof k !== 'object') return null
    const { alg, N, r, p, salt } = k
    if (typeof alg !== 'string' || typeof N !== 'number' || typeof r !== 'number' || typeof p !== 'number' || typeof salt !== 'string') return null
    return { alg, N, r, p, salt }
  } catch {
    return null
  }
}

export function officerRecord(o: OfficerRow): OfficerRecord {
  return {
    keyId: o.key_id,
    name: o.name,
    createdAt: o.created_at,
    signPublic: o.sign_public,
    sealPublic: o.seal_public,
    addedBy: o.added_by,
    wrappedSha256: createHash('sha256').update(o.wrapped, 'utf8').digest('hex'),
    kdf: kdfOf(o.wrapped),
    signature: o.signature
  }
}

export function readLedgerRecords(db: Db): LedgerRecords {
  const entries = (db.prepare('SELECT * FROM ledger_entries ORDER BY seq').all() as EntryRow[]).map(entryRecord)
  const head = (db.prepare('SELECT seq, hash FROM ledger_head WHERE id = 1').get() as { seq: number; hash: string } | undefined) ?? null
  const auditEvents = (db.prepare('SELECT * FROM audit_events ORDER BY id').all() as AuditRow[]).map((a) => ({
    id: a.id,
    at: a.at,
    kind: a.kind,
    actor: a.actor,
    subject: a.subject,
    detail: a.detail,
    prevHash: a.prev_hash,
    hash: a.hash,
    signer: a.signer,
    signature: a.signature
  }))
  const officers = tableExists(db, 'officers')
    ? (db.prepare('SELECT * FROM officers ORDER BY created_at, key_id').all() as OfficerRow[]).map(officerRecord)
    : []
  const checkpoints = tableExists(db, 'ledger_checkpoints')
    ? (
        db.prepare('SELECT * FROM ledger_checkpoints ORDER BY id').all() as Array<{
          id: number
          at: string
          ledger_seq: number
          ledger_hash: string
          audit_id: number
          audit_hash: string
          signer: string
          signature: string
        }>
      ).map((c) => ({
        id: c.id,
        at: c.at,
        ledgerSeq: c.ledger_seq,
        ledgerHash: c.ledger_hash,
        auditId: c.audit_id,
        auditHash: c.audit_hash,
        signer: c.signer,
        signature: c.signature
      }))
    : []
  const epoch = tableExists(db, 'ledger_trust_epoch')
    ? (db.prepare('SELECT unsigned_through_seq AS seq FROM ledger_trust_epoch WHERE id = 1').get() as { seq: number } | undefined)
    : undefined
  const datasets = db.prepare('SELECT id, uid, name FROM datasets ORDER BY id').all() as Array<{ id: number; uid: string | null; name: string }>
  return {
    v: 1,
    kind: 'quiet-alarm/ledger-records',
    entries,
    head,
    auditEvents,
    officers,
    checkpoints,
    trustEpoch: epoch === undefined ? null : { unsignedThroughSeq: epoch.seq },
    datasets
  }
}
