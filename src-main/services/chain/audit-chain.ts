/**
 * The audit log as a hash chain: hash of event n = SHA-256( prev_hash || "\n" || canonical(fields of event n) ),
 * the fields being id, at, kind, actor, subject, detail (and signer, when an officer signed the event). Checkpoints sign
 * the audit head together with the ledger head, so deleting or editing an event before a checkpoint is detected.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { GENESIS_HASH, canonicalJson } from './canonical'

type Db = Database.Database

export interface AuditRow {
  id: number
  at: string
  kind: string
  actor: string
  subject: string | null
  detail: string
  prev_hash: string | null
  hash: string | null
  signer: string | null
  signature: string | null
}

type HashedAudit = Pick<AuditRow, 'id' | 'at' | 'kind' | 'actor' | 'subject' | 'detail' | 'signer'>

/** `canonicalJson` of an event's hashed fields, written out for their fixed shape (test/unit/canonical.test.ts checks it). */
export function canonicalAuditText(r: HashedAudit): string {
  const fields = { id: r.id, at: r.at, kind: r.kind, actor: r.actor, subject: r.subject, detail: r.detail, signer: r.signer ?? undefined }
  const s = JSON.stringify
  if (
    typeof r.actor !== 'string' ||
    typeof r.at !== 'string' ||
    typeof r.detail !== 'string' ||
    typeof r.id !== 'number' ||
    !Number.isFinite(r.id) ||
    typeof r.kind !== 'string' ||
    (r.subject !== null && typeof r.subject !== 'string') ||
    (fields.signer !== undefined && typeof fields.signer !== 'string')
  )
    return canonicalJson(fields)
  return (
    `{"actor":${s(r.actor)},"at":${s(r.at)},"detail":${s(r.detail)},"id":${s(r.id)},"kind":${s(r.kind)}` +
    `${fields.signer === undefined ? '' : `,"signer":${s(fields.signer)}`},"subject":${r.subject === null ? 'null' : s(r.subject)}}`
  )
}

export function auditHash(prevHash: string, r: HashedAudit): string {
  return createHash('sha256').update(prevHash).update('\n').update(canonicalAuditText(r)).digest('hex')
}

/** The last chained audit event (0 and the genesis hash when there is none). */
export function auditHead(db: Db): { id: number; hash: string } {
  const row = db.prepare('SELECT id, hash FROM audit_events WHERE hash IS NOT NULL ORDER BY id DESC LIMIT 1').get() as
    { id: number; hash: string } | undefined
  return row ?? { id: 0, hash: GENESIS_HASH }
}

export const auditSigningText = (id: number, hash: string, keyId: string) => `quiet-alarm/audit-event/v1\n${id}\n${hash}\n${keyId}`

/**
 * Append one event to the chain. `sign` (an officer's act) receives the text to sign and returns the key id and the
 * signature. Runs in the caller's transaction if there is one, else in its own immediate one.
 */
export function appendAudit(
  db: Db,
  ev: { at: string; kind: string; actor: string; subject: string | null; detail: string },
  signer?: { keyId: string; sign: (text: string) => string }
): AuditRow {
  // Reading the head and appending must be one step, also against another process on the same file (the CLI beside the
  // server): outside the caller's transaction, take the write lock first.
  if (!db.inTransaction) return db.transaction(() => appendAudit(db, ev, signer)).immediate()
  const head = auditHead(db)
  const last = db.prepare('SELECT max(id) AS id FROM audit_events').get() as { id: number | null }
  const id = Math.max(head.id, last.id ?? 0) + 1
  const row: AuditRow = { id, ...ev, prev_hash: head.hash, hash: null, signer: signer?.keyId ?? null, signature: null }
  row.hash = auditHash(head.hash, row)
  if (signer) row.signature = signer.sign(auditSigningText(id, row.hash, signer.keyId))
  db.prepare(
    'INSERT INTO audit_events (id, at, kind, actor, subject, detail, prev_hash, hash, signer, signature) VALUES (@id, @at, @kind, @actor, @subject, @detail, @prev_hash, @hash, @signer, @signature)'
  ).run(row)
  return row
}
