/**
 * Ledger content for the report tests, made through the ledger and release services' exported functions (budgets,
 * real releases with the secure generator, a real denial). The dataset itself is written straight into the datasets
 * area's tables (migration 002) and the experiment through the experiments repository, so no worker pool is needed.
 */
import type Database from 'better-sqlite3'
import type { QueryDefinition } from '../../../src-main/contract/datasets'
import type { ReleaseParams, ReleaseRecord } from '../../../src-main/contract/ledger'
import type { ExperimentSpec, MetricSummary } from '../../../src-main/contract/experiments'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { ExperimentRepository } from '../../../src-main/services/experiments/repository'
import type { Store } from '../../../src-main/services/store/store'
import { officerAct } from '../officer-fixture'

export function craftDataset(
  db: Database.Database,
  name: string,
  columns: Array<{ name: string; type: 'integer' | 'text' }>,
  rows: Array<Array<string | number>>
): number {
  return db.transaction(() => {
    const id = Number(
      db
        .prepare(`INSERT INTO datasets (name, table_name, source_file, source_bytes, delimiter, row_count) VALUES (?, ?, 'crafted.csv', 0, ',', ?)`)
        .run(name, `pending_${name}`, rows.length).lastInsertRowid
    )
    const table = `ds_${id}`
    db.prepare('UPDATE datasets SET table_name = ? WHERE id = ?').run(table, id)
    db.exec(`CREATE TABLE ${table} (${columns.map((c, i) => `c${i + 1} ${c.type === 'text' ? 'TEXT' : 'INTEGER'}`).join(', ')})`)
    const insCol = db.prepare(
      `INSERT INTO dataset_columns (dataset_id, position, name, sql_name, type, type_source) VALUES (?, ?, ?, ?, ?, 'inferred')`
    )
    columns.forEach((c, i) => insCol.run(id, i + 1, c.name, `c${i + 1}`, c.type))
    const ins = db.prepare(`INSERT INTO ${table} VALUES (${columns.map(() => '?').join(', ')})`)
    for (const r of rows) ins.run(...r)
    return id
  })()
}

export function saveQuery(db: Database.Database, datasetId: number, name: string, definition: QueryDefinition): number {
  return Number(
    db
      .prepare('INSERT INTO queries (dataset_id, name, kind, definition) VALUES (?, ?, ?, ?)')
      .run(datasetId, name, definition.kind, JSON.stringify(definition)).lastInsertRowid
  )
}

/** Rooms of two buildings with occupancy rows: room r of building b has (r * 3 + b) rows; hours of presence 1..12. */
export function occupancyRows(): Array<Array<string | number>> {
  const rows: Array<Array<string | number>> = []
  let person = 0
  for (const b of ['A', 'B']) {
    for (let r = 1; r <= 6; r++) {
      const n = r * 3 + (b === 'A' ? 0 : 1)
      for (let i = 0; i < n; i++) rows.push([b, `${b}-${100 + r}`, `p${person++ % 40}`, 1 + ((person * 7) % 12)])
    }
  }
  return rows
}

export interface Workspace {
  datasetId: number
  otherDatasetId: number
  releases: ReleaseRecord[]
  /** Releases charged whose mechanism failed (threshold mechanisms not in this build yet). */
  failedReleases: number
  denials: number
}

export const FORMULA_NAME = '=HYPERLINK("http://x","y")'

/**
 * Waits until every release's padded answer time has passed: before it, a release shows as still running without its
 * answer (release-service `toRecord`), as the analyst would see it during the hold.
 */
export async function settleReleases(db: Database.Database): Promise<void> {
  const last = db.prepare('SELECT max(answered_at) FROM releases').pluck().get() as string | null
  const ms = last === null ? 0 : Date.parse(last) - Date.now() + 5
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms))
}

function tryRelease(db: Database.Database, queryId: number, params: ReleaseParams, actor: string, out: ReleaseRecord[]): 'ok' | 'failed' | 'denied' {
  try {
    out.push(runRelease(db, { queryId, params, actor }))
    return 'ok'
  } catch (e) {
    const code = (e as { code?: string }).code
    if (code === 'denied') return 'denied'
    // Charged, but the mechanism is not available (or failed): the release stays in the ledger as failed.
    if (code === 'release-failed' || code === 'not-implemented') return 'failed'
    throw e
  }
}

/**
 * Budgets and `releases` releases of three kinds on "occupancy" (threshold by building x room, anomaly identification,
 * anomaly search on "person-hours"), one release on a second dataset whose query name is a spreadsheet formula, and
 * one denial.
 */
