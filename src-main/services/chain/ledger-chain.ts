/**
 * The ledger's storage: append (inside the caller's transaction), read, accounts per notion, budgets, admission, audit.
 * Everything here is synchronous better-sqlite3 work on one connection.
 */
import type Database from 'better-sqlite3'
import type { PrivacyNotion } from '../../contract/ledger'
import { appendAudit } from './audit-chain'
import { GENESIS_HASH, canonicalJson, entryHash } from './canonical'
import { type CellKey, type CellTotal, WHOLE_DATASET, cellSpend } from '../ledger/cells'
import { NOTIONS, NOTION_LABEL } from './notions'
import { datasetUnit, unitProblem, unitWord } from '../trust/privacy-unit'
import { MAX_NANO, nanoToDisplay } from './nano-epsilon'
import { verifyText } from '../trust/officer-crypto'
import { verifiedOfficerRows } from '../trust/officers'

type Db = Database.Database

export interface EntryRow {
  seq: number
  at: string
  kind: 'charge' | 'budget' | 'public'
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
  /** Officer acts (issue 15): the signing officer's key id and the Ed25519 signature over the entry's hash. */
  signer?: string | null
  signature?: string | null
}

/** An officer's unlocked signing key, as the ledger needs it (services/officer/officers.ts makes one). */
export interface EntrySigner {
  keyId: string
  sign: (text: string) => string
}

export const entrySigningText = (seq: number, hash: string, keyId: string) => `quiet-alarm/ledger-entry/v1\n${seq}\n${hash}\n${keyId}`

