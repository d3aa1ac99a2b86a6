/**
 * Monte Carlo evaluation with ground truth (simulations only; never a release). Batchable: `runSearchTrials` runs trials
 * [firstTrial, firstTrial + count), trial t with its own generator seededRng(deriveSeed(seed, t)), and returns per-trial
 * metrics; `aggregateSearchTrials` turns any union of batches into the same means, however the trials were split.
 *
 * Metrics (paper section 6.2): error = the anomaly is not in S (with several anomalies: some anomaly is missed);
 * total privacy risk T eps (max over subsets for the partitioned search); number of queries (summed over subsets).
 */
import { deriveSeed, seededRng } from '../random'
import { type SearchParams, privateBinarySearch, validateSearchParams } from './private-binary-search'
import { partitionedSearch } from './partitioned-search'
import { deltaOfTau, expectedQueriesBound, oracleErrorProbability } from './bounds'
import type { HaltReason } from './halting'
import { maxQueriesOf } from './halting'

export interface SearchEvaluation {
  scores: ArrayLike<number>
  /** indices of the true anomalies (one for the single-anomaly search) */
  anomalies: number[]
  params: SearchParams
  /** >1: the partitioned multi-anomaly search with this many disjoint subsets */
  subsets?: number
}

export interface SearchTrialMetrics {
  trial: number
  /** every anomaly is in its output set */
  found: boolean
  /** share of the anomalies found */
  foundShare: number
  queries: number
  privacyRisk: number
  /** the rule that stopped the (first) search; 'mixed' when subsets stopped for different reasons */
  haltedBy: HaltReason | 'mixed'
}

export interface SearchAggregate {
  trials: number
  errorRate: number
  /** mean share of anomalies missed (equals errorRate with one anomaly) */
  missRate: number
  meanPrivacyRisk: number
  meanQueries: number
  /** trials stopped by the hard query cap (no posterior rule or budget fired) */
  cappedTrials: number
}

export function validateEvaluation(ev: SearchEvaluation): void {
  validateSearchParams(ev.params, ev.scores.length)
  if (ev.anomalies.length === 0) throw new RangeError('the evaluation needs the index of at least one anomaly')
  for (const a of ev.anomalies) {
    if (!(Number.isInteger(a) && a >= 0 && a < ev.scores.length)) throw new RangeError(`anomaly index ${a} is out of range`)
  }
  const subsets = ev.subsets ?? 1
  if (subsets === 1 && ev.anomalies.length > 1) throw new RangeError('several anomalies need the partitioned search (subsets > 1)')
}

export function runSearchTrials(
  ev: SearchEvaluation,
  seed: string | number,
  firstTrial: number,
  count: number,
  onRounds?: (trial: number, rounds: number) => void
): SearchTrialMetrics[] {
  validateEvaluation(ev)
  const subsets = ev.subsets ?? 1
  const out: SearchTrialMetrics[] = []
  for (let t = firstTrial; t < firstTrial + count; t++) {
    const rng = seededRng(deriveSeed(seed, t))
    if (subsets === 1) {
      const r = privateBinarySearch(ev.scores, ev.params, rng, onRounds === undefined ? undefined : (rounds) => onRounds(t, rounds))
      const found = r.top.includes(ev.anomalies[0])
      out.push({ trial: t, found, foundShare: found ? 1 : 0, queries: r.queries, privacyRisk: r.privacyRisk, haltedBy: r.haltedBy })
    } else {
      const r = partitionedSearch(ev.scores, ev.params, subsets, rng)
      const chosen = new Set(r.top)
      const hits = ev.anomalies.filter((a) => chosen.has(a)).length
      const reasons = new Set(r.subsets.map((s) => s.haltedBy))
      out.push({
        trial: t,
        found: hits === ev.anomalies.length,
        foundShare: hits / ev.anomalies.length,
        queries: r.totalQueries,
        privacyRisk: r.privacyRisk,
        haltedBy: reasons.size === 1 ? r.subsets[0].haltedBy : 'mixed'
      })
    }
  }
  return out
}

export function aggregateSearchTrials(metrics: SearchTrialMetrics[]): SearchAggregate {
  const n = metrics.length
  if (n === 0) throw new RangeError('no trials to aggregate')
  let miss = 0,
    missShare = 0,
    risk = 0,
    q = 0,
    capped = 0
  for (const m of metrics) {
    if (!m.found) miss++
    missShare += 1 - m.foundShare
    risk += m.privacyRisk
    q += m.queries
    if (m.haltedBy === 'maxQueries') capped++
  }
  return { trials: n, errorRate: miss / n, missRate: missShare / n, meanPrivacyRisk: risk / n, meanQueries: q / n, cappedTrials: capped }
}

/**
 * The Prop. 3 bound on the expected number of queries for these settings (see bounds.ts for the units), for the posterior
 * rules in force (the smallest bound of tau and delta), capped by the budget's and the hard cap's maximum. Null when no
 * posterior rule is in force and the only limit is the hard cap. With subsets, the sum of the subsets' bounds.
 * For the direct oracle no bound is proved: this is the bound of the binarised search at the same eps.
 */
export function searchQueriesBound(individuals: number, params: SearchParams, subsets = 1): number | null {
  const { tau, delta, budget, maxQueries } = params.halting
  const p = oracleErrorProbability(params.oracle, params.epsilon, params.tLow, params.tHigh)
  const sizes = Array.from({ length: subsets }, (_, j) => Math.floor(individuals / subsets) + (j < individuals % subsets ? 1 : 0))
  const cap = maxQueriesOf(params.halting, params.epsilon)
  const deltas = [tau === undefined ? undefined : deltaOfTau(tau), delta].filter((d): d is number => d !== undefined)
  if (deltas.length === 0) return budget !== undefined || maxQueries !== undefined ? cap * subsets : null
  let total = 0
  for (const size of sizes) {
    const b = Math.min(...deltas.map((d) => expectedQueriesBound(size, p, d)))
    total += Math.min(b, cap)
  }
  return total
}

/**
 * Prop. 3's bound itself, without the caps of the budget and the round cap (what a capped run would have needed on
 * average, for the binarised oracle): the smallest bound of the posterior rules in force, or null without one. Infinity
 * when the oracle's error probability is not below 1/2.
 */
export function prop3QueriesBound(individuals: number, params: SearchParams): number | null {
  const { tau, delta } = params.halting
  const deltas = [tau === undefined ? undefined : deltaOfTau(tau), delta].filter((d): d is number => d !== undefined)
  if (deltas.length === 0) return null
  const p = oracleErrorProbability(params.oracle, params.epsilon, params.tLow, params.tHigh)
  return Math.min(...deltas.map((d) => expectedQueriesBound(individuals, p, d)))
}
