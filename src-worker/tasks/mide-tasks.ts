/**
 * Experiments: Monte Carlo batches of the MIDE threshold mechanisms (simulation with ground truth).
 * A batch runs trials [firstTrial, firstTrial + count) of one cell; trial t uses seededRng(deriveSeed(cellSeed, t))
 * (inside `runThresholdTrials`), so results do not depend on how a cell is split into batches or over workers.
 * Denied trials (eps needed > eps_max) count in `denied` and leave every other metric undefined (NaN), as in
 * `aggregateThresholdTrials`.
 */
import { type ThresholdMechanism, type ThresholdParams, ThresholdWorkspace, runThresholdTrials } from '../engine/mide'
import { crashIfAsked, lowerThreadPriority, type TrialBatchResult } from './search-tasks'
import type { TaskContext } from './types'

export interface ThresholdTrialBatch extends ThresholdParams {
  cellSeed: string
  firstTrial: number
  count: number
  counts: Float64Array
  thresholds: Float64Array
  mechanism: ThresholdMechanism
  crash?: boolean
}

const val = (x: number | null) => (x === null ? NaN : x)
/** Trials between two progress reports (a trial of taxi M takes 0.01-3 ms, so a chunk stays well under the pool's throttle). */
const PROGRESS_CHUNK = 25

/**
 * The workspaces of the last cells this worker ran, by cell: a cell's later batches on this worker reuse the DPPWLM
 * candidate scores its earlier ones remembered (workspace.ts). The cell seed is derived from the cell's key (engine,
 * workload content, mechanism, parameters), so one seed means one workload and one set of parameters; remembered scores
 * are the same bits as fresh ones, so results do not depend on which worker ran which batch.
 */
const recentCells = new Map<string, ThresholdWorkspace>()
const RECENT_CELLS = 4

function cellWorkspace(p: ThresholdTrialBatch): ThresholdWorkspace {
  const key = `${p.mechanism}\u0000${p.counts.length}\u0000${p.cellSeed}`
  let ws = recentCells.get(key)
  if (ws === undefined) {
    ws = new ThresholdWorkspace(p.counts.length)
    if (recentCells.size >= RECENT_CELLS) recentCells.delete(recentCells.keys().next().value!)
  } else recentCells.delete(key)
  recentCells.set(key, ws)
  return ws
}

export function thresholdTrialBatch(p: ThresholdTrialBatch, ctx: TaskContext): TrialBatchResult {
  lowerThreadPriority()
  const t0 = performance.now()
  const params = { alpha: p.alpha, beta: p.beta, epsMax: p.epsMax, eps1: p.eps1, steps: p.steps, fineSteps: p.fineSteps }
  const workload = { counts: p.counts, thresholds: p.thresholds }
  const cols = ['fnr', 'fpr', 'epsilonExPost', 'minEntropy', 'minEntropyNats', 'denied', 'steps']
  const m: Record<string, Float64Array> = {}
  for (const c of cols) m[c] = new Float64Array(p.count)
  const half = Math.floor(p.count / 2)
  const workspace = cellWorkspace(p)
  // Trials run in chunks through one runThresholdTrials call each, so a chunk shares one workspace and the per-predicate
  // cuts (evaluation.ts); results do not depend on the chunking (trial t always draws from its own derived seed).
  let done = 0
  while (done < p.count) {
    if (done >= half) crashIfAsked(p.crash)
    const n = Math.min(PROGRESS_CHUNK, done < half ? half - done : p.count - done)
    const rows = runThresholdTrials(p.mechanism, workload, params, p.cellSeed, p.firstTrial + done, n, { workspace })
    for (let j = 0; j < n; j++) {
      const r = rows[j]
      const i = done + j
      m.fnr[i] = r.denied ? NaN : val(r.fnr)
      m.fpr[i] = r.denied ? NaN : val(r.fpr)
      m.epsilonExPost[i] = r.denied ? NaN : val(r.epsStar)
      m.minEntropy[i] = r.denied ? NaN : val(r.minEntropy)
      m.minEntropyNats[i] = r.denied ? NaN : val(r.minEntropyNats)
      m.denied[i] = r.denied ? 1 : 0
      m.steps[i] = r.denied ? NaN : r.steps
    }
    done += n
    ctx.progress(done)
  }
  return { firstTrial: p.firstTrial, count: p.count, metrics: m, elapsedMs: performance.now() - t0 }
}
