/**
 * PPWLM (Alg. 2): the geometric plan eps_1 < ... < eps_m, each step with beta/m. Step j: a predicate is decided positive
 * if its noisy count exceeds c + alpha_j, stays undecided in (c - alpha_j, c + alpha_j], is eliminated otherwise.
 * Later steps relax the previous noise (never fresh noise), so a predicate decided at step j has spent eps_j in total.
 * Stops early when nothing is undecided; after step m the undecided ones are reported positive (cost eps_m).
 *
 * Random numbers in batches: step 1 draws its k Laplace values in one call (`fillLaplace`), each later step four sample
 * words per undecided predicate in one call, relaxed in one pass (`relaxInPlace`).
 */
import { drawSampleWords, fillLaplace } from '../batch-samplers'
import type { Rng } from '../random'
import type { EpsLevel } from './min-entropy'
import type { MechanismCore, StepRecord } from './outcome'
import { type ThresholdParams, geometricPlan } from './params'
import { relaxInPlace } from './relax'
import { ThresholdWorkspace } from './workspace'

export function runPpwlm(
  counts: ArrayLike<number>,
  thresholds: ArrayLike<number>,
  params: ThresholdParams,
  rng: Rng,
  ws: ThresholdWorkspace = new ThresholdWorkspace(counts.length)
): MechanismCore {
  const k = counts.length
  const plan = geometricPlan(params)
  const { decisions, exPost, noise } = ws
  decisions.fill(0, 0, k)
  const steps: StepRecord[] = []
  const levels: EpsLevel[] = []
  let nU = 0
  let prevEps = 0
  for (let j = 0; j < plan.length; j++) {
    const { epsilon, beta, alpha } = plan[j]
    const tested = j === 0 ? k : nU
    if (tested === 0) break
    const undecided = ws.undecided
    const next = ws.next
    if (j === 0) fillLaplace(rng, 1 / epsilon, noise, k)
    else relaxInPlace(noise, undecided, tested, prevEps, epsilon, drawSampleWords(rng, 4 * tested))
    let nNext = 0
    let pos = 0
    // Branch-free (the outcomes are data-dependent and mispredict): every tested predicate gets this step's decision
    // and eps, which a later step (or the end) overwrites for those that stay undecided; i is written to the next list
    // and the list grows by one only when it stays undecided.
    for (let q = 0; q < tested; q++) {
      const i = j === 0 ? q : undecided[q]
      const g = counts[i] + noise[i]
      const c = thresholds[i]
      const positive = g > c + alpha ? 1 : 0
      const stays = (g > c - alpha ? 1 : 0) & (positive ^ 1)
      decisions[i] = positive
      exPost[i] = epsilon
      next[nNext] = i
      nNext += stays
      pos += positive
    }
    const neg = tested - pos - nNext
    steps.push({ epsilon, beta, alpha, tested, decidedPositive: pos, eliminated: neg, undecided: nNext })
    if (pos + neg > 0) levels.push({ epsilon, count: pos + neg })
    ws.swapLists()
    nU = nNext
    prevEps = epsilon
  }
  const undecided = ws.undecided
  for (let q = 0; q < nU; q++) {
    const i = undecided[q]
    decisions[i] = 1
    exPost[i] = prevEps
  }
  if (nU > 0) {
    const last = levels[levels.length - 1]
    if (last !== undefined && last.epsilon === prevEps) last.count += nU
    else levels.push({ epsilon: prevEps, count: nU })
  }
  return { decisions, exPost, steps, levels }
}
