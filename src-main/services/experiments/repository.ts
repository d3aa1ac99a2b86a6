/** SQL for experiments and their cells (migration 004). Everything stored here is a simulation. */
import type {
  CellResult,
  CellStatus,
  ExperimentEngine,
  ExperimentSpec,
  ExperimentStatus,
  MetricSummary,
  ParamValue,
  WorkloadInfo
} from '../../contract/experiments'
import type { Store } from '../store/store'
import { callingAccount } from '../platform/caller'
import type { PlannedCell } from './spec'

export interface ExperimentRow {
  id: string
  name: string
  engine: ExperimentEngine
  seed: string
  spec: ExperimentSpec
  workloads: WorkloadInfo[]
  status: Exclude<ExperimentStatus, 'interrupted'>
  cellsTotal: number
  cellsDone: number
  cellsFailed: number
  createdAt: string
  updatedAt: string
  /** The service account that started it; null in the workbench. */
  ownerAccount: number | null
}

interface RawExperiment {
  id: string
  name: string
  engine: ExperimentEngine
  seed: string
  spec: string
  workloads: string
  status: ExperimentRow['status']
  cells_total: number
  created_at: string
  updated_at: string
  account_id: number | null
  done: number
  failed: number
}

interface RawCell {
  cell_index: number
  cell_key: string
  sweep: string
  workload: string
  mechanism: string
  params: string
  seed: string
  trials: number
  status: CellStatus
  error: string | null
  metrics: string | null
  extras: string | null
  finished_at: string | null
}

const SELECT_EXPERIMENT = `SELECT e.*,
  (SELECT count(*) FROM experiment_cells c WHERE c.experiment_id = e.id AND c.status = 'done') AS done,
  (SELECT count(*) FROM experiment_cells c WHERE c.experiment_id = e.id AND c.status = 'failed') AS failed
  FROM experiments e`

function toRow(r: RawExperiment): ExperimentRow {
  return {
    id: r.id,
    name: r.name,
    engine: r.engine,
    seed: r.seed,
    spec: JSON.parse(r.spec) as ExperimentSpec,
    workloads: JSON.parse(r.workloads) as WorkloadInfo[],
    status: r.status,
    cellsTotal: r.cells_total,
    cellsDone: r.done,
    cellsFailed: r.failed,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ownerAccount: r.account_id
  }
}

function toCell(r: RawCell): CellResult {
  return {
    index: r.cell_index,
    key: r.cell_key,
    sweep: r.sweep,
    workload: r.workload,
    mechanism: r.mechanism,
    params: JSON.parse(r.params) as Record<string, ParamValue>,
    seed: r.seed,
    trials: r.trials,
    status: r.status,
    error: r.error,
    metrics: r.metrics ? (JSON.parse(r.metrics) as Record<string, MetricSummary>) : null,
    extras: r.extras ? (JSON.parse(r.extras) as Record<string, number | null>) : null,
    finishedAt: r.finished_at
  }
}

export type CellOutcome =
  | { key: string; status: 'done'; metrics: Record<string, MetricSummary>; extras: Record<string, number | null> | null; computeMs: number }
  | { key: string; status: 'failed'; error: string }

export class ExperimentRepository {
  constructor(private readonly store: Store) {}

  private get db() {
    return this.store.db
  }

