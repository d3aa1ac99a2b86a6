/** Ledger rows as the contract shows them: entries, accounts per notion, the summary. */
import type Database from 'better-sqlite3'
import type { DatasetLedger, LedgerEntry, LedgerSummary, NotionAccount, PrivacyNotion } from '../../contract/ledger'
import { WHOLE_DATASET, cellLabel } from './cells'
import { type EntryRow, accountOf, datasetName, headOf } from './ledger-store'
import { NOTIONS, NOTION_LABEL, NOTION_MEANING } from './notions'
import { nanoToDecimal, nanoToNumber } from './units'

type Db = Database.Database

export const NOTIONS_NOTE =
  'Each privacy notion has its own account and budget: epsilons under different notions protect different things and are never added together.'

export function toLedgerEntry(r: EntryRow): LedgerEntry {
  const cells = (JSON.parse(r.cells) as string[]).filter((c) => c !== WHOLE_DATASET)
  return {
    seq: r.seq,
    at: r.at,
    kind: r.kind,
    datasetId: r.dataset_id,
    datasetName: r.dataset_name,
    notion: r.notion,
    epsilon: nanoToNumber(r.amount_nano),
    epsilonExact: nanoToDecimal(r.amount_nano),
    cellCount: cells.length,
    cells: cells.slice(0, 20).map(cellLabel),
    releaseId: r.release_id,
    actor: r.actor,
    description: r.description,
    prevHash: r.prev_hash,
    hash: r.hash
  }
}

export function listEntries(db: Db, req: { datasetId?: number; limit?: number; offset?: number }): { entries: LedgerEntry[]; total: number } {
  const limit = Math.min(1000, Math.max(1, Math.floor(req.limit ?? 100)))
  const offset = Math.max(0, Math.floor(req.offset ?? 0))
  const where = req.datasetId === undefined ? '' : 'WHERE dataset_id = @datasetId'
  const params = req.datasetId === undefined ? {} : { datasetId: req.datasetId }
  const total = (db.prepare(`SELECT count(*) AS n FROM ledger_entries ${where}`).get(params) as { n: number }).n
  const rows = db.prepare(`SELECT * FROM ledger_entries ${where} ORDER BY seq DESC LIMIT ${limit} OFFSET ${offset}`).all(params) as EntryRow[]
  return { entries: rows.map(toLedgerEntry), total }
}

export function notionAccount(db: Db, datasetId: number, notion: PrivacyNotion, cellLimit = 50): NotionAccount {
  const a = accountOf(db, datasetId, notion)
  const remaining = a.budgetNano === null ? null : a.budgetNano - a.spentNano
  return {
    notion,
    label: NOTION_LABEL[notion],
    meaning: NOTION_MEANING[notion],
    spent: nanoToNumber(a.spentNano),
    spentExact: nanoToDecimal(a.spentNano),
    budget: a.budgetNano === null ? null : nanoToNumber(a.budgetNano),
    budgetExact: a.budgetNano === null ? null : nanoToDecimal(a.budgetNano),
    remaining: remaining === null ? null : nanoToNumber(remaining),
    remainingExact: remaining === null ? null : nanoToDecimal(remaining),
    releases: a.releases,
    cells: a.cells.slice(0, cellLimit).map((c) => ({
      key: c.cell,
      label: cellLabel(c.cell),
      own: nanoToNumber(c.ownNano),
      total: nanoToNumber(c.totalNano),
      totalExact: nanoToDecimal(c.totalNano)
    })),
    cellCount: a.cells.length
  }
}

export function datasetLedger(db: Db, datasetId: number, cellLimit = 50): DatasetLedger {
  const current = datasetName(db, datasetId)
  const last = db.prepare('SELECT dataset_name FROM ledger_entries WHERE dataset_id = ? ORDER BY seq DESC LIMIT 1').get(datasetId) as
    | { dataset_name: string }
    | undefined
  const budgetRows = db
    .prepare(`SELECT seq, at, notion, amount_nano, actor, description FROM ledger_entries WHERE kind = 'budget' AND dataset_id = ? ORDER BY seq`)
    .all(datasetId) as Array<{ seq: number; at: string; notion: PrivacyNotion | null; amount_nano: number; actor: string; description: string }>
  return {
    datasetId,
    datasetName: current ?? last?.dataset_name ?? `dataset ${datasetId}`,
    exists: current !== null,
    accounts: NOTIONS.map((n) => notionAccount(db, datasetId, n, cellLimit)),
    budgetChanges: budgetRows.map((b) => ({
      seq: b.seq,
      at: b.at,
      notion: b.notion,
      epsilonExact: nanoToDecimal(b.amount_nano),
      actor: b.actor,
      reason: b.description
    }))
  }
}

export function ledgerSummary(db: Db, req: { datasetId?: number; cellLimit?: number }): LedgerSummary {
  let ids: number[]
  if (req.datasetId !== undefined) ids = [req.datasetId]
  else {
    const fromLedger = (db.prepare('SELECT DISTINCT dataset_id AS id FROM ledger_entries').all() as Array<{ id: number }>).map((r) => r.id)
    const hasDatasets = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'datasets'`).get()
    const live = hasDatasets ? (db.prepare('SELECT id FROM datasets').all() as Array<{ id: number }>).map((r) => r.id) : []
    ids = [...new Set([...live, ...fromLedger])].sort((a, b) => a - b)
  }
  const head = headOf(db)
  return {
    datasets: ids.map((id) => datasetLedger(db, id, req.cellLimit ?? 50)),
    notionsNote: NOTIONS_NOTE,
    entries: head.seq,
    headHash: head.hash
  }
}
