/**
 * Gathers what a report shows (`ReportData`) from the ledger, releases, audit events and experiments.
 *
 * It calls the other areas' exported functions where they answer the question (release listing, ledger entry rows,
 * per-cell spend arithmetic, the officer's unlock, the experiment repository) and reads their tables READ-ONLY, in this
 * module only, for what has no function yet:
 * - spend per notion and per cell over a period, and the budget in force at the end of it (ledgerSummary is all-time);
 * - the recorded parameters of a release (ReleaseRecord has none);
 * - denials and unlocks (audit_events), query names, the chain head at the end of the period.
 */
import type Database from 'better-sqlite3'
import type {
  ReportAccount,
  ReportData,
  ReportAnalystSpend,
  ReportDataset,
  ReportDenial,
  ReportEdition,
  ReportExperiment,
  ReportLedgerEntry,
  ReportRelease,
  ReportUnlock
} from '../../contract/reports'
import type { PrivacyNotion, ReleaseAnswer, ReleaseRecord } from '../../contract/ledger'
import { type ReportDecisions, specOfAnswer } from '../../contract/release-kinds'
import type { WorkloadRef } from '../../contract/experiments'
import { UserError, CancelledError, isUserError } from '../platform/errors'
import { lookupDataset } from '../catalog/catalog'
import { datasetUnit } from '../trust/privacy-unit'
import { unitName, unitText } from '../catalog/unit-record'
import { GENESIS_HASH } from '../chain/canonical'
import { type CellKey, cellLabel, cellSpend } from '../ledger/cells'
import type { EntryRow } from '../chain/ledger-chain'
import type { AuditRow } from '../chain/audit-chain'
import { NOTIONS_NOTE, toLedgerEntry } from '../ledger/ledger-views'
import { NOTIONS, NOTION_LABEL } from '../chain/notions'
import { nanoToDecimal } from '../chain/nano-epsilon'
import { type ReleaseView, listReleases, unlockExPost } from '../releases/release-service'
import { engineAdapter } from '../experiments/engines'
import { ExperimentRepository } from '../experiments/repository'
import type { Store } from '../store/store'
import { type Period, inPeriod } from './period'
import type { OfficerKey } from '../trust/officers'
import { openSourceFingerprint, sourceText } from '../trust/source-fingerprint'
import { canonicalJson } from '../chain/canonical'

type Db = Database.Database

export const REPORT_CELL_LIMIT = 25

export interface GatherOptions {
  datasetId: number | null
  period: Period
  edition: ReportEdition
  /** Officer edition: recorded with every unlock. */
  officer?: string
  /** Officer edition: the officer's unlocked key (opens the sealed costs, signs each unlock). */
  officerKey?: OfficerKey
  reason?: string
  signal?: AbortSignal
  /** Called as releases are gathered (the slow part of an officer edition). */
  onProgress?: (done: number, total: number) => void
  /** How releases are shown (the service hides an answer until its recorded time); default: as stored. */
  releaseView?: ReleaseView
}

function checkAbort(signal?: AbortSignal): void {
  if (signal?.aborted) throw new CancelledError()
}

/** The dataset's name as reports show it: the current one, else the last one the ledger recorded. Null if unknown. */
export function resolveDatasetName(db: Db, datasetId: number): string | null {
  return lookupDataset(db, datasetId, { includeDeleted: true })?.name ?? null
}

/** A dataset given by id or by name (CLI), current or known to the ledger, or a user error naming what exists. */
export function findDataset(db: Db, given: string | number): { id: number; name: string } {
  const found = lookupDataset(db, given, { includeDeleted: true })
  if (found) return { id: found.id, name: found.name }
  throw new UserError(`There is no dataset "${String(given).slice(0, 60)}" in this workspace; list them with "quiet-alarm datasets"`, 'not-found')
}

// ---------------------------------------------------------------------------------------------------------------
// Summary: spend per notion and per cell, budgets, remaining (as of the end of the period)

