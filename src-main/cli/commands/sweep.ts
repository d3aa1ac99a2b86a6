/**
 * `sweep --spec FILE | --preset NAME | --resume ID [--workers N] [--db PATH] [--csv FILE]`: run an experiment spec
 * (a parameter sweep of Monte Carlo simulations) on the worker pool, store it in the workspace, and print its cells.
 * Progress lines go to stderr; Ctrl-C cancels (finished cells stay stored; `--resume ID` computes the rest).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { CellResult, ExperimentDetail, JobProgress, SweepJobResult } from '../../contract'
import { createServices } from '../../services'
import { PRESETS, type Store, defaultDatabasePath, defaultPoolSize, findPreset, planExperiment } from '../../services/local'
import { type CliCommand, type CliContext, UsageError, fmt, optNumber, optString } from '../command'

const PROGRESS_EVERY_MS = 1000

function readSpec(path: string, cwd: string): unknown {
  let text: string
  try {
    text = readFileSync(resolve(cwd, path), 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new UsageError(`cannot read --spec ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')}`)
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (e) {
    throw new UsageError(`--spec ${path} is not valid JSON (${(e as Error).message.split('\n')[0]})`)
  }
}

/** A store stand-in for validating specs that read no saved query (so that bad input writes nothing). */
const noStore = new Proxy({} as Store, {
  get() {
    throw new Error('store not open')
  }
})

function usesSavedQuery(raw: unknown): boolean {
  const w = (raw as { workloads?: unknown })?.workloads
  return Array.isArray(w) && w.some((x) => (x as { kind?: unknown })?.kind === 'saved-query')
}

function headline(c: CellResult, metrics: string[]): string {
  const params = Object.entries(c.params)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')
  if (c.status !== 'done' || !c.metrics) return `  #${c.index} ${c.workload} ${c.mechanism} ${params}: ${c.status}${c.error ? ` (${c.error})` : ''}`
  const ms = metrics
    .map((m) => {
      const s = c.metrics![m]
      if (!s || s.mean === null) return `${m} -`
      return `${m} ${fmt(s.mean)}${s.ciLow !== null && s.ciHigh !== null ? ` [${fmt(s.ciLow)}, ${fmt(s.ciHigh)}]` : ''}`
    })
    .join(', ')
  return `  #${c.index} ${c.workload} ${c.mechanism} ${params}: ${ms}`
}

