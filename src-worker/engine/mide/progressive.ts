/**
 * PPWLM (Alg. 2): the geometric plan eps_1 < ... < eps_m, each step with beta/m. Step j: a predicate is decided positive
 * if its noisy count exceeds c + alpha_j, stays undecided in (c - alpha_j, c + alpha_j], is eliminated otherwise.
 * Later steps relax the previous noise (never fresh noise), so a predicate decided at step j has spent eps_j in total.
 * Stops early when nothing is undecided; after step m the undecided ones are reported positive (cost eps_m).
 */
import { type Rng, laplace } from '../random'
import type { MechanismCore, StepRecord } from './outcome'
import { type ThresholdParams, geometricPlan } from './params'
import { relaxNoise } from './relax'

export function runPpwlm(counts: ArrayLike<number>, thresholds: ArrayLike<number>, params: ThresholdParams, rng: Rng): MechanismCore {
  const k = counts.length
  const plan = geometricPlan(params)
  const decisions = new Uint8Array(k)
  const exPost = new Float64Array(k)
  const noise = new Float64Array(k)
  const steps: StepRecord[] = []
  let undecided: number[] = []
  let prevEps = 0
  for (let j = 0; j < plan.length; j++) {
    const { epsilon, beta, alpha } = plan[j]
    const tested = j === 0 ? k : undecided.length
    if (tested === 0) break
    const next: number[] = []
    let pos = 0
    let neg = 0
    for (let q = 0; q < tested; q++) {
      const i = j === 0 ? q : undecided[q]
      noise[i] = j === 0 ? laplace(rng, 1 / epsilon) : relaxNoise(rng, noise[i], prevEps, epsilon)
      const g = counts[i] + noise[i]
      if (g > thresholds[i] + alpha) {
        decisions[i] = 1
        exPost[i] = epsilon
        pos++
      } else if (g > thresholds[i] - alpha) {
        next.push(i)
      } else {
        exPost[i] = epsilon
        neg++
      }
    }
    steps.push({ epsilon, beta, alpha, tested, decidedPositive: pos, eliminated: neg, undecided: next.length })
    undecided = next
    prevEps = epsilon
  }
  for (const i of undecided) {
    decisions[i] = 1
    exPost[i] = prevEps
  }
  return { decisions, exPost, steps }
}
