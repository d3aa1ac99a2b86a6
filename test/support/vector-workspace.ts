/**
 * Ledger test vectors (test/fixtures/ledger-vectors/*.json) and the workspace a vector stands for: a fresh workspace
 * whose ledger tables hold exactly the vector's records, so that `ledger verify` judges the same bytes as a verifier
 * outside Quiet Alarm. A vector's `workspace` part holds what the records leave out and the workspace's own checks
 * need: the test officers' wrapped keys (throwaway keys of the generator) and the sealed costs that audit events bind.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { LedgerRecords } from '../../src-main/contract/ledger-records'
import type { LedgerReceipt } from '../../src-main/contract/ledger'
import { openStore, type Store } from '../../src-main/services/store/store'

export interface VectorVerdict {
  /** True when the ledger verifies; false when a problem is found; 'refused' when the receipt itself is refused. */
  ok: boolean | 'refused'
  /** The position of the first problem (`ledger verify`'s "FAILED at entry N"), null when none. */
  firstBrokenSeq: number | null
}

export interface LedgerVector {
  v: 1
  name: string
  /** The spec's rules (docs/spec/v1/ledger.md section 6) the vector exercises. */
  rules: string[]
  description: string
  expected: VectorVerdict
  /** A receipt to check the records against (`ledger verify --receipt`). */
  receipt?: LedgerReceipt
  records: LedgerRecords
  /** Spend per dataset as `ledger` computes it from the records (nano-epsilon), for accountants to recompute. */
  spend: Array<{ datasetId: number; spentPerUnitNano: number; byNotion: Record<string, number> }>
  workspace: { wrapped: Record<string, string>; sealedCosts: Array<{ releaseId: number; sealed: string }> }
}

const TABLES = [
  'ledger_entries',
  'ledger_head',
  'ledger_cell_charges',
  'audit_events',
  'officers',
  'ledger_checkpoints',
  'ledger_trust_epoch',
  'release_ex_post'
]

/** Drop the triggers that keep the ledger's tables append-only (what a file writer does first). */
export function dropLedgerTriggers(db: Database.Database): void {
  const names = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN (${TABLES.map(() => '?').join(', ')}, 'releases')`)
    .pluck()
    .all(...TABLES) as string[]
  for (const n of names) db.exec(`DROP TRIGGER IF EXISTS "${n}"`)
}

/** A new workspace at `path` holding exactly the vector's ledger records (open; the caller closes it). */
export function workspaceOfVector(path: string, v: Pick<LedgerVector, 'records' | 'workspace'>): Store {
  const store = openStore(path)
  const db = store.db
  dropLedgerTriggers(db)
  db.pragma('foreign_keys = OFF')
  const r = v.records
  db.transaction(() => {
    for (const t of TABLES) db.exec(`DELETE FROM ${t}`)
    const ins = db.prepare(
      `INSERT INTO ledger_entries (seq, at, kind, dataset_id, dataset_name, notion, amount_nano, cells, release_id, actor, description, detail, prev_hash, hash, signer, signature)
       VALUES (@seq, @at, @kind, @datasetId, @datasetName, @notion, @amountNano, @cells, @releaseId, @actor, @description, @detail, @prevHash, @hash, @signer, @signature)`
    )
    const cell = db.prepare('INSERT INTO ledger_cell_charges (entry_seq, dataset_id, notion, cell, amount_nano) VALUES (?, ?, ?, ?, ?)')
    for (const e of r.entries) {
      ins.run(e)
      if (e.kind === 'charge') for (const c of JSON.parse(e.cells) as string[]) cell.run(e.seq, e.datasetId, e.notion, c, e.amountNano)
    }
    if (r.head !== null) db.prepare('INSERT INTO ledger_head (id, seq, hash) VALUES (1, ?, ?)').run(r.head.seq, r.head.hash)
    const insA = db.prepare(
      'INSERT INTO audit_events (id, at, kind, actor, subject, detail, prev_hash, hash, signer, signature) VALUES (@id, @at, @kind, @actor, @subject, @detail, @prevHash, @hash, @signer, @signature)'
    )
    for (const a of r.auditEvents) insA.run(a)
    const insO = db.prepare(
      'INSERT INTO officers (key_id, name, created_at, sign_public, seal_public, wrapped, added_by, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'
    )
    for (const o of r.officers) {
      const wrapped = v.workspace.wrapped[o.keyId]
      if (wrapped === undefined || createHash('sha256').update(wrapped, 'utf8').digest('hex') !== o.wrappedSha256)
        throw new Error(`the vector holds no wrapped keys of officer ${o.keyId} that hash to its wrappedSha256`)
      insO.run(o.keyId, o.name, o.createdAt, o.signPublic, o.sealPublic, wrapped, o.addedBy, o.signature)
    }
    const insC = db.prepare(
      'INSERT INTO ledger_checkpoints (id, at, ledger_seq, ledger_hash, audit_id, audit_hash, signer, signature) VALUES (@id, @at, @ledgerSeq, @ledgerHash, @auditId, @auditHash, @signer, @signature)'
    )
    for (const c of r.checkpoints) insC.run(c)
    if (r.trustEpoch !== null)
      db.prepare('INSERT INTO ledger_trust_epoch (id, unsigned_through_seq) VALUES (1, ?)').run(r.trustEpoch.unsignedThroughSeq)
    const insS = db.prepare('INSERT INTO release_ex_post (release_id, sealed) VALUES (?, ?)')
    for (const s of v.workspace.sealedCosts) insS.run(s.releaseId, s.sealed)
  })()
  return store
}
