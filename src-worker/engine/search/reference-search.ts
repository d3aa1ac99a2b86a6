/**
 * The private noisy binary search in its plain form (paper Algorithm 1; ALGORITHMS.md section 3), for reading and for
 * checking the fast path (`privateBinarySearch`: packed parts, lazy keys, fused update). Same steps, no tricks:
 *   1. start from the uniform prior f(i) = 1/N;
 *   2. each round, stop if a halting rule fires; else draw a uniform random order of the individuals and put into Q the
 *      longest prefix of it whose mass stays below 1/2, plus the individual that crosses 1/2 when that brings Q's mass
 *      closer to 1/2 (the median split, see private-binary-search.ts for why);
 *   3. ask the noisy oracle about max(Q) and max(complement) (oracles.ts: eq. 6, 11, 24);
 *   4. add the log-likelihoods to log f and renormalise (Bayes' rule);
 *   5. at the stop, answer the |S| individuals with the largest posterior (ties by index here; the fast path breaks
 *      them at random).
 * O(N log N) per round, and it draws its randomness in another order than the fast path: outputs agree in
 * distribution, and round by round given the same Q and the same oracle answers (test/unit/search/reference-search.test.ts).
 */
import { type Rng, permutation } from '../random'
import { type QueryUpdate, askOracle, prepareOracle } from './oracles'
import { type HaltReason, haltReason, prepareHalting } from './halting'
import type { SearchParams } from './private-binary-search'

export interface ReferenceRound {
  /** 1 for the members of this round's Q */
  inQuery: Uint8Array
  update: QueryUpdate
  /** the posterior after the round's update */
  posterior: Float64Array
}

export interface ReferenceResult {
  top: number[]
  queries: number
  haltedBy: HaltReason
  rounds: ReferenceRound[]
}

/** Step 2: the median split of `f` along a fresh uniform order. */
export function medianSplit(f: Float64Array, rng: Rng): Uint8Array {
  const inQuery = new Uint8Array(f.length)
  let mass = 0
  for (const i of permutation(rng, f.length)) {
    if (mass + f[i] < 0.5) {
      inQuery[i] = 1
      mass += f[i]
      continue
    }
    if (Math.abs(mass + f[i] - 0.5) < Math.abs(mass - 0.5)) inQuery[i] = 1 // the crossing individual, when closer
    break
  }
  return inQuery
}

export function referenceBinarySearch(scores: ArrayLike<number>, params: SearchParams, rng: Rng): ReferenceResult {
  const n = scores.length
  const oracle = prepareOracle({ kind: params.oracle, eps: params.epsilon, tLow: params.tLow, tHigh: params.tHigh })
  const halting = prepareHalting(params.halting, params.epsilon)
  let f = new Float64Array(n).fill(1 / n)
  const logF = new Float64Array(n)
  const rounds: ReferenceRound[] = []
  for (;;) {
    const fMax = Math.max(...f)
    const haltedBy = haltReason(halting, fMax, Math.log(fMax) - Math.log(1 - fMax), rounds.length)
    if (haltedBy !== null) {
      const top = [...f.keys()].sort((a, b) => f[b] - f[a] || a - b).slice(0, params.top)
      return { top, queries: rounds.length, haltedBy, rounds }
    }
    const inQuery = medianSplit(f, rng)
    let maxIn = -Infinity
    let maxOut = -Infinity
    for (let i = 0; i < n; i++) {
      if (inQuery[i] === 1) maxIn = Math.max(maxIn, scores[i])
      else maxOut = Math.max(maxOut, scores[i])
    }
    const update = askOracle(oracle, maxIn, maxOut, rng)
    for (let i = 0; i < n; i++) logF[i] += inQuery[i] === 1 ? update.inQ : update.outQ
    const top = Math.max(...logF)
    const w = logF.map((l) => Math.exp(l - top))
    const total = w.reduce((a, b) => a + b, 0)
    f = w.map((x) => x / total)
    rounds.push({ inQuery, update, posterior: f })
  }
}
