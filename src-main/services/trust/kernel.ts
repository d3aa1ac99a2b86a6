/**
 * The trust kernel: one reading of the workspace that every trust decision asks, so that what `ledger verify` would
 * reject is never admitted. It reads the ledger's and the audit log's hash chains, the tables derived from them (cell
 * charges, releases, sealed costs), the officer registry, the signed checkpoints and the trust epoch, and returns
 * - `problems`: everything that is not what the app and the officers wrote (verify reports exactly these; admission
 *   denies every charge while there is one);
 * - the facts in force: which officer acts count (`actInForce`), the charges as the hashed entries hold them (never the
 *   derived cell table, which is checked against them), and whether an officer ever existed here.
 *
 * Rules (each stops an attack on the ledger by someone who can write the workspace file):
 * - An unsigned officer act (budget, public declaration) is history only up to `preOfficerThrough` (the trust epoch, cut
 *   at the first checkpoint and the first signed entry) and counts only while no officer ever existed: once any trace
 *   of an officer exists, nothing unsigned counts, whatever the stored epoch says.
 * - Traces of an officer (registry rows, checkpoints, signatures, officer audit events, costs sealed to a key, signed
 *   links): when they exist and no registered officer verifies, the registry was stripped, and that is a problem.
 * - Sealed costs are bound into the audit log (the SHA-256 of each blob in its `release/sealed-costs` event); only
 *   releases up to the seal epoch may have unbound costs, and only releases before the trust epoch plaintext ones. The
 *   seal epoch is the first `ledger/seal-epoch` audit event's (covered by checkpoints like every event), never a plain
 *   row; every release answered after it has its binding event.
 *
 * Cost: `ledger verify` reads everything (`inspectWorkspace(db, { fresh: true })`). Every other caller reuses, per
 * connection, what it read before: rows appended since are read and checked, and anything else (another connection
 * wrote: PRAGMA data_version; this connection changed or deleted a row: temporary triggers count it; a row it read is
 * gone) makes it read everything again. The checks are the same code either way.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { PrivacyNotion } from '../../contract/ledger'
import { type AuditRow, auditSigningText } from '../chain/audit-chain'
import { AuditChainScan, LedgerChainScan } from '../chain/chain-scan'
import { type EntryRow, entrySigningText } from '../chain/ledger-chain'
import { statement } from '../store/statements'
import { checkpointText } from './checkpoint-text'
import { forgedLinks, removedLinks } from './link-rows'
import { verifyText } from './officer-crypto'
import { type OfficerRegistry, officerRegistry } from './officer-registry'
import { type UnitDeclaration, declarationOf, sameDeclaration, unitDeclaration } from './unit-declaration'

type Db = Database.Database

export interface TrustProblem {
  seq: number
  reason: string
  /** Set on a problem of the audit log, a checkpoint's audit head, sealed costs or links: found after the last entry, in no entry. */
  afterLastEntry?: true
}

/** One charge as the hashed entry holds it. */
export interface ChargeFact {
  seq: number
  datasetId: number
  notion: PrivacyNotion
  cells: string[]
  amountNano: number
  /** The analyst account named in the entry's hashed detail (service deployment), or null. */
  accountId: number | null
}

export interface CheckpointFact {
  id: number
  ledgerSeq: number
  ledgerHash: string
  auditId: number
  auditHash: string
  officer: string
  at: string
}

export interface TrustFindings {
  problems: TrustProblem[]
  entries: number
  lastSeq: number
  headHash: string
  lastAuditId: number
  auditHash: string
  registry: OfficerRegistry
  /** The first trace of an officer found (for sentences), or null when none was ever here. */
  officerTrace: string | null
  /** Unsigned officer acts up to this seq are history written before officer keys. */
  preOfficerThrough: number
  signedActs: number
  checkpoints: CheckpointFact[]
  lastCheckpoint: CheckpointFact | null
  notCheckpointed: { entries: number; auditEvents: number }
  /** Officer acts (budgets, public declarations) in ledger order. */
  officerActs: EntryRow[]
  charges: ChargeFact[]
  /**
   * Whether an officer act's entry counts: signed by a verified officer (or unsigned history while no officer ever
   * existed), and naming the dataset that holds its id now (the same uid, or none on both).
   */
  actInForce(e: EntryRow): boolean
  /**
   * Why an act does not count, for sentences: 'unsigned' (history from before officer keys), 'forged', 'another-dataset'
   * (signed for a dataset whose id another dataset holds now); null when it counts.
   */
  whyNotInForce(e: EntryRow): 'unsigned' | 'forged' | 'another-dataset' | null
  /** Why a release's stored costs are not what the app wrote (changed, unbound, in clear after officer keys); null if they are. */
  sealedCostsProblem(releaseId: number): string | null
  /** A notion's own charges per cell on a dataset (an analyst's only, given the account), and how many charges. */
  cellTotals(datasetId: number, notion: PrivacyNotion, accountId?: number | null): Array<{ cell: string; nano: number }>
  chargeCount(datasetId: number, notion: PrivacyNotion, accountId?: number | null): number
  /** The ledger's verified head hashes: does this seq's entry have this hash, does this audit id have this hash. */
  entryHashAt(seq: number): string | null
  auditHashAt(id: number): string | null
}

interface CellRow {
  entry_seq: number
  dataset_id: number
  notion: string
  cell: string
  amount_nano: number
}
interface ReleaseRow {
  id: number
  dataset_id: number
  notion: string
  charge_nano: number
}
interface CheckpointRow {
  id: number
  at: string
  ledger_seq: number
  ledger_hash: string
  audit_id: number
  audit_hash: string
  signer: string
  signature: string
}

/** The audit event that binds a release's sealed costs into the chain (written with them, in one transaction). */
export const SEALED_COSTS_EVENT = 'release/sealed-costs'

