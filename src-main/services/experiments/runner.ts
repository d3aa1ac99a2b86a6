/**
 * Runs an experiment's missing cells on the worker pool.
 *
 * - Cells with equal keys are computed once (one "group") and stored together.
 * - Each group's trials are split into batches of `trialsPerBatch` trials (many trials per message); all batches of all
 *   groups go to the pool in cell order, so both workers stay busy and cells finish roughly in order. Trial t of a cell
 *   always uses seededRng(deriveSeed(cellSeed, t)) and per-trial values are reassembled in trial order, so results are
 *   identical with any number of workers and any batch size.
 * - A group is stored as soon as its last batch is back (finished groups are flushed together every 250 ms, and at the
 *   end or on cancel): a cancelled run keeps every finished cell (a crash of the whole process loses at most the last
 *   250 ms), and a resumed run computes only the cells that are not stored as done.
 * - A worker that dies mid-batch is replaced and the batch retried once by the pool; a second failure marks the cell
 *   failed with its reason, and the rest of the sweep continues (`failFast: false`).
 */
import type { ExperimentSpec, MetricSummary, ParamValue, SweepJobResult } from '../../contract/experiments'
import { CancelledError } from '../platform/errors'
import type { JobContext } from '../platform/job-registry'
import { type Batch, type BatchFailure, type BatchOutcome, type WorkerPool, batchOf } from '../platform/worker-pool'
import type { ExperimentTaskKind } from '../../../src-worker/tasks'
import type { TrialBatchResult } from '../../../src-worker/tasks/search-tasks'
import type { EngineAdapter, LoadedWorkload } from './engines/types'
import type { CellOutcome, ExperimentRepository } from './repository'
import { summarize } from './stats'

export interface MissingCell {
  index: number
  key: string
  seed: string
  mechanism: string
  params: Record<string, ParamValue>
  /** workload label */
  workload: string
}

export interface RunInput {
  experimentId: string
  spec: ExperimentSpec
  adapter: EngineAdapter
  workloads: LoadedWorkload[]
  missing: MissingCell[]
  cellsTotal: number
}

export interface LiveStatus {
  jobId: string
  cellsDone: number
  cellsTotal: number
  trialsDone: number
  trialsTotal: number
  startedMs: number
}

interface Group {
  key: string
  cell: MissingCell
  cellCount: number
  batches: number
  results: Array<TrialBatchResult | undefined>
  remaining: number
  error: string | null
  crash: boolean
}

export const DEFAULT_TRIALS_PER_BATCH = 25
const FLUSH_EVERY_MS = 250
const SLICE_MS = 10

/**
 * Trials per message: the spec's choice, else the engine's (`EngineAdapter.trialsPerBatch`), else about a quarter of a
 * cell, at most 25 (results do not depend on it).
 */
export function trialsPerBatch(spec: ExperimentSpec, engineDefault?: number): number {
  return spec.trialsPerBatch ?? engineDefault ?? Math.max(1, Math.min(DEFAULT_TRIALS_PER_BATCH, Math.ceil(spec.trials / 4)))
}

/** A batch's failure in the cell's words (the pool's own sentence names the batch, not the cell). */
function reason(failure: BatchFailure): string {
  return failure.kind === 'worker-lost' ? `its worker failed twice (${failure.reason})` : failure.message
}

