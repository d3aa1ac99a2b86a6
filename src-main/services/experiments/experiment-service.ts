/**
 * The experiments service: plans specs and presets, stores experiments and their cells, runs them as jobs on the worker
 * pool, resumes what is missing, and reports live progress. An experiment is running exactly while this service holds
 * it in `live`: a stored "running" experiment it does not hold (its process stopped) reads as interrupted.
 */
import { randomUUID } from 'node:crypto'
import { callingAccount } from '../platform/caller'
import type {
  ExperimentDetail,
  ExperimentSpec,
  ExperimentStatus,
  ExperimentSummary,
  SweepJobResult,
  ValidationOutcome
} from '../../contract/experiments'
import { UserError } from '../platform/errors'
import { coarseTimes } from '../platform/shown-time'
import type { ServiceContext } from '../platform/handler-types'
import { experimentCsv } from './csv-export'
import { engineAdapter } from './engines'
import { PRESETS, findPreset } from './presets'
import { type ExperimentRow, ExperimentRepository } from './repository'
import { type LiveStatus, type MissingCell, runExperiment } from './runner'
import { type ExperimentPlan, planExperiment } from './spec'

export interface ExperimentsOptions {
  /** Folder relative workload paths are resolved against (default: the working directory). */
  cwd?: string
}

const PRESET_NAMES = PRESETS.map((p) => p.name).join(', ')