/** The audit event (written once, by a migration) that holds the seal epoch: releases up to it may have unbound costs. */
export const SEAL_EPOCH_EVENT = 'ledger/seal-epoch'

export const sealedHash = (sealed: string) => createHash('sha256').update(sealed, 'utf8').digest('hex')

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

const accountKey = (datasetId: number, notion: string, accountId: number | null) =>
  accountId === null ? `${datasetId}\u0000${notion}` : `${datasetId}\u0000${notion}\u0000${accountId}`

/** Everything read from the append-only tables, fed in order; can be fed again with what was appended since. */
class WorkspaceScan {
  readonly ledger = new LedgerChainScan()
  readonly audit = new AuditChainScan()
  cellRowid = 0
  releaseId = 0
  readonly cellsBySeq = new Map<number, CellRow[]>()
  readonly releases = new Map<number, ReleaseRow>()
  readonly chargeByRelease = new Map<number, EntryRow>()
  readonly charges: ChargeFact[] = []
  readonly officerActs: EntryRow[] = []
  readonly signedEntries: EntryRow[] = []
  readonly signedAudit: AuditRow[] = []
  readonly officerAudit: AuditRow[] = []
  readonly registrations = new Map<string, AuditRow>()
  /** Sealed costs: the hash bound by each release's event, and the blobs read (by release id). */
  readonly bound = new Map<number, { hash: string; auditId: number }>()
  readonly sealed = new Map<number, { hash: string; plaintext: boolean; recipients: number }>()
  /** Per-row findings that a later row can change (re-checked when rows of the same seq or release arrive). */
  readonly cellProblems = new Map<number, string>()
  readonly releaseProblems = new Map<number, { seq: number | 'end'; reason: string }>()
  readonly sealedProblems = new Map<number, string>()
  /** Sealed costs read that no event binds (legacy ones, or written outside the app). */
  readonly unbound = new Set<number>()
  firstBound = Infinity
  /** The seal epoch as the first `ledger/seal-epoch` event holds it; null while none was read. */
  sealEpoch: number | null = null
  /** Own charges per cell, per account: `${dataset}\u0000${notion}` and, for an analyst's, `...\u0000${account}`. */
  readonly cellTotals = new Map<string, Map<string, number>>()
  readonly chargeCounts = new Map<string, number>()
  /** Rows read in total, to compare with the inserts the watch counted. */
  rowsRead = 0

  addEntry(e: EntryRow): void {
    this.ledger.add(e)
    if (e.kind === 'charge') {
      if (e.release_id !== null) this.chargeByRelease.set(e.release_id, e)
      const cells = parseJson(e.cells)
      let accountId: number | null = null
      if (e.detail.includes('"account"')) {
        const acc = (parseJson(e.detail) as { account?: { id?: unknown } } | undefined)?.account
        if (acc && typeof acc.id === 'number') accountId = acc.id
      }
      const fact: ChargeFact = {
        seq: e.seq,
        datasetId: e.dataset_id,
        notion: e.notion as PrivacyNotion,
        cells: Array.isArray(cells) ? cells.filter((c): c is string => typeof c === 'string') : [],
        amountNano: e.amount_nano,
        accountId
      }
      this.charges.push(fact)
      const keys = [accountKey(fact.datasetId, fact.notion, null)]
      if (accountId !== null) keys.push(accountKey(fact.datasetId, fact.notion, accountId))
      for (const k of keys) {
        let m = this.cellTotals.get(k)
        if (!m) this.cellTotals.set(k, (m = new Map()))
        for (const c of new Set(fact.cells)) m.set(c, (m.get(c) ?? 0) + fact.amountNano)
        this.chargeCounts.set(k, (this.chargeCounts.get(k) ?? 0) + 1)
      }
    } else this.officerActs.push(e)
    if (e.signer) this.signedEntries.push(e)
  }

  addAudit(a: AuditRow): void {
    this.audit.add(a)
    if (a.signer) this.signedAudit.push(a)
    if (a.kind.startsWith('officer/') || a.kind === 'budget/set') this.officerAudit.push(a)
    if (a.kind === 'officer/registered' && a.subject?.startsWith('officer:')) this.registrations.set(a.subject.slice('officer:'.length), a)
    if (a.kind === SEAL_EPOCH_EVENT && this.sealEpoch === null) {
      const through = (parseJson(a.detail) as { throughReleaseId?: unknown } | undefined)?.throughReleaseId
      this.sealEpoch = typeof through === 'number' && Number.isSafeInteger(through) && through >= 0 ? through : 0
    }
    if (a.kind === SEALED_COSTS_EVENT) {
      const d = parseJson(a.detail) as { releaseId?: unknown; sha256?: unknown } | undefined
      if (d && typeof d.releaseId === 'number' && typeof d.sha256 === 'string') {
        this.bound.set(d.releaseId, { hash: d.sha256, auditId: a.id })
        this.unbound.delete(d.releaseId)
        this.firstBound = Math.min(this.firstBound, d.releaseId)
      }
    }
  }

  addSealed(releaseId: number, blob: string): void {
    const parsed = parseJson(blob) as { spentMax?: unknown; recipients?: unknown } | undefined
    this.sealed.set(releaseId, {
      hash: sealedHash(blob),
      plaintext: parsed !== undefined && parsed.spentMax !== undefined,
      recipients: Array.isArray(parsed?.recipients) ? parsed.recipients.length : 0
    })
    if (!this.bound.has(releaseId)) this.unbound.add(releaseId)
  }

