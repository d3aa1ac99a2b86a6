/**
 * The ledger's records as a verifier outside Quiet Alarm reads them (docs/spec/v1/ledger.md states every field): the
 * two hash chains, the officers' public registrations, the checkpoints and the trust epoch. No rows of any dataset, no
 * wrapped private keys (only their SHA-256, which registrations sign) and no sealed costs.
 *
 * Types only: the renderer may import this file.
 */

export interface LedgerEntryRecord {
  seq: number
  at: string
  kind: string
  datasetId: number
  datasetName: string
  notion: string | null
  amountNano: number
  /** Canonical JSON of the sorted cell keys, as hashed. */
  cells: string
  releaseId: number | null
  actor: string
  description: string
  /** Canonical JSON of the detail object, as hashed. */
  detail: string
  prevHash: string
  hash: string
  signer: string | null
  signature: string | null
}

export interface AuditEventRecord {
  id: number
  at: string
  kind: string
  actor: string
  subject: string | null
  detail: string
  prevHash: string | null
  hash: string | null
  signer: string | null
  signature: string | null
}

export interface OfficerRecord {
  keyId: string
  name: string
  createdAt: string
  signPublic: string
  sealPublic: string
  addedBy: string
  /** SHA-256 (hex) of the wrapped private keys as stored: what a v2 registration signs in their place. */
  wrappedSha256: string
  /** The passphrase KDF's parameters (public), or null when the wrapped keys cannot be read. */
  kdf: { alg: string; N: number; r: number; p: number; salt: string } | null
  signature: string
}

export interface CheckpointRecord {
  id: number
  at: string
  ledgerSeq: number
  ledgerHash: string
  auditId: number
  auditHash: string
  signer: string
  signature: string
}

export interface LedgerRecords {
  v: 1
  kind: 'quiet-alarm/ledger-records'
  entries: LedgerEntryRecord[]
  /** The head record as stored (null: none). */
  head: { seq: number; hash: string } | null
  auditEvents: AuditEventRecord[]
  officers: OfficerRecord[]
  checkpoints: CheckpointRecord[]
  /** The trust epoch as stored (null: the record is missing). */
  trustEpoch: { unsignedThroughSeq: number } | null
  /** Each dataset's id, uid and name now (an officer act counts only for the dataset it names). */
  datasets: Array<{ id: number; uid: string | null; name: string }>
}