export interface AppendInput {
  kind: 'charge' | 'budget' | 'public'
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

export function nowIso(): string {
  return new Date().toISOString()
}

export function headOf(db: Db): { seq: number; hash: string } {
  const row = db.prepare('SELECT seq, hash FROM ledger_head WHERE id = 1').get() as { seq: number; hash: string } | undefined
  return row ?? { seq: 0, hash: GENESIS_HASH }
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
    detail: canonicalJson(input.detail),
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
    // Signed entries (issue 15) also hash who signed them; older entries hash exactly the fields they had.
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
  appendAudit(db, { at: nowIso(), kind, actor, subject, detail: canonicalJson(detail) }, signer)
}

// ---------------------------------------------------------------------------------------------------------------
// Accounts
//
// One figure per unit (ALGORITHMS.md section 6): every notion protects a *normal* unit (not anomalous, k-sensitive,
// score below t-low) with its epsilon, so what one normal person (or row) has lost is the SUM over notions of each
// notion's account (basic composition). Each notion's account keeps its cell accounting (a record's spend is the sum of
// the charges of the cells it lies in; the account's spend is the maximum over records). The headline per dataset is
// that sum, `spentPerUnit`, held to one budget per unit; a notion's own budget, if the officer set one, is an extra cap.
//
// Why spentPerUnit is never below what one unit truly lost (proof sketch; checked by brute force in
// test/unit/ledger-per-person.test.ts and test/integration/ledger/person-level.test.ts):
// 1. A release r charged c_r costs one unit at most c_r (its charge is per unit: contribution bounds times the
//    mechanism's per-predicate epsilon), and nothing if none of the unit's rows lies in r's predicates (parallel
//    composition: the predicates are public and r's output depends only on the rows they select).
// 2. The ledger holds r under its notion on cells C_r: the whole dataset, or (privacy-unit.ts `cellsForUnit`) cells over
//    columns that hold one value per unit. Each predicate's rows lie in a cell of C_r (a cell keeps only the predicate's
//    equality conditions, so it can only be larger).
// 3. All rows of a unit p agree on those columns, so p behaves like one record x_p: a row of p lies in cell c iff x_p
//    does. The cells of one release are over one column set and pairwise disjoint, so x_p lies in at most one of them.
//    Hence p's loss under a notion is at most the sum of the charges of the cells containing x_p, and `cellSpend` takes
//    the maximum of that sum over all records (exactly, or an upper bound if its search is cut short).
// 4. A normal unit is protected by every notion, and its losses under them add up (basic composition): summing step 3
//    over notions bounds its total loss by spentPerUnit. On a row-level dataset the unit is one row and x_p is the row.

/** The per-unit budget: the latest budget entry that names no notion; null if the officer never set one. */
export function unitBudgetNano(db: Db, datasetId: number): number | null {
  const row = db
    .prepare(`SELECT amount_nano FROM ledger_entries WHERE kind = 'budget' AND dataset_id = ? AND notion IS NULL ORDER BY seq DESC LIMIT 1`)
    .get(datasetId) as { amount_nano: number } | undefined
  return row ? row.amount_nano : null
}

/** A notion's own cap: the latest budget entry for exactly this notion; null if none (then only the per-unit budget applies). */
export function notionCapNano(db: Db, datasetId: number, notion: PrivacyNotion): number | null {
  const row = db
    .prepare(`SELECT amount_nano FROM ledger_entries WHERE kind = 'budget' AND dataset_id = ? AND notion = ? ORDER BY seq DESC LIMIT 1`)
    .get(datasetId, notion) as { amount_nano: number } | undefined
  return row ? row.amount_nano : null
}

/**
 * The budget one unit is held to, and where it comes from: the officer's per-unit budget; without one, the sum of the
 * notions' own budgets (only notions with a budget may spend then, so a unit's loss is at most that sum); else none.
 */
export function perUnitBudget(db: Db, datasetId: number): { nano: number | null; source: 'per-unit' | 'notion-budgets' | 'none' } {
  const unit = unitBudgetNano(db, datasetId)
  if (unit !== null) return { nano: unit, source: 'per-unit' }
  let sum = 0
  let any = false
  for (const n of NOTIONS) {
    const cap = notionCapNano(db, datasetId, n)
    if (cap !== null) {
      sum += cap
      any = true
    }
  }
  return any ? { nano: sum, source: 'notion-budgets' } : { nano: null, source: 'none' }
}

/**
 * The budget that applies to one notion's account alone (kept for callers of the per-notion view): its own cap, else
 * the per-unit budget; null when neither is set (releases under the notion are denied).
 */
export function budgetNano(db: Db, datasetId: number, notion: PrivacyNotion): number | null {
  return notionCapNano(db, datasetId, notion) ?? unitBudgetNano(db, datasetId)
}

export function cellCharges(db: Db, datasetId: number, notion: PrivacyNotion): Array<{ cell: CellKey; nano: number }> {
  return (
    db
      .prepare('SELECT cell, sum(amount_nano) AS nano FROM ledger_cell_charges WHERE dataset_id = ? AND notion = ? GROUP BY cell')
      .all(datasetId, notion) as Array<{ cell: string; nano: number }>
  ).map((r) => ({ cell: r.cell, nano: r.nano }))
}

export interface Account {
  spentNano: number
  /** The notion's own cap (null: none; the per-unit budget applies). */
  budgetNano: number | null
  cells: CellTotal[]
  releases: number
}

export function accountOf(db: Db, datasetId: number, notion: PrivacyNotion): Account {
  const spend = cellSpend(cellCharges(db, datasetId, notion))
  const releases = (
    db.prepare(`SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge' AND dataset_id = ? AND notion = ?`).get(datasetId, notion) as {
      n: number
    }
  ).n
  return { spentNano: spend.maxNano, budgetNano: notionCapNano(db, datasetId, notion), cells: spend.cells, releases }
}

/** Spend per unit: the sum over notions of each notion's account spend (and the parts). */
export function unitSpend(db: Db, datasetId: number): { spentNano: number; byNotion: Record<PrivacyNotion, number> } {
  const byNotion = {} as Record<PrivacyNotion, number>
  let spentNano = 0
  for (const n of NOTIONS) {
    byNotion[n] = cellSpend(cellCharges(db, datasetId, n)).maxNano
    spentNano += byNotion[n]
  }
  return { spentNano, byNotion }
}

export interface Admission {
  allowed: boolean
  /** What one unit (person or row) has lost at most, summed over notions, before and after this charge. */
  spentBeforeNano: number
  spentAfterNano: number
  /** The budget per unit it is held to (`perUnitBudget`); null: no budget at all, releases are denied. */
  budgetNano: number | null
  /**
   * What the budgets leave for this charge on the cells it touches: the smaller of budget per unit - (spent per unit after -
   * requested) and, with a notion cap, cap - (notion's spend after - requested).
   */
  remainingNano: number | null
  /** How far the charge goes over the binding limit (0 when allowed). */
  overNano: number
  /** The notion's own account, before and after, and its cap (null: none). */
  notion: { spentBeforeNano: number; spentAfterNano: number; capNano: number | null }
  /** One sentence when denied: requested / remaining / difference, in words. */
  denial: string | null
}

/**
 * Would charging `amountNano` on `cells` under `notion` stay within the budgets? Reads only. Denied when the spend per
 * unit after the charge would exceed the budget per unit, or the notion's account would exceed its own cap, or no
 * budget covers the notion (no per-unit budget and no cap for it).
 */
export function admission(db: Db, datasetId: number, datasetName: string, notion: PrivacyNotion, cells: CellKey[], amountNano: number): Admission {
  const existing = cellCharges(db, datasetId, notion)
  const total = unitSpend(db, datasetId)
  const notionBefore = total.byNotion[notion]
  const notionAfter = cellSpend([...existing, ...[...new Set(cells)].map((cell) => ({ cell, nano: amountNano }))]).maxNano
  const before = total.spentNano
  const after = before - notionBefore + notionAfter
  const unitNano = unitBudgetNano(db, datasetId)
  const capNano = notionCapNano(db, datasetId, notion)
  const budget = perUnitBudget(db, datasetId).nano
  const label = NOTION_LABEL[notion]
  const per = `per ${unitWord(datasetUnit(db, datasetId))}`
  const eps = (n: number, mode: 'up' | 'down' = 'up') => nanoToDisplay(n, mode)
  const base = {
    spentBeforeNano: before,
    spentAfterNano: after,
    budgetNano: budget,
    notion: { spentBeforeNano: notionBefore, spentAfterNano: notionAfter, capNano }
  }
  // The unit the charge was computed with must be the one the officer signed with the budget (privacy-unit.ts).
  const problem = unitProblem(db, datasetId, datasetName)
  if (problem !== null) return { ...base, allowed: false, remainingNano: null, overNano: amountNano, denial: problem }
  // The budget entries read above must still be what an officer signed (not rewritten with the file).
  const forged = forgedBudgetSeq(db, datasetId, notion)
  if (forged !== null) {
    const denial =
      `Denied: the budget of dataset "${datasetName}" (ledger entry ${forged}) does not carry a valid signature of a registered officer; ` +
      'the workspace was changed outside the app. Nothing was spent. Ask the privacy officer to run "quiet-alarm ledger verify".'
    return { ...base, allowed: false, remainingNano: null, overNano: amountNano, denial }
  }
  if (unitNano === null && capNano === null) {
    return {
      ...base,
      allowed: false,
      remainingNano: null,
      overNano: amountNano,
      denial:
        `Denied: this release requests epsilon ${eps(amountNano)} (${label}) but dataset "${datasetName}" has no budget ${per} and no ${label} budget, so 0 remains ` +
        `and the request is ${eps(amountNano)} over; nothing was spent. Ask the privacy officer to set a budget (quiet-alarm budget).`
    }
  }
  const unitLeft = unitNano === null ? null : unitNano - (after - amountNano)
  const capLeft = capNano === null ? null : capNano - (notionAfter - amountNano)
  const remaining = unitLeft === null ? capLeft! : capLeft === null ? unitLeft : Math.min(unitLeft, capLeft)
  const unitOver = unitNano === null ? 0 : after - unitNano
  const capOver = capNano === null ? 0 : notionAfter - capNano
  if (unitOver <= 0 && capOver <= 0) return { ...base, allowed: true, remainingNano: remaining, overNano: 0, denial: null }
  const where = cells.length === 1 && cells[0] === WHOLE_DATASET ? '' : ' for the cells it touches'
  const byUnit = unitOver >= capOver
  const what = byUnit ? `of the ${eps(unitNano!, 'down')} budget ${per} (summed over notions)` : `of the ${eps(capNano!, 'down')} ${label} budget`
  const left = byUnit ? unitLeft! : capLeft!
  return {
    ...base,
    allowed: false,
    remainingNano: remaining,
    overNano: Math.max(unitOver, capOver),
    denial:
      `Denied: this release requests epsilon ${eps(amountNano)} (${label}) but only ${eps(Math.max(0, left), 'down')} ${what} ` +
      `of dataset "${datasetName}" remains${where}; the difference is ${eps(Math.max(unitOver, capOver))}. Nothing was spent. ` +
      'Ask for less accuracy, or ask the privacy officer to raise the budget.'
  }
}

function hasTable(db: Db, name: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined
}

/**
 * The budget entries admission reads (the latest per-unit budget, the notion's latest cap, and the latest budget of any
 * kind, whose detail carries the signed unit): the seq of the first one that is not what an officer signed, or null.
 * Review finding: admission read the amount and the unit straight from the rows, so a budget raised in place with the
 * file (every hash after it recomputed) admitted releases until someone ran `ledger verify`. A budget entry counts
 * when its hash matches its fields and it carries a valid signature of a registered officer, or when it is unsigned and
 * predates officer signatures (as `verify` accepts it: up to the trust epoch, never after the first checkpoint).
 * Not caught here (verify catches them): deleted later budgets (a rollback) and an officer registry replaced around the app.
 */
function forgedBudgetSeq(db: Db, datasetId: number, notion: PrivacyNotion): number | null {
  if (!hasTable(db, 'ledger_trust_epoch') || !hasTable(db, 'officers')) return null // a schema from before officer keys
  const latest = (where: string, ...args: unknown[]) =>
    db.prepare(`SELECT * FROM ledger_entries WHERE kind = 'budget' AND dataset_id = ? ${where} ORDER BY seq DESC LIMIT 1`).get(datasetId, ...args) as
      EntryRow | undefined
  const rows = [latest(''), latest('AND notion IS NULL'), latest('AND notion = ?', notion)].filter((e): e is EntryRow => e !== undefined)
  for (const e of rows) if (!officerSignedEntry(db, e)) return e.seq
  return null
}

/**
 * Whether an officer act's ledger entry (a budget, a public declaration) is what an officer signed: its hash matches its
 * fields and it carries a valid signature of an officer whose registration verifies (an officer row inserted with the
 * file does not: review H10), or it is unsigned and predates officer signatures (as `verify` accepts it: up to the
 * trust epoch, never after the first checkpoint). True on a schema from before officer keys.
 */
export function officerSignedEntry(db: Db, e: EntryRow): boolean {
  if (!hasTable(db, 'ledger_trust_epoch') || !hasTable(db, 'officers')) return true
  const epoch = db.prepare('SELECT unsigned_through_seq AS seq FROM ledger_trust_epoch WHERE id = 1').get() as { seq: number } | undefined
  const firstCheckpoint = db.prepare('SELECT min(ledger_seq) AS seq FROM ledger_checkpoints').get() as { seq: number | null }
  const unsignedThrough = Math.min(epoch?.seq ?? 0, firstCheckpoint.seq ?? Number.MAX_SAFE_INTEGER)
  if (entryHash(e.prev_hash, hashedFields(e)) !== e.hash) return false
  if (e.signer) {
    const o = verifiedOfficerRows(db).find((r) => r.key_id === e.signer)
    return o !== undefined && !!e.signature && verifyText(o.sign_public, entrySigningText(e.seq, e.hash, e.signer), e.signature)
  }
  return e.seq <= unsignedThrough
}

/** The last seq written before privacy units existed (migration 006): entries up to it are row-level accounting. 0 if none. */
export function rowLevelThroughSeq(db: Db): number {
  const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger_unit_epoch'`).get()
  if (!hasTable) return 0
  const row = db.prepare('SELECT row_level_through_seq AS seq FROM ledger_unit_epoch WHERE id = 1').get() as { seq: number } | undefined
  return row ? row.seq : 0
}

/** The dataset's current name, or null when it was deleted (or never existed). */
export function datasetName(db: Db, datasetId: number): string | null {
  const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'datasets'`).get()
  if (!hasTable) return null
  const row = db.prepare('SELECT name FROM datasets WHERE id = ?').get(datasetId) as { name: string } | undefined
  return row ? row.name : null
}
