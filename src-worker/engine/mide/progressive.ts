/**
 * PPWLM (Alg. 2): the geometric plan eps_1 < ... < eps_m, each step with beta/m. Step j: a predicate is decided positive
 * if its noisy count exceeds c + alpha_j, stays undecided in (c - alpha_j, c + alpha_j], is eliminated otherwise.
 * Later steps relax the previous noise (never fresh noise), so a predicate decided at step j has spent eps_j in total.
 * Stops early when nothing is undecided; after step m the undecided ones are reported positive (cost eps_m).
 *
 * Random numbers in batches, in lanes (lane-samplers.ts: the WebAssembly kernel two values per vector, or its twin):
 * step 1 draws its k Laplace values from 2k sample words drawn in one call; each later step draws four sample words per
 * undecided predicate in one call and relaxes them in one pass. The undecided predicates' noise stays packed at the
 * front of the lanes' values (in the order of their indices), so that a step relaxes a contiguous run.
 */
import type { Rng } from '../random'
import { laplaceLanes, relaxLanes } from '../lane-samplers'
import type { EpsLevel } from './min-entropy'
import type { MechanismCore, StepRecord } from './outcome'
import { type ThresholdParams, geometricPlan } from './params'
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
  const { decisions, exPost } = ws
  const lanes = ws.lanes()
  const values = lanes.values
  const undecided = ws.undecided
  decisions.fill(0, 0, k)
  const steps: StepRecord[] = []
  const levels: EpsLevel[] = []
  let nU = 0
  let prevEps = 0
  for (let j = 0; j < plan.length; j++) {
    const { epsilon, beta, alpha } = plan[j]
    const tested = j === 0 ? k : nU
    if (tested === 0) break
    if (j === 0) {
      rng.fillSampleWords(lanes.words, 2 * k)
      laplaceLanes(lanes, k, 1 / epsilon)
    } else {
      rng.fillSampleWords(lanes.words, 4 * tested)
      relaxLanes(lanes, tested, prevEps, epsilon)
    }
    let nNext = 0
    let pos = 0
    // Branch-free (the outcomes are data-dependent and mispredict): every tested predicate gets this step's decision
    // and eps, which a later step (or the end) overwrites for those that stay undecided; its index and noise are
    // written to the next packed place, which is kept only when it stays undecided (nNext <= q: packing in place).
    for (let q = 0; q < tested; q++) {
      const i = j === 0 ? q : undecided[q]
      const v = values[q]
      const g = counts[i] + v
      const c = thresholds[i]
      const positive = g > c + alpha ? 1 : 0
      const stays = (g > c - alpha ? 1 : 0) & (positive ^ 1)
      decisions[i] = positive
      exPost[i] = epsilon
      undecided[nNext] = i
      values[nNext] = v
      nNext += stays
      pos += positive
    }
    const neg = tested - pos - nNext
    steps.push({ epsilon, beta, alpha, tested, decidedPositive: pos, eliminated: neg, undecided: nNext })
    if (pos + neg > 0) levels.push({ epsilon, count: pos + neg })
    nU = nNext
    prevEps = epsilon
  }
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
