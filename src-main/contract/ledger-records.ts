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

/**
 * What an accountant needs to recompute a charge, read from the charge's hashed detail: the mechanism, its notion, the
 * sensitivity, how many predicates or records it asked, the epsilon per predicate (or record, or question), how many
 * of those one unit can be in, and the Laplace scale at that epsilon where the mechanism adds Laplace noise.
 * docs/spec/v1/ledger.md section 8 gives each kind's formula.
 */
export interface MechanismRecord {
  seq: number
  releaseId: number | null
  /** The release kind ("threshold", "anomaly-identification", "anomaly-search", ...). */
  kind: string
  mechanism: string
  notion: string | null
  amountNano: number
  cells: string[]
  sensitivity: number | null
  predicates: number | null
  /** The release's public parameters as recorded (accuracy asked, mechanism settings), from the hashed detail. */
  params: Record<string, unknown>
  /** The charge in words, as the ledger recorded it. */
  chargeExplained: string | null
}

export interface DatasetSpend {
  datasetId: number
  datasetName: string
  /** "row" or the person column. */
  unit: string
  spentPerUnitNano: number
  byNotion: Record<string, number>
  /** The budget per unit in force (null: none), where it comes from, and each notion's own cap. */
  budgetPerUnitNano: number | null
  budgetPerUnitSource: 'per-unit' | 'notion-budgets' | 'none'
  capsNano: Record<string, number>
}

/** `ledger export --auditor F`: the records, spend and mechanisms, under the officer's signature and a checkpoint. */
export interface AuditorExport {
  v: 1
  kind: 'quiet-alarm/auditor-export'
  exportedAt: string
  records: LedgerRecords
  spend: DatasetSpend[]
  mechanisms: MechanismRecord[]
  /** The checkpoint the officer signed for this export (it is also among `records.checkpoints`): it covers every record. */
  checkpoint: { id: number; at: string; ledgerSeq: number; ledgerHash: string; auditId: number; auditHash: string; signer: string }
  /** Ed25519 over `quiet-alarm/auditor-export/v1\n<dataSha256>\n<keyId>`; dataSha256 = SHA-256 of the canonical JSON of every other field. */
  signature: { keyId: string; officer: string; dataSha256: string; signature: string }
}
