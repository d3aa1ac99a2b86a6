/**
 * Experiments: Monte Carlo batches of anomaly identification, optimal eps-DP vs (eps,k)-sensitive privacy
 * (simulation with ground truth). Every distinct record tuple of the workload is queried in each trial.
 * Trial t uses seededRng(deriveSeed(cellSeed, t)) inside `runAiqTrials`: batching does not change results.
 */
import { type ColumnKind, type Metric, aiqTable, ballCountsOfPoints, exactErrorRates, runAiqTrials } from '../engine/sensitive'
import { crashIfAsked, lowerThreadPriority, type TrialBatchResult } from './search-tasks'
import type { TaskContext } from './types'

export interface AiqTrialBatch {
  cellSeed: string
  firstTrial: number
  count: number
  /** Content hash of the universe (a cache key for the ball counts within this worker). */
  workloadHash: string
  points: Int32Array
  counts: Float64Array
  kinds: ColumnKind[]
  metric: Metric
  mechanism: 'dp' | 'sp'
  r: number
  beta: number
  k: number
  epsilon: number
  crash?: boolean
}

const ballCache = new Map<string, Float64Array>()

function ballCounts(p: AiqTrialBatch): Float64Array {
  const key = `${p.workloadHash}|${p.metric}|${p.r}`
  let b = ballCache.get(key)
  if (!b) {
    b = ballCountsOfPoints(p.points, p.counts, p.kinds, p.metric, p.r)
    if (ballCache.size >= 16) ballCache.delete(ballCache.keys().next().value as string)
    ballCache.set(key, b)
  }
  return b
}

export function aiqTrialBatch(p: AiqTrialBatch, ctx: TaskContext): TrialBatchResult {
  lowerThreadPriority()
  const t0 = performance.now()
  const table = aiqTable(p.counts, ballCounts(p), { beta: p.beta, k: p.k, epsilon: p.epsilon })
  const all = new Float64Array(p.count)
  const sens = new Float64Array(p.count)
  const nonSens = new Float64Array(p.count)
  const half = Math.floor(p.count / 2)
  for (let i = 0; i < p.count; i++) {
    if (i === half) crashIfAsked(p.crash)
    const [m] = runAiqTrials(table, p.cellSeed, p.firstTrial + i, 1)
    const g = p.mechanism === 'dp' ? m.dp : m.sp
    const st = g.sensitiveTotal
    const nt = g.nonSensitiveTotal
    all[i] = st + nt > 0 ? (g.sensitiveErrors + g.nonSensitiveErrors) / (st + nt) : NaN
    sens[i] = st > 0 ? g.sensitiveErrors / st : NaN
    nonSens[i] = nt > 0 ? g.nonSensitiveErrors / nt : NaN
    ctx.progress(i + 1)
  }
  const exact = exactErrorRates(table)[p.mechanism]
  let sensitive = 0
  for (let i = 0; i < table.size; i++) sensitive += table.sensitive[i]
  return {
    firstTrial: p.firstTrial,
    count: p.count,
    metrics: { errorRate: all, errorRateSensitive: sens, errorRateNonSensitive: nonSens },
    extras: {
      exactErrorRate: exact.errorRate,
      exactErrorRateSensitive: exact.errorRateSensitive,
      exactErrorRateNonSensitive: exact.errorRateNonSensitive,
      queriedRecords: table.size,
      sensitiveRecords: sensitive,
      nonSensitiveRecords: table.size - sensitive
    },
    elapsedMs: performance.now() - t0
  }
}