  /** Insert the experiment (status running) and its cells as pending, in one transaction. */
  create(id: string, spec: ExperimentSpec, workloads: WorkloadInfo[], cells: PlannedCell[]): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO experiments (id, name, engine, seed, spec, workloads, status, cells_total, account_id) VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?)`
        )
        .run(
          id,
          spec.name,
          spec.engine,
          String(spec.seed),
          JSON.stringify(spec),
          JSON.stringify(workloads),
          cells.length,
          callingAccount()?.id ?? null
        )
      const insertCell = this.cellInserter()
      for (const c of cells) insertCell(id, spec, workloads, c)
    })()
  }

  /** As `create`, with the cells in chunks and the event loop free in between (large sweeps). */
  async createChunked(id: string, spec: ExperimentSpec, workloads: WorkloadInfo[], cells: PlannedCell[], chunk = 500): Promise<void> {
    // Until every cell is in, the experiment is marked 'cancelled'; a resume inserts any cell still missing (ensureCells).
    this.db
      .prepare(
        `INSERT INTO experiments (id, name, engine, seed, spec, workloads, status, cells_total, account_id) VALUES (?, ?, ?, ?, ?, ?, 'cancelled', ?, ?)`
      )
      .run(id, spec.name, spec.engine, String(spec.seed), JSON.stringify(spec), JSON.stringify(workloads), cells.length, callingAccount()?.id ?? null)
    await this.ensureCells(id, spec, workloads, cells, chunk)
    this.setStatus(id, 'running')
  }

  /** Insert the cells that are not stored yet, as pending (chunked transactions, yielding in between). */
  async ensureCells(id: string, spec: ExperimentSpec, workloads: WorkloadInfo[], cells: PlannedCell[], chunk = 500): Promise<void> {
    const insertCell = this.cellInserter()
    for (let start = 0; start < cells.length; start += chunk) {
      this.db.transaction(() => {
        for (const c of cells.slice(start, start + chunk)) insertCell(id, spec, workloads, c)
      })()
      if (start + chunk < cells.length) await new Promise((r) => setImmediate(r))
    }
  }

  private cellInserter(): (id: string, spec: ExperimentSpec, workloads: WorkloadInfo[], c: PlannedCell) => void {
    const st = this.db.prepare(
      `INSERT OR IGNORE INTO experiment_cells (experiment_id, cell_index, cell_key, sweep, workload, mechanism, params, seed, trials, status)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')`
    )
    return (id, spec, workloads, c) =>
      void st.run(id, c.index, c.key, c.sweep, workloads[c.workload].label, c.mechanism, JSON.stringify(c.params), c.seed, spec.trials)
  }

  get(id: string): ExperimentRow | null {
    const r = this.db.prepare(`${SELECT_EXPERIMENT} WHERE e.id = ?`).get(id) as RawExperiment | undefined
    return r ? toRow(r) : null
  }

  list(): ExperimentRow[] {
    return (this.db.prepare(`${SELECT_EXPERIMENT} ORDER BY e.created_at DESC, e.id`).all() as RawExperiment[]).map(toRow)
  }

  cells(id: string): CellResult[] {
    return (this.db.prepare('SELECT * FROM experiment_cells WHERE experiment_id = ? ORDER BY cell_index').all(id) as RawCell[]).map(toCell)
  }

  /** Cells not stored as done (pending or failed), with their key and seed. */
  missingCells(
    id: string
  ): Array<{ index: number; key: string; seed: string; mechanism: string; params: Record<string, ParamValue>; workload: string }> {
    return (
      this.db
        .prepare(
          `SELECT cell_index, cell_key, seed, mechanism, params, workload FROM experiment_cells WHERE experiment_id = ? AND status != 'done' ORDER BY cell_index`
        )
        .all(id) as Array<{ cell_index: number; cell_key: string; seed: string; mechanism: string; params: string; workload: string }>
    ).map((r) => ({ index: r.cell_index, key: r.cell_key, seed: r.seed, mechanism: r.mechanism, params: JSON.parse(r.params), workload: r.workload }))
  }

  /** Store the results of finished keys for all their cells, in one transaction (sweeps flush a few times a second). */
  storeResults(id: string, results: CellOutcome[]): number {
    if (results.length === 0) return 0
    const now = new Date().toISOString()
    const done = this.db.prepare(
      `UPDATE experiment_cells SET status = 'done', error = NULL, metrics = ?, extras = ?, compute_ms = ?, finished_at = ?
       WHERE experiment_id = ? AND cell_key = ?`
    )
    const failed = this.db.prepare(
      `UPDATE experiment_cells SET status = 'failed', error = ?, finished_at = ? WHERE experiment_id = ? AND cell_key = ?`
    )
    let changes = 0
    this.db.transaction(() => {
      for (const r of results) {
        changes +=
          r.status === 'done'
            ? done.run(JSON.stringify(r.metrics), r.extras ? JSON.stringify(r.extras) : null, r.computeMs, now, id, r.key).changes
            : failed.run(r.error, now, id, r.key).changes
      }
      this.touch(id)
    })()
    return changes
  }

  /** One key's result (see storeResults). */
  storeResult(
    id: string,
    key: string,
    result:
      | { status: 'done'; metrics: Record<string, MetricSummary>; extras: Record<string, number | null> | null; computeMs: number }
      | { status: 'failed'; error: string }
  ): number {
    return this.storeResults(id, [{ key, ...result } as CellOutcome])
  }

  setStatus(id: string, status: ExperimentRow['status']): void {
    this.db.prepare(`UPDATE experiments SET status = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`).run(status, id)
  }

  private touch(id: string): void {
    this.db.prepare(`UPDATE experiments SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`).run(id)
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM experiments WHERE id = ?').run(id).changes > 0
  }
}
