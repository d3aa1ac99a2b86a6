import { randomUUID } from 'node:crypto'
import type {
  ExperimentDetail,
  ExperimentMethods,
  ExperimentSpec,
  ExperimentStatus,
  ExperimentSummary,
  SweepJobResult
} from '../../contract/experiments'
import { UserError } from '../platform/errors'
import type { HandlerMap, ServiceContext } from '../platform/handler-types'
import { experimentCsv } from './csv-export'
import { engineAdapter } from './engines'
import type { LoadedWorkload } from './engines/types'
import { PRESETS, findPreset } from './presets'
import { type ExperimentRow, ExperimentRepository } from './repository'
import { type LiveStatus, type MissingCell, runExperiment } from './runner'
import { type ExperimentPlan, planExperiment } from './spec'

export interface ExperimentsOptions {
  /** Folder relative workload paths are resolved against (default: the working directory). */
  cwd?: string
}

const PRESET_NAMES = PRESETS.map((p) => p.name).join(', ')

/** Handlers of the experiments area (issue 7). */
export function experimentsHandlers(ctx: ServiceContext, options: ExperimentsOptions = {}): HandlerMap<ExperimentMethods> {
  const repo = new ExperimentRepository(ctx.store)
  const live = new Map<string, LiveStatus>()
  const wctx = () => ({ cwd: options.cwd ?? process.cwd(), store: ctx.store })

  function mustGet(id: unknown): ExperimentRow {
    if (typeof id !== 'string' || id === '') throw new UserError('Give the experimentId of a stored experiment.')
    const row = repo.get(id)
    if (!row) throw new UserError(`There is no experiment with id "${id.slice(0, 60)}"; list the experiments to find it.`)
    return row
  }

  function statusOf(row: ExperimentRow): ExperimentStatus {
    return row.status === 'running' && !live.has(row.id) ? 'interrupted' : row.status
  }

  function summary(row: ExperimentRow): ExperimentSummary {
    return {
      id: row.id,
      name: row.name,
      engine: row.engine,
      simulation: true,
      seed: row.seed,
      status: statusOf(row),
      cellsTotal: row.cellsTotal,
      cellsDone: row.cellsDone,
      cellsFailed: row.cellsFailed,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      jobId: live.get(row.id)?.jobId ?? null
    }
  }

  async function plan(raw: unknown): Promise<ExperimentPlan> {
    const out = await planExperiment(raw, wctx())
    if (!out.ok) {
      const more = out.errors.length - 1
      throw new UserError(
        more > 0 ? `${out.errors[0]} (${more} more problem${more > 1 ? 's' : ''}: validate the spec to see all.)` : out.errors[0],
        'bad-spec'
      )
    }
    return out.plan
  }

  function launch(id: string, spec: ExperimentSpec, p: ExperimentPlan, missing: MissingCell[], cellsTotal: number): string {
    const status: LiveStatus = { jobId: '', cellsDone: cellsTotal - missing.length, cellsTotal, trialsDone: 0, trialsTotal: 0, startedMs: Date.now() }
    live.set(id, status)
    const job = ctx.jobs.start(
      'experiment',
      `Simulation sweep "${spec.name}" (${cellsTotal} cells)`,
      'trials',
      async (jc): Promise<SweepJobResult> => {
        try {
          return await runExperiment(
            { experimentId: id, spec, adapter: p.adapter, workloads: p.workloads, missing, cellsTotal },
            ctx.pool,
            repo,
            jc,
            status
          )
        } finally {
          live.delete(id)
        }
      }
    )
    status.jobId = job.jobId
    return job.jobId
  }

  return {
    async 'experiments/presets'() {
      return { presets: PRESETS }
    },

    async 'experiments/validate'(req) {
      const out = await planExperiment(req?.spec, wctx())
      if (!out.ok) return { ok: false, errors: out.errors }
      return {
        ok: true,
        cells: out.plan.cells.length,
        distinctCells: out.plan.distinctCells,
        trials: out.plan.distinctCells * out.plan.spec.trials,
        engine: out.plan.spec.engine
      }
    },

    async 'experiments/start'(req) {
      let raw: unknown = req?.spec
      if (req?.preset !== undefined) {
        if (raw !== undefined) throw new UserError('Give either a spec or a preset name, not both.')
        const preset = typeof req.preset === 'string' ? findPreset(req.preset) : undefined
        if (!preset) throw new UserError(`There is no preset "${String(req.preset).slice(0, 40)}"; choose one of ${PRESET_NAMES}.`)
        raw = preset.spec
      }
      if (raw === undefined) throw new UserError('Give an experiment spec or a preset name.')
      const p = await plan(raw)
      const id = randomUUID()
      await repo.createChunked(
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
      const jobId = launch(id, p.spec, p, missing, p.cells.length)
      return { jobId, experimentId: id }
    },

    async 'experiments/resume'(req) {
      const row = mustGet(req?.experimentId)
      if (live.has(row.id)) throw new UserError(`The experiment "${row.name}" is running already; wait for it or cancel its job first.`)
      const p = await plan(row.spec)
      const changed = p.workloads.find((w: LoadedWorkload) => row.workloads.find((s) => s.label === w.info.label)?.hash !== w.info.hash)
      if (changed || p.cells.length !== row.cellsTotal) {
        throw new UserError(
          `The workload ${changed ? `"${changed.info.label}" ` : ''}changed since the experiment started, so its stored cells no longer match; start a new experiment instead.`
        )
      }
      await repo.ensureCells(
        row.id,
        row.spec,
        p.workloads.map((w) => w.info),
        p.cells
      )
      const missing = repo.missingCells(row.id)
      repo.setStatus(row.id, 'running')
      const jobId = launch(row.id, row.spec, p, missing, row.cellsTotal)
      return { jobId, experimentId: row.id }
    },

    async 'experiments/list'() {
      return { experiments: repo.list().map(summary) }
    },

    async 'experiments/get'(req): Promise<ExperimentDetail> {
      const row = mustGet(req?.experimentId)
      const adapter = engineAdapter(row.engine)
      const l = live.get(row.id)
      let liveOut: ExperimentDetail['live'] = null
      if (l) {
        const elapsed = Math.max(1e-3, (Date.now() - l.startedMs) / 1000)
        const rate = l.trialsDone / elapsed
        liveOut = {
          cellsDone: l.cellsDone,
          cellsTotal: l.cellsTotal,
          trialsPerSecond: rate,
          // The job's shared time-left estimate (trials weighted by cell cost, smoothed; jobs/time-left.ts).
          etaSeconds: ctx.jobs.get(l.jobId)?.progress?.etaSeconds ?? null
        }
      }
      return {
        ...summary(row),
        spec: row.spec,
        workloads: row.workloads,
        metrics: adapter.metrics.map((m) => ({ name: m.name, description: m.description, kind: m.kind })),
        cells: repo.cells(row.id),
        live: liveOut
      }
    },

    async 'experiments/export-csv'(req) {
      const row = mustGet(req?.experimentId)
      const { csv, rows } = experimentCsv(row, engineAdapter(row.engine), repo.cells(row.id))
      const safe =
        row.name
          .replace(/[^A-Za-z0-9._-]+/g, '-')
          .replace(/^-+|-+$/g, '')
          .slice(0, 60) || 'experiment'
      return { fileName: `simulation-${safe}-${row.id.slice(0, 8)}.csv`, csv, rows }
    },

    async 'experiments/delete'(req) {
      const row = mustGet(req?.experimentId)
      if (live.has(row.id)) throw new UserError(`The experiment "${row.name}" is running; cancel its job before deleting it.`)
      return { deleted: repo.delete(row.id) }
    }
  }
}