export class ExperimentService {
  private readonly repo: ExperimentRepository
  /** Experiments running in this process, with their progress. */
  private readonly live = new Map<string, LiveStatus>()

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: ExperimentsOptions = {}
  ) {
    this.repo = new ExperimentRepository(ctx.store)
  }

  private workloadContext() {
    return { cwd: this.options.cwd ?? process.cwd(), store: this.ctx.store }
  }

  /** An analyst account's own experiments only; the officer, the custodian and the workbench read all. */
  private mayRead(row: ExperimentRow): boolean {
    const who = callingAccount()
    return !who || who.role !== 'analyst' || row.ownerAccount === who.id
  }

  /** A stored experiment the caller may read (another analyst's answers as if it did not exist). */
  private mustGet(id: string): ExperimentRow {
    const row = this.repo.get(id)
    if (!row || !this.mayRead(row)) throw new UserError(`There is no experiment with id "${id.slice(0, 60)}"; list the experiments to find it.`)
    return row
  }

  private statusOf(row: ExperimentRow): ExperimentStatus {
    return row.status === 'running' && !this.live.has(row.id) ? 'interrupted' : row.status
  }

  private summary(row: ExperimentRow): ExperimentSummary {
    return {
      id: row.id,
      name: row.name,
      engine: row.engine,
      simulation: true,
      seed: row.seed,
      status: this.statusOf(row),
      cellsTotal: row.cellsTotal,
      cellsDone: row.cellsDone,
      cellsFailed: row.cellsFailed,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      jobId: this.live.get(row.id)?.jobId ?? null
    }
  }

  /** The spec's plan, or one sentence naming its first problem (and how many more there are). */
  private async plan(raw: unknown): Promise<ExperimentPlan> {
    const out = await planExperiment(raw, this.workloadContext())
    if (!out.ok) {
      const more = out.errors.length - 1
      throw new UserError(
        more > 0 ? `${out.errors[0]} (${more} more problem${more > 1 ? 's' : ''}: validate the spec to see all.)` : out.errors[0],
        'bad-spec'
      )
    }
    return out.plan
  }

  /** Runs the missing cells as a job; the experiment is live until the job ends, however it ends. */
  private launch(id: string, spec: ExperimentSpec, p: ExperimentPlan, missing: MissingCell[], cellsTotal: number): string {
    const status: LiveStatus = { jobId: '', cellsDone: cellsTotal - missing.length, cellsTotal, trialsDone: 0, trialsTotal: 0, startedMs: Date.now() }
    this.live.set(id, status)
    const job = this.ctx.jobs.start(
      'experiment',
      `Simulation sweep "${spec.name}" (${cellsTotal} cells)`,
      'trials',
      async (jc): Promise<SweepJobResult> => {
        try {
          return await runExperiment(
            { experimentId: id, spec, adapter: p.adapter, workloads: p.workloads, missing, cellsTotal },
            this.ctx.pool,
            this.repo,
            jc,
            status
          )
        } finally {
          this.live.delete(id)
        }
      }
    )
    status.jobId = job.jobId
    return job.jobId
  }

  /** Every problem of a spec, or its size. */
  async validate(spec: unknown): Promise<ValidationOutcome> {
    const out = await planExperiment(spec, this.workloadContext())
    if (!out.ok) return { ok: false, errors: out.errors }
    return {
      ok: true,
      cells: out.plan.cells.length,
      distinctCells: out.plan.distinctCells,
      trials: out.plan.distinctCells * out.plan.spec.trials,
      engine: out.plan.spec.engine
    }
  }

  /** Stores a new experiment from a spec or a preset, with all its cells pending, and starts it. */
  async start(from: { spec?: unknown; preset?: string }): Promise<{ jobId: string; experimentId: string }> {
    let raw = from.spec
    if (from.preset !== undefined) {
      if (raw !== undefined) throw new UserError('Give either a spec or a preset name, not both.')
      const preset = findPreset(from.preset)
      if (!preset) throw new UserError(`There is no preset "${from.preset.slice(0, 40)}"; choose one of ${PRESET_NAMES}.`)
      raw = preset.spec
    }
    if (raw === undefined) throw new UserError('Give an experiment spec or a preset name.')
    const p = await this.plan(raw)
    const id = randomUUID()
    await this.repo.createChunked(
      id,
      p.spec,
      p.workloads.map((w) => w.info),
      p.cells
    )
    const missing: MissingCell[] = p.cells.map((c) => ({
      index: c.index,
      key: c.key,
      seed: c.seed,
      mechanism: c.mechanism,
      params: c.params,
      workload: p.workloads[c.workload].info.label
    }))
    return { jobId: this.launch(id, p.spec, p, missing, p.cells.length), experimentId: id }
  }

  /** Runs the pending and failed cells of a stored experiment, provided its workloads are the ones it started with. */
  async resume(experimentId: string): Promise<{ jobId: string; experimentId: string }> {
    const row = this.mustGet(experimentId)
    if (this.live.has(row.id)) throw new UserError(`The experiment "${row.name}" is running already; wait for it or cancel its job first.`)
    const p = await this.plan(row.spec)
    const changed = p.workloads.find((w) => row.workloads.find((s) => s.label === w.info.label)?.hash !== w.info.hash)
    if (changed || p.cells.length !== row.cellsTotal) {
      throw new UserError(
        `The workload ${changed ? `"${changed.info.label}" ` : ''}changed since the experiment started, so its stored cells no longer match; start a new experiment instead.`
      )
    }
    await this.repo.ensureCells(
      row.id,
      row.spec,
      p.workloads.map((w) => w.info),
      p.cells
    )
    const missing = this.repo.missingCells(row.id)
    this.repo.setStatus(row.id, 'running')
    return { jobId: this.launch(row.id, row.spec, p, missing, row.cellsTotal), experimentId: row.id }
  }

  list(): ExperimentSummary[] {
    return coarseTimes(
      this.repo
        .list()
        .filter((row) => this.mayRead(row))
        .map((row) => this.summary(row)),
      this.ctx.cadenceMs
    )
  }

  /** A stored experiment with its cells, and while it runs, its progress and the job's time-left estimate. */
  get(experimentId: string): ExperimentDetail {
    const row = this.mustGet(experimentId)
    const adapter = engineAdapter(row.engine)
    const l = this.live.get(row.id)
    let live: ExperimentDetail['live'] = null
    if (l) {
      const elapsed = Math.max(1e-3, (Date.now() - l.startedMs) / 1000)
      live = {
        cellsDone: l.cellsDone,
        cellsTotal: l.cellsTotal,
        // A rate dates the moment it was read finer than the service's cadence: the workbench's only.
        ...(this.ctx.cadenceMs === null ? { trialsPerSecond: l.trialsDone / elapsed } : {}),
        // The job's shared time-left estimate (trials weighted by cell cost, smoothed; platform/time-left.ts).
        etaSeconds: this.ctx.jobs.get(l.jobId)?.progress?.etaSeconds ?? null
      }
    }
    const detail: ExperimentDetail = {
      ...this.summary(row),
      spec: row.spec,
      workloads: row.workloads,
      metrics: adapter.metrics.map((m) => ({ name: m.name, description: m.description, kind: m.kind })),
      cells: this.repo.cells(row.id),
      live
    }
    // In the service no time shown is finer than the cadence (the cells' finish times, the last update).
    return coarseTimes(detail, this.ctx.cadenceMs)
  }

  /** The results as CSV, with a file name made from the experiment's name. */
  exportCsv(experimentId: string): { fileName: string; csv: string; rows: number } {
    const row = this.mustGet(experimentId)
    const { csv, rows } = experimentCsv(row, engineAdapter(row.engine), this.repo.cells(row.id))
    const safe =
      row.name
        .replace(/[^A-Za-z0-9._-]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 60) || 'experiment'
    return { fileName: `simulation-${safe}-${row.id.slice(0, 8)}.csv`, csv, rows }
  }

  /** Deletes a stored experiment that is not running. */
  delete(experimentId: string): boolean {
    const row = this.mustGet(experimentId)
    if (this.live.has(row.id)) throw new UserError(`The experiment "${row.name}" is running; cancel its job before deleting it.`)
    return this.repo.delete(row.id)
  }
}
