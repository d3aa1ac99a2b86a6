/**
 * Can a search's budget answer its question at all? From public inputs only (the number of listed individuals, |S|, the
 * oracle, epsilon per question, t_l, t_h, the halting rule and the most questions the budget allows), before any charge.
 *
 * Two bounds, the larger decides:
 * - separation: each answer is at most one bit about which side of a split the anomaly is on, so narrowing n
 *   individuals down to |S| needs at least ceil(log2(n / |S|)) questions even if no answer were noisy;
 * - the expected rounds of the paper's analysis (Prop. 3, Burnashev-Zigangirov) for this oracle at this epsilon: a
 *   noisy answer carries at most 1 - h2(p) bits (p the oracle's error probability: randomized response's flip
 *   probability, or Eq. 24 for the binarised oracle, also used for the direct one, for which no bound is proved), so
 *   reaching resolution |S| / n with the stopping rule's confidence log2(1/delta) (delta = (1 - tau) / tau for tau)
 *   takes about (log2(n / |S|) + log2(1/delta)) / (1 - h2(p)) questions. This is Prop. 3's bound at resolution |S|
 *   without its last term log2((1 - p) / p), which bounds how far the final answer overshoots the stopping level and
 *   grows without bound as the oracle becomes exact (it would refuse searches whose answers are nearly certain).
 * A search whose budget allows fewer questions than either is refused with nothing spent, naming the smallest budget
 * that reaches both (`neededQueries` x epsilon). What an admitted budget achieves is the accuracy preview's job.
 */
import { binaryEntropyBits, deltaOfTau, oracleErrorProbability } from './bounds'
import type { OracleKind } from './oracles'

export interface SearchQuestion {
  /** n: the listed individuals */
  individuals: number
  /** |S| */
  top: number
  oracle: OracleKind
  epsilon: number
  tLow: number
  tHigh: number
  /** the posterior rules in force (none: the search always runs to its budget) */
  tau?: number
  delta?: number
}

export interface SearchFeasibility {
  /** ceil(log2(n / |S|)): 0 when |S| >= n */
  separatingQueries: number
  /** ceil((log2(n / |S|) + log2(1/delta)) / (1 - h2(p))) for the posterior rules in force (delta = 1 without one) */
  expectedQueries: number
  /** the larger of the two: the fewest questions a budget must allow */
  neededQueries: number
  /** the oracle's error probability p that Prop. 3 uses */
  errorProbability: number
}

/** Above this many questions the bound is reported as such but no budget is proposed (epsilon per question too small). */
export const MAX_SENSIBLE_QUERIES = 1_000_000

export function searchFeasibility(q: SearchQuestion): SearchFeasibility {
  if (!(Number.isInteger(q.individuals) && q.individuals >= 2)) throw new RangeError(`a search needs at least two individuals (got ${q.individuals})`)
  if (!(Number.isInteger(q.top) && q.top >= 1)) throw new RangeError(`top must be a whole number >= 1 (got ${q.top})`)
  const ratio = q.individuals / q.top
  // log2 of an exact power of two must not round up past it (log2(1024 / 4) = 8 exactly).
  const separatingQueries = ratio <= 1 ? 0 : Math.ceil(Math.log2(ratio) - 1e-12)
  const p = oracleErrorProbability(q.oracle, q.epsilon, q.tLow, q.tHigh)
  // The rule that fires first (the larger delta) sets the confidence; without a posterior rule, none is asked (delta 1).
  const deltas = [q.tau === undefined ? undefined : deltaOfTau(q.tau), q.delta].filter((d): d is number => d !== undefined)
  const delta = deltas.length > 0 ? Math.max(...deltas) : 1
  const capacity = 1 - binaryEntropyBits(p)
  const bits = Math.max(0, Math.log2(ratio)) + Math.log2(1 / delta)
  const expectedQueries = capacity > 0 ? Math.ceil(bits / capacity - 1e-9) : Infinity
  return {
    separatingQueries,
    expectedQueries,
    neededQueries: Math.max(separatingQueries, expectedQueries, 1),
    errorProbability: p
  }
}

/**
 * The epsilon per question, on a public grid (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times 0.01, 0.1, 1 and 10), whose
 * deciding budget (`neededQueries` x epsilon) is smallest: what a refusal or a denial can propose when the saved
 * epsilon per question needs more than is available. Null when no grid value gives a finite bound.
 */
export function cheapestDecidingEpsilon(q: Omit<SearchQuestion, 'epsilon'>): { epsilon: number; queries: number; budget: number } | null {
  let best: { epsilon: number; queries: number; budget: number } | null = null
  for (let e10 = -2; e10 <= 1; e10++) {
    for (const m of [1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8]) {
      const epsilon = Number((m * 10 ** e10).toPrecision(3))
      const f = searchFeasibility({ ...q, epsilon })
      if (!Number.isFinite(f.neededQueries) || f.neededQueries > MAX_SENSIBLE_QUERIES) continue
      const budget = Number((f.neededQueries * epsilon).toPrecision(12))
      if (best === null || budget < best.budget) best = { epsilon, queries: f.neededQueries, budget }
    }
  }
  return best
}