  /** The derived rows must be exactly what the hashed entries say; re-checked for the seqs and releases just read. */
  checkDerived(seqs: Iterable<number>, releaseIds: Iterable<number>): void {
    for (const seq of seqs) {
      const e = this.ledger.bySeq.get(seq)
      const rows = this.cellsBySeq.get(seq) ?? []
      if (!e || e.kind !== 'charge') {
        if (rows.length > 0) this.cellProblems.set(seq, `cell charges refer to entry ${seq}, which is not a charge in the ledger`)
        else this.cellProblems.delete(seq)
        continue
      }
      const expected = parseJson(e.cells)
      const sorted = [...rows].sort((a, b) => (a.cell < b.cell ? -1 : a.cell > b.cell ? 1 : 0))
      const ok =
        Array.isArray(expected) &&
        sorted.length === expected.length &&
        sorted.every((r, i) => r.cell === expected[i] && r.amount_nano === e.amount_nano && r.dataset_id === e.dataset_id && r.notion === e.notion)
      if (ok) this.cellProblems.delete(seq)
      else this.cellProblems.set(seq, `the cell charges of entry ${seq} were changed or deleted`)
    }
    for (const id of releaseIds) {
      const r = this.releases.get(id)
      if (!r) continue
      const e = this.chargeByRelease.get(id)
      if (!e) this.releaseProblems.set(id, { seq: 'end', reason: `release ${id} has no charge in the ledger` })
      else if (e.amount_nano !== r.charge_nano || e.notion !== r.notion || e.dataset_id !== r.dataset_id)
        this.releaseProblems.set(id, { seq: e.seq, reason: `release ${id} does not match its charge (entry ${e.seq})` })
      else this.releaseProblems.delete(id)
    }
  }

  /** A bound blob must hash to what its event says; a bound event must have its blob. */
  checkSealed(releaseIds: Iterable<number>): void {
    for (const id of releaseIds) {
      const b = this.bound.get(id)
      const s = this.sealed.get(id)
      if (!b) continue
      if (!s) this.sealedProblems.set(id, `the sealed costs of release ${id} (bound by audit event ${b.auditId}) were deleted`)
      else if (s.hash !== b.hash)
        this.sealedProblems.set(
          id,
          `the sealed costs of release ${id} were changed after they were written (they no longer match audit event ${b.auditId})`
        )
      else this.sealedProblems.delete(id)
    }
  }
}

/** Rows read per query (in key order, after a position): `all()` per chunk is much faster than stepping an iterator. */
const CHUNK = 2000

function chunks<T>(db: Db, sql: string, after: number, key: (row: T) => number, each: (row: T) => void): number {
  let n = 0
  for (let from = after; ;) {
    const rows = statement(db, `${sql} LIMIT ${CHUNK}`).all(from) as T[]
    for (const r of rows) each(r)
    n += rows.length
    if (rows.length < CHUNK) return n
    from = key(rows[rows.length - 1])
  }
}

/** Reads rows into `scan`: everything after its positions. Returns how many rows it read. */
function feed(db: Db, scan: WorkspaceScan): { rows: number; seqs: Set<number>; releaseIds: Set<number> } {
  const seqs = new Set<number>()
  const releaseIds = new Set<number>()
  let rows = 0
  rows += chunks<EntryRow>(
    db,
    'SELECT * FROM ledger_entries WHERE seq > ? ORDER BY seq',
    scan.ledger.lastSeq,
    (e) => e.seq,
    (e) => {
      scan.addEntry(e)
      seqs.add(e.seq)
      if (e.release_id !== null) releaseIds.add(e.release_id)
    }
  )
  rows += chunks<CellRow & { r: number }>(
    db,
    'SELECT rowid AS r, entry_seq, dataset_id, notion, cell, amount_nano FROM ledger_cell_charges WHERE rowid > ? ORDER BY rowid',
    scan.cellRowid,
    (c) => c.r,
    (c) => {
      let l = scan.cellsBySeq.get(c.entry_seq)
      if (!l) scan.cellsBySeq.set(c.entry_seq, (l = []))
      l.push(c)
      seqs.add(c.entry_seq)
      scan.cellRowid = c.r
    }
  )
  rows += chunks<ReleaseRow>(
    db,
    'SELECT id, dataset_id, notion, charge_nano FROM releases WHERE id > ? ORDER BY id',
    scan.releaseId,
    (r) => r.id,
    (r) => {
      scan.releases.set(r.id, r)
      releaseIds.add(r.id)
      scan.releaseId = r.id
    }
  )
  const boundBefore = new Set(scan.bound.keys())
  rows += chunks<AuditRow>(
    db,
    'SELECT * FROM audit_events WHERE id > ? ORDER BY id',
    scan.audit.lastId,
    (a) => a.id,
    (a) => scan.addAudit(a)
  )
  // Sealed costs are read whole on a fresh scan; afterwards, those of the releases whose binding event was just read.
  const sealedIds: number[] = []
  if (scan.rowsRead === 0) {
    for (const s of statement(db, 'SELECT release_id, sealed FROM release_ex_post').iterate() as IterableIterator<{
      release_id: number
      sealed: string
    }>) {
      scan.addSealed(s.release_id, s.sealed)
      sealedIds.push(s.release_id)
      rows++
    }
  } else {
    const one = statement(db, 'SELECT sealed FROM release_ex_post WHERE release_id = ?')
    for (const id of scan.bound.keys()) {
      if (boundBefore.has(id)) continue
      const s = one.get(id) as { sealed: string } | undefined
      if (s) {
        scan.addSealed(id, s.sealed)
        rows++
      }
      sealedIds.push(id)
    }
  }
  scan.checkDerived(seqs, releaseIds)
  scan.checkSealed([...sealedIds, ...scan.bound.keys()].filter((id, i, a) => a.indexOf(id) === i))
  scan.rowsRead += rows
  return { rows, seqs, releaseIds }
}

// ---------------------------------------------------------------------------------------------------------------
// The per-connection reuse of a scan

const WATCHED: Array<{ table: string; update?: string }> = [
  { table: 'ledger_entries' },
  { table: 'ledger_cell_charges' },
  { table: 'releases', update: 'OF id, dataset_id, notion, charge_nano' },
  { table: 'audit_events' },
  { table: 'release_ex_post' }
]