/**
 * Per dataset: its notions' accounts and the figure per unit (the ledger's rules, ledger/accounts.ts): the spend
 * per unit is the sum over notions of each notion's spend; the budget per unit is the latest budget set without a notion
 * (without one, the sum of the notions' own budgets); a notion's budget is its own cap; a notion's remaining is the
 * smaller of what its cap and the budget per unit leave.
 */
interface DatasetFigures {
  accounts: ReportAccount[]
  byAnalyst: ReportAnalystSpend[]
  spentPerUnitInPeriodNano: number
  spentPerUnitTotalNano: number
  budgetPerUnitNano: number | null
}

function accountsFor(db: Db, datasetIds: number[], period: Period): Map<number, DatasetFigures> {
  const charges = db
    .prepare(
      `SELECT c.dataset_id AS datasetId, c.notion AS notion, c.cell AS cell, c.amount_nano AS nano, e.at AS at, ${ANALYST_OF_CHARGE} AS analyst
       FROM ledger_cell_charges c JOIN ledger_entries e ON e.seq = c.entry_seq WHERE e.at < ?`
    )
    .all(period.to) as Array<{ datasetId: number; notion: PrivacyNotion; cell: CellKey; nano: number; at: string; analyst: number | null }>
  // The dataset's budgets and, apart, each analyst account's own (hashed detail.analyst), in ledger order.
  const allBudgets = db
    .prepare(
      `SELECT dataset_id AS datasetId, notion, amount_nano AS nano, json_extract(detail, '$.analyst.id') AS analyst,
              json_extract(detail, '$.analyst.name') AS analystName
         FROM ledger_entries WHERE kind = 'budget' AND at < ? ORDER BY seq`
    )
    .all(period.to) as Array<{ datasetId: number; notion: PrivacyNotion | null; nano: number; analyst: number | null; analystName: string | null }>
  const budgets = allBudgets.filter((b) => b.analyst === null)
  const chargeEntries = db
    .prepare(
      `SELECT dataset_id AS datasetId, notion, at, ${ANALYST_OF_CHARGE} AS analyst, json_extract(detail, '$.account.name') AS analystName
         FROM ledger_entries e WHERE kind = 'charge' AND at < ?`
    )
    .all(period.to) as Array<{ datasetId: number; notion: PrivacyNotion; at: string; analyst: number | null; analystName: string | null }>
  const out = new Map<number, DatasetFigures>()
  for (const id of datasetIds) {
    const accounts: ReportAccount[] = []
    let unitBudget: number | null = null
    for (const b of budgets) if (b.datasetId === id && b.notion === null) unitBudget = b.nano
    const spentOf = (notion: PrivacyNotion, inWindow: boolean) =>
      cellSpend(
        charges
          .filter((c) => c.datasetId === id && c.notion === notion && (!inWindow || inPeriod(c.at, period)))
          .map((c) => ({ cell: c.cell, nano: c.nano }))
      ).maxNano
    const spentPerUnitTotalNano = NOTIONS.reduce((sum, n) => sum + spentOf(n, false), 0)
    const spentPerUnitInPeriodNano = NOTIONS.reduce((sum, n) => sum + spentOf(n, true), 0)
    let capSum = 0
    let anyCap = false
    for (const notion of NOTIONS) {
      const mine = charges.filter((c) => c.datasetId === id && c.notion === notion)
      const total = cellSpend(mine.map((c) => ({ cell: c.cell, nano: c.nano })))
      const within = cellSpend(mine.filter((c) => inPeriod(c.at, period)).map((c) => ({ cell: c.cell, nano: c.nano })))
      const withinByCell = new Map(within.cells.map((c) => [c.cell, c.totalNano]))
      let budget: number | null = null
      for (const b of budgets) if (b.datasetId === id && b.notion === notion) budget = b.nano
      if (budget !== null) {
        capSum += budget
        anyCap = true
      }
      const capLeft = budget === null ? null : budget - total.maxNano
      const unitLeft = unitBudget === null ? null : unitBudget - spentPerUnitTotalNano
      const left = capLeft === null ? unitLeft : unitLeft === null ? capLeft : Math.min(capLeft, unitLeft)
      accounts.push({
        notion,
        label: NOTION_LABEL[notion],
        budgetExact: budget === null ? null : nanoToDecimal(budget),
        spentInPeriodExact: nanoToDecimal(within.maxNano),
        spentTotalExact: nanoToDecimal(total.maxNano),
        remainingExact: left === null ? null : nanoToDecimal(left),
        releasesInPeriod: chargeEntries.filter((e) => e.datasetId === id && e.notion === notion && inPeriod(e.at, period)).length,
        cells: total.cells.slice(0, REPORT_CELL_LIMIT).map((c) => ({
          key: c.cell,
          label: cellLabel(c.cell),
          inPeriodExact: nanoToDecimal(withinByCell.get(c.cell) ?? 0),
          totalExact: nanoToDecimal(c.totalNano)
        })),
        cellCount: total.cells.length
      })
    }
    out.set(id, {
      accounts,
      byAnalyst: analystFigures(
        charges.filter((c) => c.datasetId === id),
        chargeEntries.filter((e) => e.datasetId === id),
        allBudgets.filter((b) => b.datasetId === id),
        period
      ),
      spentPerUnitInPeriodNano,
      spentPerUnitTotalNano,
      budgetPerUnitNano: unitBudget ?? (anyCap ? capSum : null)
    })
  }
  return out
}

