/**
 * The ledger's storage: append (inside the caller's transaction), read, accounts per notion, budgets, admission, audit.
 * Everything here is synchronous better-sqlite3 work on one connection.
 */
import type Database from 'better-sqlite3'
import type { PrivacyNotion } from '../../contract/ledger'
import { GENESIS_HASH, canonicalJson, entryHash } from './canonical'
import { type CellKey, type CellTotal, WHOLE_DATASET, cellSpend } from './cells'
import { NOTION_LABEL } from './notions'
import { MAX_NANO, nanoToDisplay } from './units'

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
}

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
    hash: ''
  }
  row.hash = entryHash(row.prev_hash, hashedFields(row))
  db.prepare(
    `INSERT INTO ledger_entries (seq, at, kind, dataset_id, dataset_name, notion, amount_nano, cells, release_id, actor, description, detail, prev_hash, hash)
     VALUES (@seq, @at, @kind, @dataset_id, @dataset_name, @notion, @amount_nano, @cells, @release_id, @actor, @description, @detail, @prev_hash, @hash)`
  ).run(row)
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
    detail: r.detail
  }
}

export function recordAudit(db: Db, kind: string, actor: string, subject: string | null, detail: Record<string, unknown>): void {
  db.prepare('INSERT INTO audit_events (at, kind, actor, subject, detail) VALUES (?, ?, ?, ?, ?)').run(nowIso(), kind, actor, subject, canonicalJson(detail))
}

// ---------------------------------------------------------------------------------------------------------------
// Accounts

/** The current budget of an account: the latest budget entry for this notion or for every notion; null if none. */
export function budgetNano(db: Db, datasetId: number, notion: PrivacyNotion): number | null {
  const row = db
    .prepare(
      `SELECT amount_nano FROM ledger_entries WHERE kind = 'budget' AND dataset_id = ? AND (notion = ? OR notion IS NULL)
       ORDER BY seq DESC LIMIT 1`
    )
    .get(datasetId, notion) as { amount_nano: number } | undefined
  return row ? row.amount_nano : null
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
  budgetNano: number | null
  cells: CellTotal[]
  releases: number
}

export function accountOf(db: Db, datasetId: number, notion: PrivacyNotion): Account {
  const spend = cellSpend(cellCharges(db, datasetId, notion))
  const releases = (
    db.prepare(`SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge' AND dataset_id = ? AND notion = ?`).get(datasetId, notion) as { n: number }
  ).n
  return { spentNano: spend.maxNano, budgetNano: budgetNano(db, datasetId, notion), cells: spend.cells, releases }
}

export interface Admission {
  allowed: boolean
  spentBeforeNano: number
  spentAfterNano: number
  budgetNano: number | null
  /** What the budget leaves for the cells this charge touches: budget - (spent after - requested). */
  remainingNano: number | null
  /** One sentence when denied: requested / remaining / difference, in words. */
  denial: string | null
}

/** Would charging `amountNano` on `cells` stay within the account's budget? Reads only. */
export function admission(db: Db, datasetId: number, datasetName: string, notion: PrivacyNotion, cells: CellKey[], amountNano: number): Admission {
  const existing = cellCharges(db, datasetId, notion)
  const before = cellSpend(existing).maxNano
  const after = cellSpend([...existing, ...[...new Set(cells)].map((cell) => ({ cell, nano: amountNano }))]).maxNano
  const budget = budgetNano(db, datasetId, notion)
  const label = NOTION_LABEL[notion]
  const eps = (n: number, mode: 'up' | 'down' = 'up') => nanoToDisplay(n, mode)
  if (budget === null) {
    return {
      allowed: false,
      spentBeforeNano: before,
      spentAfterNano: after,
      budgetNano: null,
      remainingNano: null,
      denial:
        `Denied: this release requests epsilon ${eps(amountNano)} (${label}) but dataset "${datasetName}" has no ${label} budget, so 0 remains ` +
        `and the request is ${eps(amountNano)} over; nothing was spent. Ask the privacy officer to set a budget (quiet-alarm budget).`
    }
  }
  const remaining = budget - (after - amountNano)
  if (after <= budget) return { allowed: true, spentBeforeNano: before, spentAfterNano: after, budgetNano: budget, remainingNano: remaining, denial: null }
  const where = cells.length === 1 && cells[0] === WHOLE_DATASET ? '' : ' for the cells it touches'
  return {
    allowed: false,
    spentBeforeNano: before,
    spentAfterNano: after,
    budgetNano: budget,
    remainingNano: remaining,
    denial:
      `Denied: this release requests epsilon ${eps(amountNano)} (${label}) but only ${eps(Math.max(0, remaining), 'down')} of the ${eps(budget, 'down')} budget ` +
      `of dataset "${datasetName}" remains${where}; the difference is ${eps(after - budget)}. Nothing was spent. ` +
      'Ask for less accuracy, or ask the privacy officer to raise the budget.'
  }
}

/** The dataset's current name, or null when it was deleted (or never existed). */
export function datasetName(db: Db, datasetId: number): string | null {
  const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'datasets'`).get()
  if (!hasTable) return null
  const row = db.prepare('SELECT name FROM datasets WHERE id = ?').get(datasetId) as { name: string } | undefined
  return row ? row.name : null
}