/** Tables the rules read whole at every inspection (small ones): a change to any of them recomputes the findings. */
const CONFIG = [
  'officers',
  'ledger_checkpoints',
  'ledger_trust_epoch',
  'ledger_head',
  'datasets',
  'dataset_units',
  'dataset_columns',
  'dataset_sources',
  'dataset_postgres_sources',
  'dataset_clickhouse_sources'
]

/** The tables of linked sources, each row signed by the officer who linked it. */
const LINK_TABLES = ['dataset_sources', 'dataset_postgres_sources', 'dataset_clickhouse_sources']

interface Cached {
  scan: WorkspaceScan
  dataVersion: number
  changed: number
  inserted: number
}

const cache = new WeakMap<Db, Cached>()

/**
 * Temporary triggers (this connection only) counting this connection's own writes to the append-only tables: inserts
 * (appends, read as new rows) apart from updates and deletes (a rewrite: read everything again).
 */
const watched = new WeakSet<Db>()

function installWatch(db: Db): boolean {
  // Installed inside a transaction that rolled back, the watch is gone with it: installed again (its counts restart, so
  // the cached scan is read again).
  if (watched.has(db) && statement(db, `SELECT 1 FROM temp.sqlite_master WHERE name = 'qa_trust_watch'`).get() !== undefined) return true
  watched.delete(db)
  if (db.readonly) return false
  db.exec(
    `CREATE TEMP TABLE IF NOT EXISTS qa_trust_watch (id INTEGER PRIMARY KEY CHECK (id = 1), changed INTEGER NOT NULL, inserted INTEGER NOT NULL, config INTEGER NOT NULL)`
  )
  db.exec(`INSERT OR IGNORE INTO temp.qa_trust_watch (id, changed, inserted, config) VALUES (1, 0, 0, 0)`)
  for (const t of CONFIG) {
    for (const [op, suffix] of [
      ['INSERT', 'i'],
      ['UPDATE', 'u'],
      ['DELETE', 'd']
    ])
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS qa_trust_config_${t}_${suffix} AFTER ${op} ON main.${t} BEGIN UPDATE temp.qa_trust_watch SET config = config + 1; END;`
      )
  }
  for (const w of WATCHED) {
    db.exec(
      `CREATE TEMP TRIGGER IF NOT EXISTS qa_trust_watch_${w.table}_i AFTER INSERT ON main.${w.table} BEGIN UPDATE temp.qa_trust_watch SET inserted = inserted + 1; END;
       CREATE TEMP TRIGGER IF NOT EXISTS qa_trust_watch_${w.table}_u AFTER UPDATE ${w.update ?? ''} ON main.${w.table} BEGIN UPDATE temp.qa_trust_watch SET changed = changed + 1; END;
       CREATE TEMP TRIGGER IF NOT EXISTS qa_trust_watch_${w.table}_d AFTER DELETE ON main.${w.table} BEGIN UPDATE temp.qa_trust_watch SET changed = changed + 1; END;`
    )
  }
  watched.add(db)
  return true
}

function watchCounts(db: Db): { changed: number; inserted: number; config: number } {
  return statement(db, 'SELECT changed, inserted, config FROM temp.qa_trust_watch WHERE id = 1').get() as {
    changed: number
    inserted: number
    config: number
  }
}

/** Whether the rows a scan ended on are still there, unchanged (a transaction it read in may have rolled back). */
function positionsIntact(db: Db, scan: WorkspaceScan): boolean {
  const at = (sql: string, k: number) => (k === 0 ? null : (statement(db, sql).get(k) as { h: string | null } | undefined))
  const e = at('SELECT hash AS h FROM ledger_entries WHERE seq = ?', scan.ledger.lastSeq)
  if (e !== null && e?.h !== scan.ledger.lastHash) return false
  const a = at('SELECT hash AS h FROM audit_events WHERE id = ?', scan.audit.lastId)
  if (a !== null && a?.h !== (scan.audit.byId.get(scan.audit.lastId)?.hash ?? null)) return false
  const r = at('SELECT CAST(charge_nano AS TEXT) AS h FROM releases WHERE id = ?', scan.releaseId)
  if (r !== null && r?.h !== String(scan.releases.get(scan.releaseId)?.charge_nano)) return false
  if (at('SELECT cell AS h FROM ledger_cell_charges WHERE rowid = ?', scan.cellRowid) === undefined) return false
  return true
}

function freshScan(db: Db): WorkspaceScan {
  const scan = new WorkspaceScan()
  feed(db, scan)
  return scan
}

/** The scan of this connection, brought up to date (see the header for when it is read again whole). */
function currentScan(db: Db, fresh: boolean): WorkspaceScan {
  if (fresh || !installWatch(db)) return freshScan(db)
  const dataVersion = Number(statement(db, 'PRAGMA data_version').pluck().get())
  const c = cache.get(db)
  const counts = watchCounts(db)
  if (c && c.dataVersion === dataVersion && c.changed === counts.changed && positionsIntact(db, c.scan)) {
    if (c.inserted === counts.inserted) return c.scan
    const { rows } = feed(db, c.scan)
    if (c.inserted + rows === counts.inserted) {
      c.inserted = counts.inserted
      return c.scan
    }
  }
  const scan = freshScan(db)
  const after = watchCounts(db)
  cache.set(db, { scan, dataVersion, changed: after.changed, inserted: after.inserted })
  return scan
}

// ---------------------------------------------------------------------------------------------------------------
// The rules

/** Traces an officer leaves beside the registry: the first one found, in words; null when there is none. */
function officerTrace(db: Db, scan: WorkspaceScan, registry: OfficerRegistry, checkpoints: number): string | null {
  if (registry.all.length > 0) return `officer "${registry.all[0].name}" is registered`
  if (checkpoints > 0) return 'signed checkpoints exist'
  if (scan.signedEntries.length > 0) return `ledger entry ${scan.signedEntries[0].seq} carries an officer's signature`
  if (scan.signedAudit.length > 0) return `audit event ${scan.signedAudit[0].id} carries an officer's signature`
  // Registrations exist only since officer keys (unsigned officer events from before them, such as unlocks, do not count).
  const reg = [...scan.registrations.values()][0]
  if (reg !== undefined) return `audit event ${reg.id} records the registration of an officer`
  for (const [id, s] of scan.sealed) if (s.recipients > 0) return `the costs of release ${id} are sealed to an officer's key`
  const signedLink = (t: string) => statement(db, `SELECT 1 FROM ${t} WHERE signer IS NOT NULL LIMIT 1`).get() !== undefined
  if (LINK_TABLES.some(signedLink)) return 'a linked source carries an officer signature'
  return null
}

/** The analyst account an officer's budget entry is scoped to (its hashed `detail.analyst.id`), or null: the dataset's own. */
export function budgetAccount(e: EntryRow): number | null {
  if (!e.detail.includes('"analyst"')) return null
  const a = (parseJson(e.detail) as { analyst?: { id?: unknown } } | undefined)?.analyst
  return a && typeof a.id === 'number' ? a.id : null
}

/** The analyst's name as the officer's budget entry recorded it (hashed `detail.analyst.name`), or null. */
export function budgetAnalystName(e: EntryRow): string | null {
  const a = (parseJson(e.detail) as { analyst?: { name?: unknown } } | undefined)?.analyst
  return a && typeof a.name === 'string' ? a.name : null
}

export interface BudgetsInForce {
  /** The latest budget per unit (no notion) in force, or null. */
  unit: EntryRow | null
  /** Each notion's latest own cap in force. */
  caps: Partial<Record<PrivacyNotion, EntryRow>>
  /** The latest budget entry in force of any notion: it carries the unit the officer signed. */
  latest: EntryRow | null
  /** The latest budget entry written for this scope, in force or not (to say why none is). */
  latestWritten: EntryRow | null
}

/**
 * The budgets in force for a dataset: the latest officer budget entries that count (`actInForce`), per unit and per
 * notion. `accountId`: an analyst's own budgets within the dataset's (entries scoped to that account); null: the
 * dataset's budgets (entries scoped to an analyst are not among them).
 */
export function budgetsInForce(f: TrustFindings, datasetId: number, accountId: number | null = null): BudgetsInForce {
  const out: BudgetsInForce = { unit: null, caps: {}, latest: null, latestWritten: null }
  for (let i = f.officerActs.length - 1; i >= 0; i--) {
    const e = f.officerActs[i]
    if (e.kind !== 'budget' || e.dataset_id !== datasetId || budgetAccount(e) !== accountId) continue
    out.latestWritten ??= e
    if (!f.actInForce(e)) continue
    out.latest ??= e
    if (e.notion === null) out.unit ??= e
    else out.caps[e.notion] ??= e
  }
  return out
}

/** The privacy unit the officer signed with the dataset's latest budget in force: 'none' without one, 'unsigned' when it carries none. */
export function signedUnitOf(f: TrustFindings, datasetId: number): { declaration: UnitDeclaration; seq: number } | 'none' | 'unsigned' {
  const latest = budgetsInForce(f, datasetId).latest
  if (latest === null) return 'none'
  const d = declarationOf(latest.detail)
  return d === 'unsigned' ? 'unsigned' : { declaration: d, seq: latest.seq }
}

export interface InspectOptions {
  /** Read everything again (ledger verify); otherwise the connection's earlier reading is brought up to date. */
  fresh?: boolean
}

const findingsCache = new WeakMap<Db, { key: string; scan: WorkspaceScan; findings: TrustFindings }>()

/**
 * The heads this connection last found intact (outside any transaction): a witness held in memory, like a receipt
 * the officer keeps. A later reading whose chains no longer hold these heads was rewritten (or rolled back) behind this
 * process's back, even consistently after the last checkpoint, where the file alone cannot tell.
 */
const witnesses = new WeakMap<Db, { seq: number; hash: string; auditId: number; auditHash: string }>()

function witnessed(db: Db, f: TrustFindings): TrustFindings {
  const w = witnesses.get(db)
  const extra: TrustProblem[] = []
  if (w !== undefined) {
    const what = 'since this process read it: the workspace was changed outside the app'
    if (w.seq > 0 && f.entryHashAt(w.seq) !== w.hash)
      extra.push({ seq: Math.min(w.seq, f.lastSeq + 1), reason: `the ledger up to entry ${w.seq} was rewritten or cut ${what}` })
    if (w.auditId > 0 && f.auditHashAt(w.auditId) !== w.auditHash)
      extra.push({ seq: f.lastSeq + 1, reason: `the audit log up to event ${w.auditId} was rewritten or cut ${what}`, afterLastEntry: true })
  }
  if (extra.length === 0) {
    if (f.problems.length === 0 && !db.inTransaction)
      witnesses.set(db, { seq: f.lastSeq, hash: f.headHash, auditId: f.lastAuditId, auditHash: f.auditHash })
    return f
  }
  return { ...f, problems: [...f.problems, ...extra].sort((a, b) => a.seq - b.seq) }
}

/** What the workspace holds, judged by the trust rules. */
export function inspectWorkspace(db: Db, options: InspectOptions = {}): TrustFindings {
  if (options.fresh || !installWatch(db)) return witnessed(db, judge(db, currentScan(db, true)))
  const counts = watchCounts(db)
  const key = `${String(statement(db, 'PRAGMA data_version').pluck().get())}:${counts.changed}:${counts.inserted}:${counts.config}`
  const hit = findingsCache.get(db)
  if (hit && hit.key === key && positionsIntact(db, hit.scan)) return witnessed(db, hit.findings)
  const scan = currentScan(db, false)
  const findings = judge(db, scan)
  findingsCache.set(db, { key, scan, findings })
  return witnessed(db, findings)
}

/** What the parts of a judgement share: the scan, the registry and checkpoints read once, and the problems found. */
interface Judging {
  db: Db
  scan: WorkspaceScan
  lastSeq: number
  problems: TrustProblem[]
  /** A problem at a ledger entry. */
  P(seq: number, reason: string): void
  /** A problem in no entry (the audit log, sealed costs, links): reported after the ledger's last entry. */
  A(reason: string): void
  registry: OfficerRegistry
  cps: CheckpointRow[]
  trace: string | null
  epochRow: { seq: number } | undefined
  preOfficerThrough: number
  verifiedIds: Set<string>
  nameOf(keyId: string): string
  signedBy(keyId: string, text: string, signature: string | null): boolean
  entrySigned(e: EntryRow): boolean
  /** Each dataset's uid: an officer act counts only for the dataset it names (its uid, or none on both). */
  uids: Map<number, string | null>
  forAnotherDataset(e: EntryRow): boolean
  whyNotInForce(e: EntryRow): 'unsigned' | 'forged' | 'another-dataset' | null
  sealEpoch: number
  /** Why a release's costs, stored without a binding event, are not acceptable; null when they are (legacy ones). */
  unboundProblem(id: number): string | null
  sealedCostsProblem(id: number): string | null
}

/** The workspace judged by every rule, part by part; the problems in ledger order. */
function judge(db: Db, scan: WorkspaceScan): TrustFindings {
  const j = judging(db, scan)
  chainProblems(j)
  const signedActs = officerActProblems(j)
  const cp = checkpointFindings(j)
  unitProblems(j)
  linkProblems(j)
  sealedCostProblems(j)
  j.problems.sort((a, b) => a.seq - b.seq)
  return findingsOf(j, signedActs, cp)
}

/** The shared reading: registry, checkpoints, epochs, and the rules an officer act and sealed costs are held to. */
function judging(db: Db, scan: WorkspaceScan): Judging {
  const lastSeq = scan.ledger.lastSeq
  const problems: TrustProblem[] = [...scan.ledger.problems]
  const registry = officerRegistry(db, scan.registrations)
  const cps = statement(db, 'SELECT * FROM ledger_checkpoints ORDER BY id').all() as CheckpointRow[]
  const trace = officerTrace(db, scan, registry, cps.length)
  const epochRow = statement(db, 'SELECT unsigned_through_seq AS seq FROM ledger_trust_epoch WHERE id = 1').get() as { seq: number } | undefined
  const firstCheckpoint = cps.length === 0 ? Infinity : Math.min(...cps.map((c) => c.ledger_seq))
  const firstSigned = scan.signedEntries.length === 0 ? Infinity : scan.signedEntries[0].seq - 1
  const preOfficerThrough = Math.min(epochRow?.seq ?? 0, firstCheckpoint, firstSigned)
  const verifiedIds = new Set(registry.verified.map((o) => o.key_id))
  const nameOf = (keyId: string) => registry.byId.get(keyId)?.name ?? `unknown key ${keyId.slice(0, 16)}`
  const signedBy = (keyId: string, text: string, signature: string | null) => {
    const o = registry.byId.get(keyId)
    return o !== undefined && !!signature && verifyText(o.sign_public, text, signature)
  }
  const entrySigned = (e: EntryRow) => !!e.signer && signedBy(e.signer, entrySigningText(e.seq, e.hash, e.signer), e.signature ?? null)
  // An officer act counts only for the dataset it names, never for a later dataset given the same id.
  const uids = new Map((statement(db, 'SELECT id, uid FROM datasets').all() as Array<{ id: number; uid: string | null }>).map((d) => [d.id, d.uid]))
  const forAnotherDataset = (e: EntryRow): boolean => {
    const now = uids.get(e.dataset_id)
    if (now === undefined) return false
    const named = (parseJson(e.detail) as { datasetUid?: unknown } | undefined)?.datasetUid
    return (typeof named === 'string' ? named : null) !== now
  }
  const whyNotInForce = (e: EntryRow): 'unsigned' | 'forged' | 'another-dataset' | null => {
    if (scan.ledger.edited.has(e.seq) || scan.ledger.bySeq.get(e.seq)?.hash !== e.hash) return 'forged'
    if (e.signer && !(verifiedIds.has(e.signer) && entrySigned(e))) return 'forged'
    if (!e.signer && e.seq > preOfficerThrough) return 'forged'
    if (forAnotherDataset(e)) return 'another-dataset'
    return e.signer || trace === null ? null : 'unsigned'
  }
  // The epoch comes from the audit chain, never from the plain row: without its event no costs may be unbound.
  const sealEpoch = scan.sealEpoch ?? 0
  const unboundThrough = Math.min(sealEpoch, scan.firstBound - 1)
  const unboundProblem = (id: number): string | null => {
    const s = scan.sealed.get(id)
    if (!s) return null
    if (id > unboundThrough) return `the sealed costs of release ${id} are not bound into the audit log (written outside the app)`
    if (s.plaintext && (scan.chargeByRelease.get(id)?.seq ?? Infinity) > preOfficerThrough)
      return `the costs of release ${id} are stored in clear, which only releases from before officer keys may be`
    return null
  }
  return {
    db,
    scan,
    lastSeq,
    problems,
    P: (seq, reason) => problems.push({ seq, reason }),
    A: (reason) => problems.push({ seq: lastSeq + 1, reason, afterLastEntry: true }),
    registry,
    cps,
    trace,
    epochRow,
    preOfficerThrough,
    verifiedIds,
    nameOf,
    signedBy,
    entrySigned,
    uids,
    forAnotherDataset,
    whyNotInForce,
    sealEpoch,
    unboundProblem,
    sealedCostsProblem: (id) => scan.sealedProblems.get(id) ?? (scan.bound.has(id) ? null : unboundProblem(id))
  }
}

/** The ledger's head, the cell charges and the releases against the hashed entries. */
function chainProblems(j: Judging): void {
  const { scan, P, A } = j
  const head = statement(j.db, 'SELECT seq, hash FROM ledger_head WHERE id = 1').get() as { seq: number; hash: string } | undefined
  const headProblem = scan.ledger.headProblem(head)
  if (headProblem) j.problems.push(headProblem)
  for (const [seq, reason] of scan.cellProblems) P(seq, reason)
  for (const p of scan.releaseProblems.values())
    if (p.seq === 'end') A(p.reason)
    else P(p.seq, p.reason)
}

/**
 * The officer registry, the trust epoch, signed entries and audit events, and officer acts written without a
 * signature after officer keys existed; returns how many signed acts verify.
 */
function officerActProblems(j: Judging): number {
  const { scan, registry, P, A } = j
  let signedActs = 0
  for (const reason of registry.problems) P(1, reason)
  if (j.trace !== null && registry.verified.length === 0) {
    P(
      1,
      registry.all.length === 0
        ? `an officer acted in this workspace (${j.trace}) but no officer is registered: the officer registry was removed outside the app`
        : `an officer acted in this workspace (${j.trace}) but no registered officer's registration verifies: the officer registry was replaced outside the app`
    )
  }
  if (j.epochRow === undefined) P(1, 'the record of when officer signatures began is missing')
  // Signed ledger entries; officer acts written after officer keys existed must be signed.
  for (const e of scan.signedEntries) {
    const o = registry.byId.get(e.signer!)
    if (!o) P(e.seq, `entry ${e.seq} is signed by a key that is not a registered officer`)
    else if (!j.entrySigned(e)) P(e.seq, `entry ${e.seq} (${e.kind}) does not carry a valid signature of officer "${o.name}"`)
    else signedActs++
  }
  for (const e of scan.officerActs) {
    if (!e.signer && e.seq > j.preOfficerThrough) P(e.seq, `entry ${e.seq} is an officer act (${e.kind}) without an officer's signature`)
    if (j.forAnotherDataset(e))
      P(
        e.seq,
        `entry ${e.seq} (${e.kind}) was recorded for another dataset than the one that holds id ${e.dataset_id} now (a dataset id was reused outside the app)`
      )
  }
  // The audit chain, its signatures, and unsigned officer acts recorded there.
  for (const p of scan.audit.problems) A(p.reason)
  for (const a of scan.signedAudit) {
    if (a.hash !== null && j.signedBy(a.signer!, auditSigningText(a.id, a.hash, a.signer!), a.signature)) signedActs++
    else A(`audit event ${a.id} (${a.kind}) does not carry a valid officer signature`)
  }
  const firstOfficerAt = registry.all[0]?.created_at
  for (const a of scan.officerAudit) {
    // Unlocks and registrations are signed; a budget's and a declaration's events go with their signed entries.
    if (a.signer || !a.kind.startsWith('officer/') || a.kind === 'officer/declare-public') continue
    if (firstOfficerAt !== undefined && a.at >= firstOfficerAt) A(`audit event ${a.id} (${a.kind}) is an officer act without an officer's signature`)
  }
  for (const o of registry.all)
    if (!scan.registrations.has(o.key_id)) P(1, `officer "${o.name}" is not recorded in the audit log (an officer added around the app)`)
  return signedActs
}

interface CheckpointFindings {
  checkpoints: CheckpointFact[]
  lastCheckpoint: CheckpointFact | null
  notCheckpointed: { entries: number; auditEvents: number }
}

/**
 * Checkpoints: each signed by a registered officer, chained to the one before, still matching both chains; and every
 * officer act covered by one (each act writes its checkpoint in its own transaction, so an act no checkpoint covers
 * means the checkpoints after it were deleted).
 */
function checkpointFindings(j: Judging): CheckpointFindings {
  const { scan, P, A } = j
  const checkpoints: CheckpointFact[] = []
  let lastCheckpoint: CheckpointFact | null = null
  let prevSignature: string | null = null
  let coveredSeq = 0
  let coveredAudit = 0
  let best: CheckpointRow | null = null
  for (const c of j.cps) {
    const text = checkpointText({
      at: c.at,
      ledgerSeq: c.ledger_seq,
      ledgerHash: c.ledger_hash,
      auditId: c.audit_id,
      auditHash: c.audit_hash,
      keyId: c.signer,
      prevSignature
    })
    prevSignature = c.signature
    if (!j.signedBy(c.signer, text, c.signature)) {
      P(
        Math.max(1, c.ledger_seq),
        `checkpoint ${c.id} does not carry a valid officer signature (it was changed, or a checkpoint before it was deleted)`
      )
      continue
    }
    coveredSeq = Math.max(coveredSeq, c.ledger_seq)
    coveredAudit = Math.max(coveredAudit, c.audit_id)
    const who = `checkpoint ${c.id} (signed by officer "${j.nameOf(c.signer)}" at ${c.at})`
    if (c.ledger_seq > 0) {
      const e = scan.ledger.bySeq.get(c.ledger_seq)
      if (!e) P(c.ledger_seq, `entry ${c.ledger_seq}, covered by ${who}, is missing: the ledger was cut short`)
      else if (e.hash !== c.ledger_hash)
        P(c.ledger_seq, `the ledger up to entry ${c.ledger_seq} was rewritten after ${who}: its head no longer matches what the officer signed`)
    }
    if (c.audit_id > 0) {
      const a = scan.audit.byId.get(c.audit_id)
      if (!a) A(`audit event ${c.audit_id}, covered by ${who}, is missing: audit events were deleted`)
      else if (a.hash !== c.audit_hash) A(`the audit log up to event ${c.audit_id} was rewritten after ${who} (events deleted or changed)`)
    }
    const fact = {
      id: c.id,
      ledgerSeq: c.ledger_seq,
      ledgerHash: c.ledger_hash,
      auditId: c.audit_id,
      auditHash: c.audit_hash,
      officer: j.nameOf(c.signer),
      at: c.at
    }
    checkpoints.push(fact)
    if (best === null || c.ledger_seq > best.ledger_seq || (c.ledger_seq === best.ledger_seq && c.audit_id >= best.audit_id)) {
      best = c
      lastCheckpoint = fact
    }
  }
  for (const e of scan.signedEntries)
    if (e.seq > coveredSeq) P(e.seq, `entry ${e.seq} is an officer act that no checkpoint covers (checkpoints were deleted)`)
  for (const a of scan.signedAudit)
    if (a.id > coveredAudit) A(`audit event ${a.id} (${a.kind}) is an officer act that no checkpoint covers (checkpoints were deleted)`)
  const notCheckpointed =
    lastCheckpoint === null
      ? { entries: j.lastSeq, auditEvents: scan.audit.byId.size }
      : { entries: Math.max(0, j.lastSeq - lastCheckpoint.ledgerSeq), auditEvents: scan.audit.countAfter(lastCheckpoint.auditId) }
  return { checkpoints, lastCheckpoint, notCheckpointed }
}

/**
 * Each dataset's privacy unit (person column, columns declared one value per person) must still be the one its latest
 * budget signed: the tables are plain rows, and a forged declaration would make charges smaller.
 */
function unitProblems(j: Judging): void {
  const { db, scan } = j
  const partial = { officerActs: scan.officerActs, actInForce: (e: EntryRow) => j.whyNotInForce(e) === null } as TrustFindings
  const budgeted = new Set(scan.officerActs.filter((e) => e.kind === 'budget').map((e) => e.dataset_id))
  for (const id of budgeted) {
    const signed = signedUnitOf(partial, id)
    if (typeof signed !== 'object' || statement(db, 'SELECT 1 FROM datasets WHERE id = ?').get(id) === undefined) continue
    if (!sameDeclaration(signed.declaration, unitDeclaration(db, id))) {
      const name = (statement(db, 'SELECT name FROM datasets WHERE id = ?').get(id) as { name: string }).name
      j.P(
        signed.seq,
        `the privacy unit of dataset "${name}" (person column, columns with one value per person) was changed outside the app after the budget of entry ${signed.seq} signed it`
      )
    }
  }
}

/**
 * Every signed link must still be what its officer signed (a use refuses a changed one, and verify reports it), and a
 * link an officer signed stays a signed link: without its signed source row the dataset would read a table of the
 * workspace, or an unsigned link, under the officer's budgets and public declaration, which name it by id and uid.
 */
function linkProblems(j: Judging): void {
  const verifiedSigner = (text: string, signer: string, signature: string) => j.verifiedIds.has(signer) && j.signedBy(signer, text, signature)
  for (const l of forgedLinks(j.db, verifiedSigner))
    j.A(`the ${l.kind} link of dataset "${l.name}" is not the one a privacy officer signed (it was changed in the workspace file)`)
  for (const l of removedLinks(j.db, j.scan.signedAudit, j.uids))
    j.P(
      j.lastSeq + 1,
      `the ${l.kind} link of dataset "${l.name}" was removed or unsigned in the workspace file (the officer signed it; it would read something else)`
    )
}

/**
 * Sealed costs: bound ones were checked as read; unbound ones only before binding began, plaintext only before officer
 * keys; and every release answered since binding began stored its costs with their binding event in the answer's
 * transaction.
 */
function sealedCostProblems(j: Judging): void {
  const { scan, A } = j
  for (const reason of scan.sealedProblems.values()) A(reason)
  for (const id of scan.unbound) {
    const reason = j.unboundProblem(id)
    if (reason !== null) A(reason)
  }
  for (const id of statement(j.db, `SELECT id FROM releases WHERE status = 'answered' AND id > ? ORDER BY id`).pluck().all(j.sealEpoch) as number[])
    if (!scan.bound.has(id) && !scan.sealed.has(id))
      A(`release ${id} was answered but its sealed costs and the audit event binding them are gone (deleted outside the app)`)
}

/** The findings every trust decision reads, from the judgement's parts. */
function findingsOf(j: Judging, signedActs: number, cp: CheckpointFindings): TrustFindings {
  const { scan } = j
  const lastAudit = scan.audit.byId.get(scan.audit.lastId)
  return {
    problems: j.problems,
    entries: scan.ledger.count,
    lastSeq: j.lastSeq,
    headHash: scan.ledger.lastHash,
    lastAuditId: scan.audit.lastId,
    auditHash: lastAudit?.hash ?? '0'.repeat(64),
    registry: j.registry,
    officerTrace: j.trace,
    preOfficerThrough: j.preOfficerThrough,
    signedActs,
    checkpoints: cp.checkpoints,
    lastCheckpoint: cp.lastCheckpoint,
    notCheckpointed: cp.notCheckpointed,
    officerActs: scan.officerActs,
    charges: scan.charges,
    actInForce: (e) => j.whyNotInForce(e) === null,
    sealedCostsProblem: j.sealedCostsProblem,
    cellTotals: (datasetId, notion, accountId = null) =>
      [...(scan.cellTotals.get(accountKey(datasetId, notion, accountId)) ?? new Map<string, number>())].map(([cell, nano]) => ({ cell, nano })),
    chargeCount: (datasetId, notion, accountId = null) => scan.chargeCounts.get(accountKey(datasetId, notion, accountId)) ?? 0,
    whyNotInForce: j.whyNotInForce,
    entryHashAt: (seq) => scan.ledger.bySeq.get(seq)?.hash ?? null,
    auditHashAt: (id) => scan.audit.byId.get(id)?.hash ?? null
  }
}