export function populateWorkspace(db: Database.Database, releases: number): Workspace {
  const datasetId = craftDataset(
    db,
    'occupancy',
    [
      { name: 'building', type: 'text' },
      { name: 'room', type: 'text' },
      { name: 'person', type: 'text' },
      { name: 'hours', type: 'integer' }
    ],
    occupancyRows()
  )
  const personRows: Array<Array<string | number>> = Array.from({ length: 40 }, (_, i) => [`p${i}`, i === 17 ? 300 : 10 + i])
  const otherDatasetId = craftDataset(
    db,
    'person-hours',
    [
      { name: 'person', type: 'text' },
      { name: 'hours', type: 'integer' }
    ],
    personRows
  )
  setBudget(db, { datasetId, epsilon: String(20 + releases * 2), reason: 'Fire-safety review budget', ...officerAct(db, 'Olga Officer') })
  // The budget per person covers every search (epsilon 10 each, one in three releases) and leaves 4 (one
  // budget per person, summed over notions; the search's notion budget below is an extra cap).
  setBudget(db, {
    datasetId: otherDatasetId,
    epsilon: String(4 + 10 * Math.floor(releases / 3)),
    reason: 'Person-hours review',
    ...officerAct(db, 'Olga Officer')
  })
  setBudget(db, {
    datasetId: otherDatasetId,
    epsilon: String(20 + releases * 10),
    notion: 'anomaly-restricted-dp',
    reason: 'Search budget',
    ...officerAct(db, 'Olga Officer')
  })
  const threshold = saveQuery(db, datasetId, 'Rooms over the limit', {
    kind: 'threshold',
    groupBy: ['building', 'room'],
    count: { kind: 'rows' },
    threshold: { kind: 'constant', value: 9 },
    groups: [...new Set(occupancyRows().map((r) => JSON.stringify([r[0], r[1]])))].map((k) => JSON.parse(k) as string[])
  })
  const aiq = saveQuery(db, datasetId, 'Unusual presence', {
    kind: 'anomaly-identification',
    columns: ['building', 'hours'],
    binWidths: [null, 1],
    metric: 'l1',
    radius: 1,
    maxNeighbours: 3,
    k: 2,
    records: [
      ['A', 3],
      ['B', 11],
      ['A', 12]
    ]
  })
  const search = saveQuery(db, otherDatasetId, FORMULA_NAME, {
    kind: 'anomaly-search',
    scoreColumn: 'hours',
    idColumn: 'person',
    individuals: personRows.map((r) => String(r[0])),
    tLow: 60,
    tHigh: 200,
    epsilonPerQuery: 0.5,
    budget: 10,
    oracle: 'direct',
    top: 4
  })
  const out: ReleaseRecord[] = []
  let failedReleases = 0
  for (let i = 0; i < releases; i++) {
    const which = i % 3
    const r =
      which === 0
        ? tryRelease(db, threshold, { kind: 'threshold', mechanism: 'ppwlm', beta: 0.05, alpha: 2 }, 'ana analyst', out)
        : which === 1
          ? tryRelease(db, aiq, { kind: 'anomaly-identification', mechanism: i % 2 ? 'sp' : 'dp', epsilon: 0.25 }, 'ana analyst', out)
          : tryRelease(db, search, { kind: 'anomaly-search' }, '-ana', out)
    if (r === 'failed') failedReleases++
    if (r === 'denied') throw new Error(`fixture release ${i} was denied`)
  }
  // A denial: an eps-DP request far beyond what remains of person-hours' budget of 4.
  const denied = saveQuery(db, otherDatasetId, 'Heavy users', {
    kind: 'anomaly-identification',
    columns: ['hours'],
    binWidths: [10],
    metric: 'l1',
    radius: 1,
    maxNeighbours: 3,
    k: 2,
    records: [[300]]
  })
  const d = tryRelease(db, denied, { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 50 }, 'ana analyst', out)
  return { datasetId, otherDatasetId, releases: out, failedReleases, denials: d === 'denied' ? 1 : 0 }
}

const metric = (mean: number, n: number): MetricSummary => ({
  mean,
  sd: 0.01,
  n,
  ciLow: Math.max(0, mean - 0.02),
  ciHigh: mean + 0.02,
  interval: 'normal'
})

/** A finished simulation experiment (threshold engine, alpha sweep, two mechanisms) through the repository. */
export function storeExperiment(store: Store): string {
  const repo = new ExperimentRepository(store)
  const id = 'exp-report-test-0001'
  const spec: ExperimentSpec = {
    version: 1,
    name: 'Alpha sweep (report test)',
    engine: 'threshold',
    workloads: [{ kind: 'csv', path: 'w.csv', label: 'taxi-L' }],
    sweeps: [{ label: 'alpha sweep', mechanisms: ['tslm', 'ppwlm'], grid: { alpha: [1, 10, 20, 40] } }],
    trials: 50,
    seed: 'report-seed'
  }
  const cells = ['tslm', 'ppwlm'].flatMap((mechanism, mi) =>
    [1, 10, 20, 40].map((alpha, ai) => ({
      index: mi * 4 + ai,
      sweep: 'alpha sweep',
      workload: 0,
      mechanism,
      params: { alpha, beta: 0.05 },
      key: `${mechanism}|${alpha}`,
      seed: `s${mi}${ai}`
    }))
  )
  repo.create(id, spec, [{ label: 'taxi-L', source: 'w.csv', hash: 'h', facts: { predicates: 10 } }], cells)
  for (const c of cells) {
    const a = c.params.alpha as number
    const base = c.mechanism === 'tslm' ? 0.02 : 0.03
    repo.storeResult(id, c.key, {
      status: 'done',
      metrics: {
        fnr: metric(base + a / 1000, 50),
        fpr: metric(0.1 + a / 400, 50),
        epsilonExPost: metric(3 / a + (c.mechanism === 'ppwlm' ? 0 : 0.5), 50),
        minEntropy: metric(0.5 + a / 100, 50)
      },
      extras: null,
      computeMs: 1
    })
  }
  repo.setStatus(id, 'done')
  return id
}