/** The analyst account whose call wrote a charge entry `e` (hashed detail.account), or null (the workbench, another role). */
const ANALYST_OF_CHARGE = `CASE WHEN json_extract(e.detail, '$.account.role') = 'analyst' THEN json_extract(e.detail, '$.account.id') END`

/**
 * Spend per analyst account on one dataset: each account's own charges, per unit summed over notions (the ledger's
 * rules, as for the dataset), and its own budget per unit at the end of the period (without one, the sum of its own
 * notion caps; null when it has none).
 */
function analystFigures(
  charges: Array<{ notion: PrivacyNotion; cell: CellKey; nano: number; at: string; analyst: number | null }>,
  entries: Array<{ at: string; analyst: number | null; analystName: string | null }>,
  budgets: Array<{ notion: PrivacyNotion | null; nano: number; analyst: number | null; analystName: string | null }>,
  period: Period
): ReportAnalystSpend[] {
  const names = new Map<number, string>()
  for (const e of entries) if (e.analyst !== null) names.set(e.analyst, e.analystName ?? `account ${e.analyst}`)
  for (const b of budgets) if (b.analyst !== null) names.set(b.analyst, b.analystName ?? `account ${b.analyst}`)
  return [...names]
    .sort((a, b) => a[1].localeCompare(b[1]))
    .map(([account, name]) => {
      const mine = charges.filter((c) => c.analyst === account)
      const spent = (inWindow: boolean) =>
        NOTIONS.reduce(
          (sum, n) =>
            sum +
            cellSpend(mine.filter((c) => c.notion === n && (!inWindow || inPeriod(c.at, period))).map((c) => ({ cell: c.cell, nano: c.nano })))
              .maxNano,
          0
        )
      let unit: number | null = null
      const caps = new Map<PrivacyNotion, number>()
      for (const b of budgets) {
        if (b.analyst !== account) continue
        if (b.notion === null) unit = b.nano
        else caps.set(b.notion, b.nano)
      }
      const budget = unit ?? (caps.size > 0 ? [...caps.values()].reduce((a, b) => a + b, 0) : null)
      return {
        accountId: account,
        name,
        spentInPeriodExact: nanoToDecimal(spent(true)),
        spentTotalExact: nanoToDecimal(spent(false)),
        budgetExact: budget === null ? null : nanoToDecimal(budget),
        releasesInPeriod: entries.filter((e) => e.analyst === account && inPeriod(e.at, period)).length
      }
    })
}

function datasetIdsInScope(db: Db, scope: number | null, period: Period): number[] {
  if (scope !== null) return [scope]
  const fromLedger = (db.prepare('SELECT DISTINCT dataset_id AS id FROM ledger_entries WHERE at < ?').all(period.to) as Array<{ id: number }>).map(
    (r) => r.id
  )
  const live = (db.prepare('SELECT id FROM datasets WHERE created_at < ?').all(period.to) as Array<{ id: number }>).map((r) => r.id)
  return [...new Set([...live, ...fromLedger])].sort((a, b) => a - b)
}

