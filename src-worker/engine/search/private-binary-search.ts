/**
 * Private noisy binary search for one anomaly (paper Algorithm 1, ALGORITHMS.md section 3).
 *
 * Each round: draw a fresh uniform random order, walk the individuals in that order and put into Q the longest prefix whose
 * posterior mass stays below half, or the one just past half when it is closer (the median split of eq. 10, see below); ask the oracle about Q and its complement; add the
 * log-likelihoods to the log-posterior (eq. 6 or eq. 12) and renormalise. O(N) work and at most O(N) random numbers per
 * round (only the prefix of the order is drawn: random-prefix.ts).
 *
 * Deviation from eq. 10, found by test: the strict rule "longest prefix with mass < 1/2" stalls whenever the individual
 * that crosses the half carries much of the mass. The common case is two candidates of equal mass (exact ties are the rule
 * with the randomized-response and binarised updates, which give equal increments to individuals with equal histories):
 * Q then holds only negligible mass and the query is uninformative, and with a large eps the search needs hundreds of
 * rounds instead of log2(N) (also: a first individual with mass >= 1/2 gives an empty Q). We therefore stop at the
 * individual that crosses the half and include it when that brings the mass of Q closer to 1/2 (ties: leave it out).
 * This equals eq. 10 whenever the crossing individual is light, and is the median split of Burnashev-Zigangirov;
 * privacy is unaffected (the query is chosen from past answers only).
 */
import { type Rng, permutation } from '../random'
import { LogPosterior } from './log-posterior'
import { RandomPrefix } from './random-prefix'
import { type OracleKind, askOracle, prepareOracle } from './oracles'
import { type HaltReason, type HaltingRules, haltReason, prepareHalting } from './halting'

export interface SearchParams {
  epsilon: number
  tLow: number
  tHigh: number
  oracle: OracleKind
  halting: HaltingRules
  /** |S|: how many indices to output (paper: 4) */
  top: number
}

export interface SearchResult {
  /** the |S| indices with the largest posterior, largest first */
  top: number[]
  /** f(i) for the indices of `top` */
  topPosterior: number[]
  /** T: number of queries asked */
  queries: number
  /** total privacy risk T * eps (sequential composition over rounds) */
  privacyRisk: number
  haltedBy: HaltReason
  /** the whole posterior f (length N), for evaluation and plots; a release must not show it */
  posterior: Float64Array
}

export function validateSearchParams(p: SearchParams, individuals: number): void {
  if (!(Number.isInteger(individuals) && individuals >= 2)) throw new RangeError(`the search needs at least two individuals (got ${individuals})`)
  if (!(Number.isInteger(p.top) && p.top >= 1)) throw new RangeError(`top must be a whole number >= 1 (got ${p.top})`)
}

/**
 * Run one search over `scores` (the anomaly scores x_1..x_N; only the oracle reads them). Deterministic given `rng`.
 */
export function privateBinarySearch(scores: ArrayLike<number>, params: SearchParams, rng: Rng): SearchResult {
  const n = scores.length
  validateSearchParams(params, n)
  const oracle = prepareOracle({ kind: params.oracle, eps: params.epsilon, tLow: params.tLow, tHigh: params.tHigh })
  const halting = prepareHalting(params.halting, params.epsilon)
  for (let i = 0; i < n; i++) if (!Number.isFinite(scores[i])) throw new RangeError(`score ${i} is not a finite number`)

  const post = new LogPosterior(n)
  const inQuery = new Uint8Array(n)
  const prefix = new RandomPrefix(n, rng)
  let queries = 0
  let haltedBy: HaltReason | null
  for (;;) {
    haltedBy = haltReason(halting, post.maxProbability(), post.logOddsMax(), queries)
    if (haltedBy !== null) break
    // Median split: the longest prefix of a fresh random order with mass < total / 2 (drawn lazily, see random-prefix.ts).
    const half = post.total / 2
    const w = post.weight
    let mass = 0
    let k = 0
    let maxIn = -Infinity
    while (k < n) {
      const i = prefix.draw(k)
      const next = mass + w[i]
      // Stop at the individual whose mass reaches half; include it only if that brings Q's mass closer to half.
      if (next >= half && next - half >= half - mass) break
      mass = next
      inQuery[i] = 1
      if (scores[i] > maxIn) maxIn = scores[i]
      k++
      if (next >= half) break
    }
    // Degenerate posteriors (all mass on one individual, float rounding) must still give two non-empty sides.
    if (k === 0) {
      const i = prefix.order[0]
      inQuery[i] = 1
      maxIn = scores[i]
      k = 1
    } else if (k === n) {
      inQuery[prefix.order[n - 1]] = 0
      k = n - 1
      maxIn = -Infinity
      for (let r = 0; r < k; r++) maxIn = Math.max(maxIn, scores[prefix.order[r]])
    }
    let maxOut = -Infinity
    for (let i = 0; i < n; i++) if (inQuery[i] === 0 && scores[i] > maxOut) maxOut = scores[i]
    const u = askOracle(oracle, maxIn, maxOut, rng)
    post.update(inQuery, u.inQ, u.outQ)
    const order = prefix.order
    for (let r = 0; r < k; r++) inQuery[order[r]] = 0
    queries++
  }
  // Ties are broken by a fresh random permutation, so tied individuals are not ordered by index.
  const top = post.top(params.top, permutation(rng, n))
  return {
    top,
    topPosterior: top.map((i) => post.probability(i)),
    queries,
    privacyRisk: queries * params.epsilon,
    haltedBy,
    posterior: post.toArray()
  }
}
