/** Ledger rows as the contract shows them: entries, accounts per notion, the summary. */
import type Database from 'better-sqlite3'
import type { Role } from '../../contract/accounts'
import type { AnalystSpend, DatasetLedger, LedgerEntry, LedgerSummary, NotionAccount, PrivacyNotion } from '../../contract/ledger'
import { WHOLE_DATASET, cellLabel } from './cells'
import { type EntryRow, headOf } from '../chain/ledger-chain'
import { type Account, accountOf, rowLevelThroughSeq, unitSpend } from './accounts'
import { type TrustFindings, inspectWorkspace } from '../trust/kernel'
import { datasetName } from '../catalog/catalog'
import { perUnitBudget, unitBudgetNano } from '../trust/budgets-in-force'
import { NOTIONS, NOTION_LABEL, NOTION_MEANING } from '../chain/notions'
import { nanoToDecimal, nanoToNumber } from '../chain/nano-epsilon'
import { datasetUnit } from '../trust/privacy-unit'
import { unitName, unitText } from '../catalog/unit-record'

type Db = Database.Database

export const NOTIONS_NOTE =
  'Every notion protects a normal person (not anomalous, k-sensitive, score below t-low) with its epsilon, so what one normal person ' +
  '(or row, on a row-level dataset) has lost is the sum over notions: that sum is held to one budget per person. The notions differ in whom ' +
  'they leave unprotected (anomalies, non-sensitive records), which each account below says; a notion may also have its own budget as an extra cap.'

/** How entries written before privacy units existed are marked (migration 006). */
export const ROW_LEVEL_ACCOUNTING = 'row-level accounting (before person-level units)'

/** The service account an entry's hashed detail names (null: the workbench, or an entry from before accounts). */
function entryAccount(detail: string): LedgerEntry['account'] {
  try {
    const a = (JSON.parse(detail) as { account?: { id?: unknown; name?: unknown; role?: unknown } }).account
    return a && typeof a.id === 'number' && typeof a.name === 'string' && typeof a.role === 'string'
      ? { id: a.id, name: a.name, role: a.role as Role }
      : null
  } catch {
    return null
  }
}

/** The analyst account a budget entry is scoped to (its hashed `detail.analyst`), or null: the dataset's own budget. */
function entryAnalyst(detail: string): { id: number; name: string } | null {
  if (!detail.includes('"analyst"')) return null
  try {
    const a = (JSON.parse(detail) as { analyst?: { id?: unknown; name?: unknown } }).analyst
    return a && typeof a.id === 'number' && typeof a.name === 'string' ? { id: a.id, name: a.name } : null
  } catch {
    return null
  }
}

/** An entry as the contract shows it. `rowLevelThroughSeq`: entries up to this seq are marked as row-level accounting. */
export function toLedgerEntry(r: EntryRow, rowLevelThrough = 0): LedgerEntry {
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
    account: entryAccount(r.detail),
    analyst: r.kind === 'budget' ? entryAnalyst(r.detail) : null,
    description: r.description,
    signed: r.signer !== null && r.signer !== undefined,
    prevHash: r.prev_hash,
    hash: r.hash,
    rowLevelAccounting: r.seq <= rowLevelThrough
  }
}

/**
 * The entries one analyst account may read (SQL over ledger_entries, with `@account`): its own charges, and the
 * officer's acts that concern every analyst or this one (another analyst's charges and own allotment are not shown).
 */
export const VISIBLE_TO_ACCOUNT =
  `(CASE WHEN kind = 'charge' THEN json_extract(detail, '$.account.id') IS @account ` +
  `ELSE coalesce(json_extract(detail, '$.analyst.id'), @account) = @account END)`

/**
 * Entries, newest first. `onlyAccount`: what one analyst account may read: its own charges, and the officer's acts
 * that concern every analyst or this one (another analyst's charges and own budget are not shown).
 */