export async function runExperiment(
  input: RunInput,
  pool: WorkerPool,
  repo: ExperimentRepository,
  jc: JobContext,
  live: LiveStatus
): Promise<SweepJobResult> {
  const started = Date.now()
  const { spec, adapter } = input
  const byLabel = new Map(input.workloads.map((w) => [w.info.label, w]))
  const crashCells = new Set(spec.diagnostics?.crashCells ?? [])

  // Group the missing cells by key.
  const groups = new Map<string, Group>()
  for (const c of input.missing) {
    const g = groups.get(c.key)
    if (g) {
      g.cellCount++
      if (crashCells.has(c.index)) g.crash = true
    } else {
      groups.set(c.key, { key: c.key, cell: c, cellCount: 1, batches: 0, results: [], remaining: 0, error: null, crash: crashCells.has(c.index) })
    }
  }

  const per = trialsPerBatch(spec, adapter.trialsPerBatch)
  const batches: Array<Batch<ExperimentTaskKind>> = []
  const owner: Array<{ group: Group; slot: number }> = []
  // Cost estimates read the workload (the threshold engine's expected plan work): the loop yields every SLICE_MS so the
  // services' event loop is not held by a large sweep's planning.
  let slice = performance.now()
  for (const g of groups.values()) {
    if (performance.now() - slice > SLICE_MS) {
      await new Promise((r) => setImmediate(r))
      slice = performance.now()
    }
    const w = byLabel.get(g.cell.workload)
    if (!w) throw new Error(`workload ${g.cell.workload} was not loaded`)
    let slot = 0
    const cell = { mechanism: g.cell.mechanism, params: g.cell.params, seed: g.cell.seed }
    // Per-trial cost estimate (time left follows it; results do not depend on it).
    const trialCost = adapter.trialCost ? adapter.trialCost(cell, w) : 1
    const cost = Number.isFinite(trialCost) && trialCost > 0 ? trialCost : 1
    const warmCost = adapter.warmUpCost?.(g.cell.mechanism) ?? 0
    const warmUp = Number.isFinite(warmCost) && warmCost > 0 ? { key: `${adapter.taskKind}/${g.cell.mechanism}`, cost: warmCost } : undefined
    for (let first = 0; first < spec.trials; first += per) {
      const count = Math.min(per, spec.trials - first)
      const payload = adapter.batchPayload(cell, w, first, count, g.crash && slot === 0)
      batches.push(batchOf(adapter.taskKind, payload, count, count * cost, warmUp))
      owner.push({ group: g, slot })
      slot++
    }
    g.batches = slot
    g.remaining = slot
    g.results = new Array(slot)
  }

  live.cellsTotal = input.cellsTotal
  live.cellsDone = input.cellsTotal - input.missing.length
  live.trialsTotal = batches.reduce((a, b) => a + b.units, 0)
  live.trialsDone = 0
  live.startedMs = started

  let computed = 0
  let failed = 0
  let trialsComputed = 0
  // Progress counts trials as the cells are counted ("84 of 564 cells done" beside "8,400 of 56,400 trials" at least):
  // every cell has spec.trials trials, the cells stored before this run are done, and a cell computed once for several
  // equal cells counts for each of them when it is stored.
  const trialsOfCells = (cells: number) => cells * spec.trials
  const trialsBefore = trialsOfCells(input.cellsTotal - input.missing.length)
  let trialsOfCopies = 0
  const shownTrials = (computedHere: number) => trialsBefore + Math.floor(computedHere) + trialsOfCopies
  // Finished cells are written a few times a second in one transaction (not one commit per cell), so the service's
  // event loop never waits on many small commits or a WAL checkpoint per cell.
  let pending: CellOutcome[] = []
  let flushTimer: NodeJS.Timeout | null = null
  const flush = () => {
    if (flushTimer) clearTimeout(flushTimer)
    flushTimer = null
    const out = pending
    pending = []
    repo.storeResults(input.experimentId, out)
  }
  const store = (o: CellOutcome) => {
    pending.push(o)
    if (!flushTimer) flushTimer = setTimeout(flush, FLUSH_EVERY_MS)
  }
  const onBatchDone = (i: number, outcome: BatchOutcome) => {
    const { group: g, slot } = owner[i]
    if (outcome.ok) g.results[slot] = outcome.value as TrialBatchResult
    else if (g.error === null) g.error = reason(outcome.failure)
    g.remaining--
    if (g.remaining > 0) return
    trialsOfCopies += trialsOfCells(g.cellCount - 1)
    if (g.error !== null) {
      store({ key: g.key, status: 'failed', error: `This cell failed: ${g.error}; resume the experiment to retry it.` })
      failed += g.cellCount
    } else {
      const { metrics, extras, ms } = aggregate(adapter, g.results as TrialBatchResult[], spec.trials)
      store({ key: g.key, status: 'done', metrics, extras, computeMs: ms })
      computed++
      trialsComputed += spec.trials
      live.cellsDone += g.cellCount
    }
  }

  const trialsShownTotal = trialsOfCells(input.cellsTotal)
  jc.progress(shownTrials(0), trialsShownTotal, undefined, { workDone: 0, workTotal: batches.reduce((a, b) => a + (b.cost ?? b.units), 0) })
  try {
    await pool.run(batches, {
      signal: jc.signal,
      failFast: false,
      onBatchDone,
      onProgress: (done, _total, work) => {
        // Workers may report a share of a trial (progress inside a long search run): whole trials are shown, the
        // estimated work (time left) keeps the share.
        live.trialsDone = Math.floor(done)
        jc.progress(shownTrials(done), trialsShownTotal, undefined, { workDone: work.done, workTotal: work.total })
      }
    })
  } catch (e) {
    flush()
    if (e instanceof CancelledError || jc.signal.aborted) {
      repo.setStatus(input.experimentId, 'cancelled')
      throw new CancelledError()
    }
    repo.setStatus(input.experimentId, 'failed')
    throw e
  }
  flush()
  const status = failed > 0 ? 'partial' : 'done'
  repo.setStatus(input.experimentId, status)
  return {
    experimentId: input.experimentId,
    status,
    cellsComputed: computed,
    cellsSkipped: input.cellsTotal - input.missing.length,
    cellsFailed: failed,
    trialsComputed,
    seconds: (Date.now() - started) / 1000
  }
}

/** Reassemble per-trial values in trial order and summarise every metric of the engine. */
export function aggregate(
  adapter: EngineAdapter,
  results: TrialBatchResult[],
  trials: number
): { metrics: Record<string, MetricSummary>; extras: Record<string, number | null> | null; ms: number } {
  const metrics: Record<string, MetricSummary> = {}
  let ms = 0
  for (const r of results) ms += r.elapsedMs ?? 0
  for (const def of adapter.metrics) {
    const values = new Float64Array(trials).fill(NaN)
    for (const r of results) {
      const col = r.metrics[def.name]
      if (!col) continue
      values.set(col.subarray(0, r.count), r.firstTrial)
    }
    metrics[def.name] = summarize(values, def.binary, def.kind === 'rate')
  }
  return { metrics, extras: results[0]?.extras ?? null, ms }
}