export const sweepCommand: CliCommand = {
  name: 'sweep',
  summary: 'Run an experiment spec (parameter sweep of seeded simulations) on the worker pool and store its results',
  usage: 'sweep --spec FILE | --preset NAME | --resume ID [--trials N] [--workers N] [--db PATH] [--csv FILE]',
  options: {
    spec: { type: 'string', description: 'experiment spec (JSON, see docs/guide/experiments.md)' },
    preset: { type: 'string', description: `run a preset instead of a spec: ${PRESETS.map((p) => p.name).join(', ')}` },
    resume: { type: 'string', description: 'resume a stored experiment by id (computes only the missing cells)' },
    workers: { type: 'string', description: 'worker threads', defaultText: 'cores - 1, at least 1' },
    db: { type: 'string', description: 'workspace database', defaultText: '$QUIET_ALARM_DB or the user data folder' },
    csv: { type: 'string', description: 'also write the results as CSV to this file' },
    trials: {
      type: 'string',
      description: "trials per cell instead of the spec's or preset's (fewer for a quick look: the confidence intervals widen)",
      defaultText: "the spec's"
    },
    'list-presets': { type: 'boolean', description: 'list the presets and exit' }
  },
  async run(values, _positionals, ctx: CliContext) {
    if (values['list-presets']) {
      return {
        json: { presets: PRESETS.map((p) => ({ name: p.name, title: p.title, figure: p.figure })) },
        text: PRESETS.map((p) => `${p.name.padEnd(14)} ${p.title}`).join('\n')
      }
    }
    const specPath = optString(values, 'spec')
    const presetName = optString(values, 'preset')
    const resumeId = optString(values, 'resume')
    const given = [specPath, presetName, resumeId].filter((x) => x !== undefined).length
    if (given !== 1) throw new UsageError('give exactly one of --spec FILE, --preset NAME or --resume ID')
    const workers = optNumber(values, 'workers', defaultPoolSize(), { integer: true, ge: 1, le: 64 })
    const csvPath = optString(values, 'csv')
    const dbPath = optString(values, 'db') ?? defaultDatabasePath()

    let raw: unknown
    if (presetName !== undefined) {
      const p = findPreset(presetName)
      if (!p) throw new UsageError(`--preset must be one of ${PRESETS.map((x) => x.name).join(', ')} (got "${presetName}")`)
      raw = p.spec
    } else if (specPath !== undefined) raw = readSpec(specPath, ctx.cwd)
    const trialsRaw = optString(values, 'trials')
    if (trialsRaw !== undefined) {
      if (resumeId !== undefined) throw new UsageError('--trials does not apply to --resume: a resumed experiment keeps its trials per cell')
      const trials = optNumber(values, 'trials', 0, { integer: true, ge: 1, le: 100_000 })
      if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) raw = { ...(raw as Record<string, unknown>), trials }
    }
    // Validate before opening anything, so that bad input writes nothing.
    if (raw !== undefined && !usesSavedQuery(raw)) {
      const out = await planExperiment(raw, { cwd: ctx.cwd, store: noStore })
      if (!out.ok) throw new UsageError(out.errors.length > 1 ? `${out.errors[0]} (${out.errors.length - 1} more problems)` : out.errors[0])
    }

    const services = createServices({ mode: 'headless', dbPath, poolSize: workers })
    const cleanup: Array<() => void> = []
    try {
      const handlers = services.handlers
      const started =
        resumeId !== undefined ? await handlers['experiments/resume']({ experimentId: resumeId }) : await handlers['experiments/start']({ spec: raw })
      const { jobId, experimentId } = started
      const onSigint = () => services.context.jobs.cancel(jobId)
      process.once('SIGINT', onSigint)
      cleanup.push(() => process.removeListener('SIGINT', onSigint))
      let last = 0
      const cellsTotal = (services.context.store.db.prepare('SELECT cells_total n FROM experiments WHERE id = ?').get(experimentId) as { n: number })
        .n
      const countDone = services.context.store.db.prepare("SELECT count(*) n FROM experiment_cells WHERE experiment_id = ? AND status = 'done'")
      cleanup.push(
        services.events.on((name, payload) => {
          if (name !== 'job/progress') return
          const p = payload as JobProgress
          const now = Date.now()
          if (p.jobId !== jobId || now - last < PROGRESS_EVERY_MS) return
          last = now
          const done = (countDone.get(experimentId) as { n: number }).n
          const eta = p.etaSeconds === null ? '?' : `${Math.ceil(p.etaSeconds)} s`
          ctx.progress(`sweep: ${done}/${cellsTotal} cells, ${p.rate === undefined ? '?' : fmt(p.rate, 3)} trials/s, ETA ${eta}`)
        })
      )
      const info = await services.context.jobs.settled(jobId)
      const detail: ExperimentDetail = await handlers['experiments/get']({ experimentId })
      const result = (info?.result ?? null) as SweepJobResult | null
      if (info?.state === 'failed') throw new UsageError(info.error ?? 'the sweep failed')
      if (csvPath !== undefined) {
        const { csv } = await handlers['experiments/export-csv']({ experimentId })
        writeFileSync(resolve(ctx.cwd, csvPath), csv)
      }
      const state = info?.state === 'cancelled' ? 'cancelled' : detail.status
      const metricNames = detail.metrics.map((m) => m.name)
      const lines = [
        `SIMULATION (ground truth, seeded, not charged): experiment ${detail.id} "${detail.name}" (${detail.engine}), seed ${detail.seed}`,
        `status ${state}: ${detail.cellsDone}/${detail.cellsTotal} cells done, ${detail.cellsFailed} failed` +
          (result
            ? `; this run computed ${result.cellsComputed} distinct cells (${result.cellsSkipped} stored before) in ${fmt(result.seconds, 3)} s`
            : ''),
        ...detail.cells.map((c) => headline(c, metricNames))
      ]
      if (state === 'cancelled')
        lines.push(`Cancelled: finished cells are stored; run "quiet-alarm sweep --resume ${detail.id}" to compute the rest.`)
      return {
        json: {
          simulation: true,
          experimentId: detail.id,
          name: detail.name,
          engine: detail.engine,
          seed: detail.seed,
          status: state,
          cellsTotal: detail.cellsTotal,
          cellsDone: detail.cellsDone,
          cellsFailed: detail.cellsFailed,
          run: result,
          workloads: detail.workloads,
          cells: detail.cells.map((c) => ({
            index: c.index,
            sweep: c.sweep,
            workload: c.workload,
            mechanism: c.mechanism,
            params: c.params,
            seed: c.seed,
            trials: c.trials,
            status: c.status,
            error: c.error,
            metrics: c.metrics,
            extras: c.extras
          }))
        },
        text: lines.join('\n')
      }
    } finally {
      for (const f of cleanup) f()
      await services.close()
    }
  }
}