export function listEntries(
  db: Db,
  req: { datasetId?: number; limit?: number; offset?: number; onlyAccount?: number | null }
): { entries: LedgerEntry[]; total: number } {
  const limit = Math.min(1000, Math.max(1, Math.floor(req.limit ?? 100)))
  const offset = Math.max(0, Math.floor(req.offset ?? 0))
  const conditions = [...(req.datasetId === undefined ? [] : ['dataset_id = @datasetId']), ...(req.onlyAccount == null ? [] : [VISIBLE_TO_ACCOUNT])]
  const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`
  const params = {
    ...(req.datasetId === undefined ? {} : { datasetId: req.datasetId }),
    ...(req.onlyAccount == null ? {} : { account: req.onlyAccount })
  }
  const total = (db.prepare(`SELECT count(*) AS n FROM ledger_entries ${where}`).get(params) as { n: number }).n
  const rows = db.prepare(`SELECT * FROM ledger_entries ${where} ORDER BY seq DESC LIMIT ${limit} OFFSET ${offset}`).all(params) as EntryRow[]
  const through = rowLevelThroughSeq(db)
  return { entries: rows.map((r) => toLedgerEntry(r, through)), total }
}

/**
 * One notion's account. `perUnitLeftNano`: what the budget per unit leaves (null: no per-unit budget); the notion's
 * remaining is the smaller of that and its own budget's remainder.
 */
export function notionAccount(
  db: Db,
  datasetId: number,
  notion: PrivacyNotion,
  cellLimit = 50,
  perUnitLeftNano?: number | null,
  account?: Account
): NotionAccount {
  const a = account ?? accountOf(db, datasetId, notion)
  const unitLeft = perUnitLeftNano === undefined ? perUnitLeft(db, datasetId) : perUnitLeftNano
  const capLeft = a.budgetNano === null ? null : a.budgetNano - a.spentNano
  const remaining = capLeft === null ? unitLeft : unitLeft === null ? capLeft : Math.min(capLeft, unitLeft)
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

/** What the officer's budget per unit leaves (budget - spent per unit); null when no per-unit budget was set. */
function perUnitLeft(db: Db, datasetId: number): number | null {
  const b = unitBudgetNano(db, datasetId)
  if (b === null) return null
  let spent = 0
  for (const n of NOTIONS) spent += accountOf(db, datasetId, n).spentNano
  return b - spent
}

/**
 * One dataset's ledger view. `onlyAccount`: what one analyst account reads: the dataset's figures, and of the spend per
 * analyst and the budget changes only their own (another analyst's spend and own budget are not theirs to see).
 */
export function datasetLedger(db: Db, datasetId: number, cellLimit = 50, onlyAccount: number | null = null): DatasetLedger {
  const current = datasetName(db, datasetId)
  const last = db.prepare('SELECT dataset_name FROM ledger_entries WHERE dataset_id = ? ORDER BY seq DESC LIMIT 1').get(datasetId) as
    { dataset_name: string } | undefined
  const budgetRows = db
    .prepare(
      `SELECT seq, at, notion, amount_nano, actor, description, detail, signer FROM ledger_entries WHERE kind = 'budget' AND dataset_id = ? ORDER BY seq`
    )
    .all(datasetId) as Array<{
    seq: number
    at: string
    notion: PrivacyNotion | null
    amount_nano: number
    actor: string
    description: string
    detail: string
    signer: string | null
  }>
  const unit = datasetUnit(db, datasetId)
  // An analyst reads their own allotment's figures only: their own charges against their own budgets (section 5,
  // "Analysts of one service"); the officer, the custodian and the workbench read the dataset's.
  const f = inspectWorkspace(db)
  // Each notion's account once (the cell accounting is the costly part), then their sum.
  const byNotion = NOTIONS.map((n) => ({ notion: n, account: accountOf(db, datasetId, n, f, onlyAccount) }))
  const spentNano = byNotion.reduce((sum, x) => sum + x.account.spentNano, 0)
  const budget = perUnitBudget(db, datasetId, f, onlyAccount)
  const officerBudget = unitBudgetNano(db, datasetId, f, onlyAccount)
  const remaining = budget.nano === null ? null : budget.nano - spentNano
  // Releases that overran the dataset's public answer time (audit events written by releases/answer-time.ts).
  const overruns = (
    db.prepare(`SELECT count(*) AS n FROM audit_events WHERE kind = 'release/overrun' AND subject = ?`).get(`dataset:${datasetId}`) as { n: number }
  ).n
  const through = rowLevelThroughSeq(db)
  const rowLevelEntries = (
    db.prepare('SELECT count(*) AS n FROM ledger_entries WHERE dataset_id = ? AND seq <= ?').get(datasetId, through) as { n: number }
  ).n
  return {
    datasetId,
    datasetName: current ?? last?.dataset_name ?? `dataset ${datasetId}`,
    exists: current !== null,
    unit: unitName(unit),
    unitKind: unit.kind,
    unitText: unitText(unit),
    spentPerUnit: nanoToNumber(spentNano),
    spentPerUnitExact: nanoToDecimal(spentNano),
    budgetPerUnit: nanoToNumber(budget.nano ?? 0),
    budgetPerUnitExact: budget.nano === null ? null : nanoToDecimal(budget.nano),
    budgetPerUnitSource: budget.source,
    ...(onlyAccount === null ? (overruns > 0 ? { overruns } : {}) : { allotment: true }),
    remainingPerUnit: remaining === null ? null : nanoToNumber(remaining),
    remainingPerUnitExact: remaining === null ? null : nanoToDecimal(remaining),
    rowLevelEntries,
    accounts: byNotion.map((x) =>
      notionAccount(db, datasetId, x.notion, cellLimit, officerBudget === null ? null : officerBudget - spentNano, x.account)
    ),
    budgetChanges: budgetRows
      .map((b) => ({ ...b, analyst: entryAnalyst(b.detail) }))
      .filter((b) => onlyAccount === null || b.analyst === null || b.analyst.id === onlyAccount)
      .map((b) => ({
        seq: b.seq,
        at: b.at,
        notion: b.notion,
        epsilonExact: nanoToDecimal(b.amount_nano),
        actor: b.actor,
        reason: b.description,
        signed: b.signer !== null,
        analyst: b.analyst?.name ?? null
      })),
    byAnalyst: analystSpends(db, datasetId, onlyAccount)
  }
}

/**
 * Spend per analyst account on a dataset: every account that made a charge on it or was given its own budget there,
 * with the spend of its own charges (per unit, summed over notions: the figure its own budget is held to) and that budget.
 */
export function analystSpends(db: Db, datasetId: number, onlyAccount: number | null = null): AnalystSpend[] {
  const rows = db
    .prepare(
      `SELECT CASE WHEN kind = 'charge' THEN json_extract(detail, '$.account.id') ELSE json_extract(detail, '$.analyst.id') END AS id,
              max(CASE WHEN kind = 'charge' THEN json_extract(detail, '$.account.name') ELSE json_extract(detail, '$.analyst.name') END) AS name,
              sum(kind = 'charge') AS charges
         FROM ledger_entries
        WHERE dataset_id = ? AND ((kind = 'charge' AND json_extract(detail, '$.account.role') = 'analyst') OR (kind = 'budget' AND json_extract(detail, '$.analyst.id') IS NOT NULL))
        GROUP BY 1 ORDER BY name`
    )
    .all(datasetId) as Array<{ id: number; name: string; charges: number }>
  const f = inspectWorkspace(db)
  return rows
    .filter((r) => onlyAccount === null || r.id === onlyAccount)
    .map((r) => {
      const spent = unitSpend(db, datasetId, f, r.id).spentNano
      const budget = perUnitBudget(db, datasetId, f, r.id).nano
      return {
        accountId: r.id,
        name: r.name,
        spentPerUnit: nanoToNumber(spent),
        spentPerUnitExact: nanoToDecimal(spent),
        budgetPerUnitExact: budget === null ? null : nanoToDecimal(budget),
        remainingPerUnitExact: budget === null ? null : nanoToDecimal(budget - spent),
        releases: r.charges
      }
    })
}

export function ledgerSummary(db: Db, req: { datasetId?: number; cellLimit?: number; onlyAccount?: number | null }): LedgerSummary {
  let ids: number[]
  if (req.datasetId !== undefined) ids = [req.datasetId]
  else {
    const fromLedger = (db.prepare('SELECT DISTINCT dataset_id AS id FROM ledger_entries').all() as Array<{ id: number }>).map((r) => r.id)
    const live = (db.prepare('SELECT id FROM datasets').all() as Array<{ id: number }>).map((r) => r.id)
    ids = [...new Set([...live, ...fromLedger])].sort((a, b) => a - b)
  }
  const head = headOf(db)
  return {
    datasets: ids.map((id) => datasetLedger(db, id, req.cellLimit ?? 50, req.onlyAccount ?? null)),
    notionsNote: NOTIONS_NOTE,
    entries: head.seq,
    headHash: head.hash,
    unsignedActsInForce: unsignedActsInForce(inspectWorkspace(db))
  }
}

/** With no officer registered: how many budgets and public declarations in force nobody signed (0 once an officer is). */
export function unsignedActsInForce(f: TrustFindings): number {
  return f.registry.verified.length > 0 ? 0 : f.officerActs.filter((e) => !e.signer && f.actInForce(e)).length
}
