/**
 * What a search's budget achieves, from public inputs only (the accuracy preview, before anything is spent): seeded runs
 * of the search on the least favourable scores the question allows (the anomaly exactly at t_h, every other individual
 * exactly at t_l: the smallest gap the thresholds promise), for several numbers of questions. Per run: is the anomaly in
 * the top |S| (the paper's success), is the answer conclusive (the released top posterior reaches the stopping rule's
 * level, as a release decides it), and is a conclusive answer wrong (it names someone else first).
 *
 * On data that keeps the thresholds' promise (the anomaly at or above t_h, everyone else at or below t_l) the oracle's
 * answers are at least as clear as here for the randomized-response and binarised oracles, so these rates are what a
 * release can count on; for the direct oracle they are the same least favourable case's rates, not a proved bound.
 */
import { deriveSeed, seededRng } from '../random'
import { privateBinarySearch } from './private-binary-search'
import { snapToGrid, verdictLevel } from './release'
import type { SearchQuestion } from './feasibility'

export interface AccuracyCounts {
  runs: number
  /** the anomaly was in the top |S| */
  found: number
  /** the released top posterior reached the stopping rule's level (a finding) */
  conclusive: number
  /** conclusive, but the first named was not the anomaly */
  wrongFinding: number
}

/** Runs [firstRun, firstRun + runs) of a search asking at most `questions` questions; run t uses deriveSeed(seed, t). */
export function searchAccuracyRuns(q: SearchQuestion, questions: number, grid: number, seed: string, firstRun: number, runs: number): AccuracyCounts {
  if (!(Number.isInteger(questions) && questions >= 1)) throw new RangeError(`questions must be a whole number >= 1 (got ${questions})`)
  const scores = new Float64Array(q.individuals).fill(q.tLow)
  scores[0] = q.tHigh
  const level = verdictLevel(q.tau, q.delta, grid)
  const out: AccuracyCounts = { runs, found: 0, conclusive: 0, wrongFinding: 0 }
  for (let t = firstRun; t < firstRun + runs; t++) {
    const r = privateBinarySearch(
      scores,
      {
        epsilon: q.epsilon,
        tLow: q.tLow,
        tHigh: q.tHigh,
        oracle: q.oracle,
        top: q.top,
        halting: { tau: q.tau, delta: q.delta, maxQueries: questions }
      },
      seededRng(deriveSeed(seed, t))
    )
    if (r.top.includes(0)) out.found++
    if (snapToGrid(Math.min(1, Math.max(0, r.topPosterior[0])), grid) >= level) {
      out.conclusive++
      if (r.top[0] !== 0) out.wrongFinding++
    }
  }
  return out
}
