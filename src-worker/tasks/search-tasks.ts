/**
 * Experiments: Monte Carlo batches of the private noisy binary search (simulation with ground truth).
 * A batch runs trials [firstTrial, firstTrial + count) of one cell; trial t uses seededRng(deriveSeed(cellSeed, t))
 * (inside `runSearchTrials`), so the results do not depend on how a cell is split into batches or over workers.
 */
import { readlinkSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'
import { type OracleKind, type SearchParams, prop3QueriesBound, runSearchTrials, searchQueriesBound } from '../engine/search'
import { expectedRounds } from '../engine/search/expected-rounds'
import type { TaskContext } from './types'

export interface SearchTrialBatch {
  cellSeed: string
  firstTrial: number
  count: number
  scores: Float64Array
  anomaly: number
  tLow: number
  tHigh: number
  oracle: OracleKind
  epsilon: number
  top: number
  tau?: number
  delta?: number
  budget?: number
  maxQueries?: number
  /** Diagnostics only (QA_DIAGNOSTICS=1): the worker exits half-way through this batch. */
  crash?: boolean
}

/** Per-trial metric columns (index = trial - firstTrial); NaN = undefined for that trial. */
export interface TrialBatchResult {
  firstTrial: number
  count: number
  metrics: Record<string, Float64Array>
  extras?: Record<string, number | null>
  /** Wall time of the batch in the worker (ms; informative only, not part of the results). */
  elapsedMs?: number
}

/** Exits the worker half-way when a diagnostics crash was requested and the pool runs with diagnostics on. */
export function crashIfAsked(crash: boolean | undefined): void {
  if (crash && typeof process !== 'undefined' && process.env?.QA_DIAGNOSTICS === '1') process.exit(70)
}

export function searchTrialBatch(p: SearchTrialBatch, ctx: TaskContext): TrialBatchResult {
  lowerThreadPriority()
  const t0 = performance.now()
  const params: SearchParams = {
    epsilon: p.epsilon,
    tLow: p.tLow,
    tHigh: p.tHigh,
    oracle: p.oracle,
    top: p.top,
    halting: { tau: p.tau, delta: p.delta, budget: p.budget, maxQueries: p.maxQueries }
  }
  const ev = { scores: p.scores, anomalies: [p.anomaly], params }
  const error = new Float64Array(p.count)
  const risk = new Float64Array(p.count)
  const queries = new Float64Array(p.count)
  const capped = new Float64Array(p.count)
  const failed = new Float64Array(p.count)
  const half = Math.floor(p.count / 2)
  // Progress inside a run (a run of a large cell takes seconds): the share of the expected rounds done, kept below the
  // next whole trial, which the run's end reports.
  const expected = Math.max(1, expectedRounds(p.scores.length, params, p.scores[p.anomaly], nearestScore(p.scores, p.anomaly)))
  for (let i = 0; i < p.count; i++) {
    if (i === half) crashIfAsked(p.crash)
    const [m] = runSearchTrials(ev, p.cellSeed, p.firstTrial + i, 1, (_t, rounds) => ctx.progress(i + Math.min(IN_RUN_SHARE, rounds / expected)))
    error[i] = m.found ? 0 : 1
    risk[i] = m.privacyRisk
    queries[i] = m.queries
    capped[i] = m.haltedBy === 'maxQueries' ? 1 : 0
    // The paper's success (section 6.2): the run halts (not stopped by the round cap) with the anomaly in S.
    failed[i] = capped[i] === 1 || !m.found ? 1 : 0
    ctx.progress(i + 1)
  }
  const bound = searchQueriesBound(p.scores.length, params)
  return {
    firstTrial: p.firstTrial,
    count: p.count,
    metrics: { errorRate: error, privacyRisk: risk, queries, capped, failureRate: failed },
    extras: {
      expectedQueriesBound: bound === null || !Number.isFinite(bound) ? null : bound,
      // Without the round cap and budget: what the runs would need (shown for cells whose runs hit the cap).
      prop3QueriesBound: finiteOrNull(prop3QueriesBound(p.scores.length, params))
    },
    elapsedMs: performance.now() - t0
  }
}

/** The largest share of a trial that progress inside a run may report. */
const IN_RUN_SHARE = 0.9

/** The highest score other than the anomaly's. */
function nearestScore(scores: Float64Array, anomaly: number): number {
  let m = -Infinity
  for (let i = 0; i < scores.length; i++) if (i !== anomaly && scores[i] > m) m = scores[i]
  return m
}

const finiteOrNull = (x: number | null): number | null => (x === null || !Number.isFinite(x) ? null : x)

let priorityLowered = false
/**
 * Sweep batches are background work: on Linux, lower this worker thread's scheduling priority once (nice +5), so that the
 * services' own thread (which answers the UI and stores results) wins the CPU when both are runnable. Best effort.
 */
export function lowerThreadPriority(): void {
  if (priorityLowered) return
  priorityLowered = true
  try {
    if (typeof process === 'undefined' || process.platform !== 'linux') return
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, Math.min(19, getPriority(tid) + 5))
  } catch {
    /* not permitted or not available: keep the default priority */
  }
}
