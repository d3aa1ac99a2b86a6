/** NLM (baseline, no false-negative guarantee) and TSLM (Alg. 1): one Laplace draw per predicate. */
import { fillLaplace } from '../batch-samplers'
import type { Rng } from '../random'
import type { MechanismCore } from './outcome'
import { ThresholdWorkspace } from './workspace'

/**
 * Compare g_i + Lap(1/eps) with c_i - shift. NLM: shift 0 (no guarantee). TSLM: shift alpha, eps = ln(1/(2 beta))/alpha.
 * The k noise values are drawn in one batch (`fillLaplace`); the result points into `ws`.
 */
export function runShiftedLaplace(
  counts: ArrayLike<number>,
  thresholds: ArrayLike<number>,
  eps: number,
  shift: number,
  beta: number,
  rng: Rng,
  ws: ThresholdWorkspace = new ThresholdWorkspace(counts.length)
): MechanismCore {
  const k = counts.length
  const { decisions, exPost, noise } = ws
  fillLaplace(rng, 1 / eps, noise, k)
  let pos = 0
  for (let i = 0; i < k; i++) {
    const d = counts[i] + noise[i] > thresholds[i] - shift ? 1 : 0
    decisions[i] = d
    pos += d
  }
  exPost.fill(eps, 0, k)
  return {
    decisions,
    exPost,
    steps: [{ epsilon: eps, beta, alpha: shift, tested: k, decidedPositive: pos, eliminated: k - pos, undecided: 0 }],
    levels: [{ epsilon: eps, count: k }]
  }
}