// ---------------------------------------------------------------------------------------------------------------
// Releases

/** At most this many flagged predicates (records, individuals) are named per release in a report; the rest are counted. */
export const FLAGGED_NAMED = 12

function decisions(answer: ReleaseAnswer | null): ReportDecisions {
  return answer === null ? { asked: null, flagged: null, flaggedNames: [] } : specOfAnswer(answer).reportDecisions(answer, FLAGGED_NAMED)
}

function releaseParams(db: Db): Map<number, Record<string, string | number | boolean | null>> {
  const rows = db.prepare('SELECT id, params FROM releases').all() as Array<{ id: number; params: string }>
  const out = new Map<number, Record<string, string | number | boolean | null>>()
  for (const r of rows) {
    try {
      const p = JSON.parse(r.params) as Record<string, unknown>
      const flat: Record<string, string | number | boolean | null> = {}
      for (const [k, v] of Object.entries(p)) {
        // A linked source's fingerprint is sealed to the officers: the officer edition opens it below.
        if (k === 'source') {
          flat[k] = sourceText(v)
          continue
        }
        flat[k] =
          v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) ? v : JSON.stringify(v)
      }
      out.set(r.id, flat)
    } catch {
      out.set(r.id, {})
    }
  }
  return out
}

/** A release's recorded linked source (sealed fingerprint), or undefined for an imported dataset. */
function rawSource(db: Db, releaseId: number): unknown {
  const row = db.prepare('SELECT params FROM releases WHERE id = ?').get(releaseId) as { params: string } | undefined
  try {
    return row ? (JSON.parse(row.params) as { source?: unknown }).source : undefined
  } catch {
    return undefined
  }
}

function toReportRelease(r: ReleaseRecord, params: Record<string, string | number | boolean | null>): ReportRelease {
  return {
    releaseId: r.releaseId,
    createdAt: r.createdAt,
    datasetId: r.datasetId,
    datasetName: r.datasetName,
    queryId: r.queryId,
    queryName: r.queryName,
    kind: r.kind,
    mechanism: r.mechanism,
    notion: r.notion,
    params,
    chargeExact: r.epsilonExact,
    ledgerSeq: r.ledgerSeq,
    status: r.status,
    ...decisions(r.answer)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Audit events: denials and unlocks

/** The fields of an audit event that reports show (not its hash-chain fields). */
type AuditEvent = Pick<AuditRow, 'id' | 'at' | 'kind' | 'actor' | 'subject' | 'detail'>

function parseDetail(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : null)
const int = (v: unknown): number | null =>
  typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null

function auditEvents(db: Db, kind: string, period: Period): AuditEvent[] {
  const rows = db
    .prepare('SELECT id, at, kind, actor, subject, detail FROM audit_events WHERE kind = ? AND at < ? ORDER BY at, id')
    .all(kind, period.to) as AuditEvent[]
  return rows.filter((r) => inPeriod(r.at, period))
}

function queryNames(db: Db): Map<number, string> {
  return new Map((db.prepare('SELECT id, name FROM queries').all() as Array<{ id: number; name: string }>).map((r) => [r.id, r.name]))
}

// ---------------------------------------------------------------------------------------------------------------
// Experiments (simulations)

function experimentsFor(store: Store, scope: number | null, period: Period): ReportExperiment[] {
  const db = store.db
  const repo = new ExperimentRepository(store)
  const queryDataset =
    scope === null
      ? new Map<number, number>()
      : new Map(
          (db.prepare('SELECT id, dataset_id FROM queries').all() as Array<{ id: number; dataset_id: number }>).map((r) => [r.id, r.dataset_id])
        )
  const touchesScope = (workloads: WorkloadRef[]) => workloads.some((w) => w.kind === 'saved-query' && queryDataset.get(Number(w.queryId)) === scope)
  const rows = repo
    .list()
    .filter((e) => inPeriod(e.createdAt, period))
    .filter((e) => scope === null || touchesScope(e.spec.workloads ?? []))
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1))
  return rows.map((e) => {
    let metricDefs: Array<{ name: string; description: string }> = []
    try {
      metricDefs = engineAdapter(e.engine).metrics.map((m) => ({ name: m.name, description: m.description }))
    } catch {
      metricDefs = []
    }
    const cells = repo.cells(e.id)
    return {
      id: e.id,
      name: e.name,
      engine: e.engine,
      simulation: true as const,
      seed: e.seed,
      status: e.status,
      createdAt: e.createdAt,
      cellsTotal: e.cellsTotal,
      cellsDone: e.cellsDone,
      metrics: metricDefs,
      cells: cells.map((c) => ({
        index: c.index,
        sweep: c.sweep,
        workload: c.workload,
        mechanism: c.mechanism,
        params: c.params,
        trials: c.trials,
        status: c.status,
        metrics: Object.fromEntries(
          metricDefs
            .filter((m) => c.metrics?.[m.name] !== undefined)
            .map((m) => {
              const v = c.metrics![m.name]
              const fin = (x: number | null) => (x === null || !Number.isFinite(x) ? null : x)
              return [m.name, { mean: fin(v.mean), ciLow: fin(v.ciLow), ciHigh: fin(v.ciHigh), n: v.n }]
            })
        )
      }))
    }
  })
}

