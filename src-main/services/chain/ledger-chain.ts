/**
 * The ledger's hash chain: append one entry (inside the caller's transaction), its hashed fields and signing text, the
 * head, and the audit event append that every act writes beside it. Synchronous better-sqlite3 work on one connection.
 */
import type Database from 'better-sqlite3'
import type { PrivacyNotion } from '../../contract/ledger'
import { callingAccount } from '../platform/caller'
import { nowIso } from '../platform/clock'
import { appendAudit } from './audit-chain'
import { GENESIS_HASH, canonicalJson, entryHash } from './canonical'
import { MAX_NANO } from './nano-epsilon'

type Db = Database.Database

/** A cell key (canonical JSON of a conjunction of equalities; ledger/cells.ts). */
type CellKey = string

export interface EntryRow {
  seq: number
  at: string
  kind: 'charge' | 'budget' | 'public' | 'alarm'
  dataset_id: number
  dataset_name: string
  notion: PrivacyNotion | null
  amount_nano: number
  cells: string
  release_id: number | null
  actor: string
  description: string
  detail: string
  prev_hash: string
  hash: string
  /** Officer acts: the signing officer's key id and the Ed25519 signature over the entry's hash. */
  signer?: string | null
  signature?: string | null
}

/** An officer's unlocked signing key, as the ledger needs it (trust/officers.ts makes one). */
export interface EntrySigner {
  keyId: string
  sign: (text: string) => string
}

export const entrySigningText = (seq: number, hash: string, keyId: string) => `quiet-alarm/ledger-entry/v1\n${seq}\n${hash}\n${keyId}`

export interface AppendInput {
  kind: 'charge' | 'budget' | 'public' | 'alarm'
  datasetId: number
  datasetName: string
  notion: PrivacyNotion | null
  amountNano: number
  /** Charges: the cells touched ([WHOLE_DATASET] for a whole-dataset charge). Budgets: []. */
  cells: CellKey[]
  releaseId: number | null
  actor: string
  description: string
  detail: Record<string, unknown>
  /** An officer act: signed by this officer (budgets and public declarations must be). */
  signer?: EntrySigner
}

export function headOf(db: Db): { seq: number; hash: string } {
  const row = db.prepare('SELECT seq, hash FROM ledger_head WHERE id = 1').get() as { seq: number; hash: string } | undefined
  return row ?? { seq: 0, hash: GENESIS_HASH }
}

/** In the service, the account a call is made by, added to what an entry or event records (hashed with it). */
function withAccount(detail: Record<string, unknown>): Record<string, unknown> {
  const account = callingAccount()
  return account === null ? detail : { ...detail, account }
}

/** Append one entry. Must run inside a transaction (the caller's), so that it commits with whatever it charges for. */
export function appendEntry(db: Db, input: AppendInput): EntryRow {
  if (!db.inTransaction) throw new Error('ledger entries are appended inside a transaction')
  if (!Number.isSafeInteger(input.amountNano) || input.amountNano < 0 || input.amountNano > MAX_NANO) throw new RangeError('bad ledger amount')
  if (input.kind === 'charge' && input.cells.length === 0) throw new RangeError('a charge touches at least one cell')
  const head = headOf(db)
  const cells = [...new Set(input.cells)].sort()
  const row: EntryRow = {
    seq: head.seq + 1,
    at: nowIso(),
    kind: input.kind,
    dataset_id: input.datasetId,
    dataset_name: input.datasetName,
    notion: input.notion,
    amount_nano: input.amountNano,
    cells: canonicalJson(cells),
    release_id: input.releaseId,
    actor: input.actor,
    description: input.description,
    detail: canonicalJson(withAccount(input.detail)),
    prev_hash: head.hash,
    hash: '',
    signer: input.signer?.keyId ?? null,
    signature: null
  }
  row.hash = entryHash(row.prev_hash, hashedFields(row))
  if (input.signer) row.signature = input.signer.sign(entrySigningText(row.seq, row.hash, input.signer.keyId))
  // The signature columns are named only for a signed entry (so that unsigned entries can still be written by tests
  // that build workspaces with older schemas).
  const signed = input.signer ? ', signer, signature' : ''
  const signedValues = input.signer ? ', @signer, @signature' : ''
  db.prepare(
    `INSERT INTO ledger_entries (seq, at, kind, dataset_id, dataset_name, notion, amount_nano, cells, release_id, actor, description, detail, prev_hash, hash${signed})
     VALUES (@seq, @at, @kind, @dataset_id, @dataset_name, @notion, @amount_nano, @cells, @release_id, @actor, @description, @detail, @prev_hash, @hash${signedValues})`
  ).run(input.signer ? row : { ...row, signer: undefined, signature: undefined })
  if (input.kind === 'charge') {
    const ins = db.prepare('INSERT INTO ledger_cell_charges (entry_seq, dataset_id, notion, cell, amount_nano) VALUES (?, ?, ?, ?, ?)')
    for (const c of cells) ins.run(row.seq, row.dataset_id, row.notion, c, row.amount_nano)
  }
  if (head.seq === 0) db.prepare('INSERT INTO ledger_head (id, seq, hash) VALUES (1, ?, ?)').run(row.seq, row.hash)
  else db.prepare('UPDATE ledger_head SET seq = ?, hash = ? WHERE id = 1').run(row.seq, row.hash)
  return row
}

export function hashedFields(r: EntryRow) {
  return {
    seq: r.seq,
    at: r.at,
    kind: r.kind,
    datasetId: r.dataset_id,
    datasetName: r.dataset_name,
    notion: r.notion,
    amountNano: r.amount_nano,
    cells: r.cells,
    releaseId: r.release_id,
    actor: r.actor,
    description: r.description,
    detail: r.detail,
    // Signed entries also hash who signed them; older entries hash exactly the fields they had.
    signer: r.signer ?? undefined
  }
}

/** Append an audit event to the audit chain (audit-chain.ts); an officer's act passes its signer. */
export function recordAudit(
  db: Db,
  kind: string,
  actor: string,
  subject: string | null,
  detail: Record<string, unknown>,
  signer?: EntrySigner
): void {
  appendAudit(db, { at: nowIso(), kind, actor, subject, detail: canonicalJson(withAccount(detail)) }, signer)
}
