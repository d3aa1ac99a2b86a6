/** NLM (baseline, no false-negative guarantee) and TSLM (Alg. 1): one Laplace draw per predicate. */
import { type Rng, laplace } from '../random'
import type { MechanismCore } from './outcome'

/**
 * Compare g_i + Lap(1/eps) with c_i - shift. NLM: shift 0 (no guarantee). TSLM: shift alpha, eps = ln(1/(2 beta))/alpha.
 */
export function runShiftedLaplace(
  counts: ArrayLike<number>,
  thresholds: ArrayLike<number>,
  eps: number,
  shift: number,
  beta: number,
  rng: Rng
): MechanismCore {
  const k = counts.length
  const decisions = new Uint8Array(k)
  const exPost = new Float64Array(k).fill(eps)
  const scale = 1 / eps
  let pos = 0
  for (let i = 0; i < k; i++) {
    if (counts[i] + laplace(rng, scale) > thresholds[i] - shift) {
      decisions[i] = 1
      pos++
    }
  }
  return {
    decisions,
    exPost,
    steps: [{ epsilon: eps, beta, alpha: shift, tested: k, decidedPositive: pos, eliminated: k - pos, undecided: 0 }]
  }
}
