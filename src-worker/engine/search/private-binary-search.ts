/**
 * Private noisy binary search for one anomaly (paper Algorithm 1, ALGORITHMS.md section 3).
 *
 * Each round: draw a fresh uniform random order, walk the individuals in that order and put into Q the longest prefix whose
 * posterior mass stays below half, or the one just past half when it is closer (the median split of eq. 10, see below);
 * ask the oracle about Q and its complement; add the log-likelihoods to the log-posterior (eq. 6 or eq. 12) and
 * renormalise. O(N) work per round with a small constant: the order is drawn only as far as the split needs, a few random
 * bits per individual (random-prefix.ts), and the update is one pass with one exp (log-posterior.ts).
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
import type { Rng } from '../random'
import { LogPosterior } from './log-posterior'
import { SearchMemory } from './search-memory'
import { RandomPrefix, inQuery } from './random-prefix'
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
  /**
   * Releases: after a posterior rule (tau, delta) has stopped the search, keep asking (and discarding) questions until
   * this many were asked, so that the run time does not tell how many questions the answer used (that number is
   * ex-post and sealed). The answer is the one at the stop; the extra answers never reach the output.
   */
  padToQueries?: number
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
  /** rounds computed, the padding after the stop included (`padToQueries`): what the run time follows */
  rounds: number
}

export function validateSearchParams(p: SearchParams, individuals: number): void {
  if (!(Number.isInteger(individuals) && individuals >= 2)) throw new RangeError(`the search needs at least two individuals (got ${individuals})`)
  if (!(Number.isInteger(p.top) && p.top >= 1)) throw new RangeError(`top must be a whole number >= 1 (got ${p.top})`)
}

/** `onRounds` is called every this many rounds (a power of two). */
const ROUNDS_PER_REPORT = 64

/** How many of the highest scores are kept in order to find the two sides' maxima without a pass over the individuals. */
const TOP_SCORES = 64

/** Indices of the (up to) `count` highest scores, highest first (one pass, insertion into a short list). */
function highestScores(scores: ArrayLike<number>, count: number): Int32Array {
  const n = scores.length
  const c = Math.min(count, n)
  const idx = new Int32Array(c)
  let len = 0
  for (let i = 0; i < n; i++) {
    const v = scores[i]
    if (len === c && v <= scores[idx[c - 1]]) continue
    let pos = len === c ? c - 1 : len++
    while (pos > 0 && scores[idx[pos - 1]] < v) {
      idx[pos] = idx[pos - 1]
      pos--
    }
    idx[pos] = i
  }
  return idx
}

/**
 * Run one search over `scores` (the anomaly scores x_1..x_N; only the oracle reads them). Deterministic given `rng`.
 * Per round: the median split (random-prefix.ts: the first level's parts are random words drawn in one batch, and only
 * the crossing part, about N/16 individuals, is visited further), H(Q) and H(Q complement) from the precomputed highest
 * scores (a pass only when all of them fall on one side), and `updateSplit` (one sequential pass and one exp, which also
 * sums the next round's first-level parts: log-posterior.ts). The random numbers are drawn in another order than in
 * earlier versions of the engine, so seeded outputs differ from theirs; the distribution of every output is unchanged.
 * `onRounds` (optional) hears the rounds computed so far every 64 rounds (progress of a long run); it changes nothing.
 */
export function privateBinarySearch(scores: ArrayLike<number>, params: SearchParams, rng: Rng, onRounds?: (rounds: number) => void): SearchResult {
  const n = scores.length
  validateSearchParams(params, n)
  const oracle = prepareOracle({ kind: params.oracle, eps: params.epsilon, tLow: params.tLow, tHigh: params.tHigh })
  const halting = prepareHalting(params.halting, params.epsilon)
  for (let i = 0; i < n; i++) if (!Number.isFinite(scores[i])) throw new RangeError(`score ${i} is not a finite number`)

  const memory = new SearchMemory(n)
  const post = new LogPosterior(n, memory)
  const prefix = new RandomPrefix(n, rng, memory)
  const highest = highestScores(scores, TOP_SCORES)
  const needLogOdds = halting.logInvDelta !== undefined
  let queries = 0
  let answer: SearchResult | null = null
  const pad = params.padToQueries ?? 0
  let asked = 0
  prefix.labelParts(post.weight)
  for (;;) {
    if (answer === null) {
      const haltedBy = haltReason(halting, post.maxProbability(), needLogOdds ? post.logOddsMax() : 0, queries)
      if (haltedBy !== null) answer = finish(post, prefix, params, queries, haltedBy)
    }
    if (answer !== null && asked >= pad) break
    const T = prefix.splitLabelled(post.weight, post.total)
    const parts = prefix.parts
    // H(Q) and H(Q complement): the first of the highest scores on each side (ties between sides give equal values).
    let maxIn = NaN
    let maxOut = NaN
    for (let r = 0; r < highest.length; r++) {
      const i = highest[r]
      if (inQuery(parts, T, i)) {
        if (Number.isNaN(maxIn)) maxIn = scores[i]
      } else if (Number.isNaN(maxOut)) maxOut = scores[i]
      if (!Number.isNaN(maxIn) && !Number.isNaN(maxOut)) break
    }
    if (Number.isNaN(maxIn)) maxIn = maxOnSide(scores, parts, T, true)
    if (Number.isNaN(maxOut)) maxOut = maxOnSide(scores, parts, T, false)
    const u = askOracle(oracle, maxIn, maxOut, rng)
    post.updateSplit(parts, T, u.inQ - u.outQ, prefix.drawNext())
    prefix.adoptNext()
    asked++
    if (onRounds !== undefined && (asked & (ROUNDS_PER_REPORT - 1)) === 0) onRounds(asked)
    if (answer === null) queries++
  }
  answer.rounds = asked
  return answer
}

/** The answer at the stop. Ties are broken uniformly at random, so tied individuals are not ordered by index. */
function finish(post: LogPosterior, prefix: RandomPrefix, params: SearchParams, queries: number, haltedBy: HaltReason): SearchResult {
  const top = post.topRandomTies(params.top, (m) => prefix.uniformInt(m))
  return {
    top,
    topPosterior: top.map((i) => post.probability(i)),
    queries,
    privacyRisk: queries * params.epsilon,
    haltedBy,
    posterior: post.toArray(),
    rounds: queries
  }
}

/** The largest score in Q (inQ) or in its complement, Q = {i : part(i) < T}. */
function maxOnSide(scores: ArrayLike<number>, parts: Int32Array, T: number, inQ: boolean): number {
  let m = -Infinity
  for (let i = 0; i < scores.length; i++) if (inQuery(parts, T, i) === inQ && scores[i] > m) m = scores[i]
  return m
}