// ---------------------------------------------------------------------------------------------------------------

/** Everything the report shows. The officer edition unlocks (and thereby records) the sealed costs of each release. */
export async function gatherReportData(store: Store, o: GatherOptions): Promise<ReportData> {
  const db = store.db
  const { period } = o
  const scope = o.datasetId
  const scopeName = scope === null ? null : resolveDatasetName(db, scope)
  if (scope !== null && scopeName === null) throw new UserError(`There is no dataset with id ${scope} in this workspace`, 'not-found')
  if (o.edition === 'officer') {
    if (!o.officerKey)
      throw new UserError(
        "The officer edition opens the sealed costs with the officer's key: give the officer's passphrase; each unlock is recorded",
        'forbidden'
      )
  }
  checkAbort(o.signal)

  // Ledger entries in the period (their own conversion), and the chain head at the end of the period.
  const entryRows = db
    .prepare(`SELECT * FROM ledger_entries WHERE at < ? ${scope === null ? '' : 'AND dataset_id = ?'} ORDER BY seq`)
    .all(...(scope === null ? [period.to] : [period.to, scope])) as EntryRow[]
  const ledgerEntries: ReportLedgerEntry[] = entryRows
    .filter((r) => inPeriod(r.at, period))
    .map((r) => {
      const e = toLedgerEntry(r)
      return {
        seq: e.seq,
        at: e.at,
        kind: e.kind,
        datasetId: e.datasetId,
        datasetName: e.datasetName,
        notion: e.notion,
        amountExact: e.epsilonExact,
        cellCount: e.cellCount,
        releaseId: e.releaseId,
        actor: e.actor,
        description: e.description,
        prevHash: e.prevHash,
        hash: e.hash
      }
    })
  const headRow = db.prepare('SELECT seq, hash FROM ledger_entries WHERE at < ? ORDER BY seq DESC LIMIT 1').get(period.to) as
    { seq: number; hash: string } | undefined
  const ledgerHead = headRow ?? { seq: 0, hash: GENESIS_HASH }

  const ids = datasetIdsInScope(db, scope, period)
  const accounts = accountsFor(db, ids, period)
  const datasets: ReportDataset[] = ids.map((id) => {
    const f = accounts.get(id)!
    const unit = datasetUnit(db, id)
    return {
      datasetId: id,
      datasetName: resolveDatasetName(db, id) ?? `dataset ${id}`,
      unit: unitName(unit),
      unitText: unitText(unit),
      spentPerUnitInPeriodExact: nanoToDecimal(f.spentPerUnitInPeriodNano),
      spentPerUnitTotalExact: nanoToDecimal(f.spentPerUnitTotalNano),
      budgetPerUnitExact: f.budgetPerUnitNano === null ? null : nanoToDecimal(f.budgetPerUnitNano),
      remainingPerUnitExact: f.budgetPerUnitNano === null ? null : nanoToDecimal(f.budgetPerUnitNano - f.spentPerUnitTotalNano),
      accounts: f.accounts,
      byAnalyst: f.byAnalyst
    }
  })
  checkAbort(o.signal)

  // Releases: the release service's records, with their recorded parameters.
  const params = releaseParams(db)
  const records = listReleases(db, scope ?? undefined, { view: o.releaseView }).filter((r) => inPeriod(r.createdAt, period))
  const releases: ReportRelease[] = []
  const total = records.length
  for (let i = 0; i < records.length; i++) {
    const r = records[i]
    const rel = toReportRelease(r, params.get(r.releaseId) ?? {})
    if (o.edition === 'officer') {
      let exPost: ReportRelease['exPost'] = { spentMax: null, queries: null, sealed: false }
      if (r.status === 'answered') {
        try {
          const x = unlockExPost(db, { releaseId: r.releaseId, reason: o.reason?.trim() || 'audit report (officer edition)' }, o.officerKey)
          exPost = { spentMax: Number.isFinite(x.spentMax) ? x.spentMax : null, queries: x.queries ?? null, sealed: true }
        } catch (e) {
          if (!isUserError(e)) throw e
        }
      }
      rel.exPost = exPost
      const source = rawSource(db, r.releaseId)
      if (source !== undefined) {
        const opened = openSourceFingerprint(source, r.datasetId, o.officerKey!)
        rel.params = { ...rel.params, source: opened === null ? sourceText(source) : canonicalJson(opened) }
      }
    }
    releases.push(rel)
    if (i % 50 === 49) {
      o.onProgress?.(i + 1, total)
      checkAbort(o.signal)
      await new Promise((res) => setImmediate(res))
    }
  }
  o.onProgress?.(total, total)

  // Denials and unlocks.
  const names = queryNames(db)
  const releaseDataset = new Map(
    (db.prepare('SELECT id, dataset_id FROM releases').all() as Array<{ id: number; dataset_id: number }>).map((r) => [r.id, r.dataset_id])
  )
  const denials: ReportDenial[] = auditEvents(db, 'release/denied', period)
    .map((a): ReportDenial => {
      const d = parseDetail(a.detail)
      const datasetId = a.subject?.startsWith('dataset:') ? int(a.subject.slice(8)) : null
      const queryId = int(d.queryId)
      return {
        auditId: a.id,
        at: a.at,
        actor: a.actor,
        datasetId,
        datasetName: datasetId === null ? null : resolveDatasetName(db, datasetId),
        queryId,
        queryName: queryId === null ? null : (names.get(queryId) ?? null),
        notion: str(d.notion),
        requestedExact: str(d.requested),
        remainingExact: str(d.remaining),
        budgetExact: str(d.budget)
      }
    })
    .filter((d) => scope === null || d.datasetId === scope)
  const unlocks: ReportUnlock[] = auditEvents(db, 'officer/unlock-ex-post', period)
    .map((a): ReportUnlock => {
      const d = parseDetail(a.detail)
      const releaseId = a.subject?.startsWith('release:') ? int(a.subject.slice(8)) : null
      return { auditId: a.id, at: a.at, officer: a.actor, releaseId, reason: str(d.reason) ?? '' }
    })
    .filter((u) => scope === null || (u.releaseId !== null && releaseDataset.get(u.releaseId) === scope))
  checkAbort(o.signal)

  const experiments = experimentsFor(store, scope, period)

  return {
    schema: 'quiet-alarm-report/1',
    edition: o.edition,
    scope: { datasetId: scope, datasetName: scopeName },
    period: { from: period.from, to: period.to },
    ledgerHead: { seq: ledgerHead.seq, hash: ledgerHead.hash },
    notionsNote: NOTIONS_NOTE,
    totals: {
      ledgerEntries: ledgerEntries.length,
      releases: releases.length,
      denials: denials.length,
      unlocks: unlocks.length,
      experiments: experiments.length
    },
    datasets,
    releases,
    denials,
    unlocks,
    ledgerEntries,
    experiments
  }
}
