/** NLM (baseline, no false-negative guarantee) and TSLM (Alg. 1): one Laplace draw per predicate. */
import { drawSampleWords } from '../batch-samplers'
import type { Rng } from '../random'
import type { MechanismCore } from './outcome'
import { ThresholdWorkspace } from './workspace'

const TWO_32 = 4294967296
const TWO_52 = 4503599627370496

/**
 * Compare g_i + Lap(1/eps) with c_i - shift. NLM: shift 0 (no guarantee). TSLM: shift alpha, eps = ln(1/(2 beta))/alpha.
 * The result points into `ws`.
 *
 * The decision only asks whether the noise X exceeds tau_i = c_i - shift - g_i, so it is read from the draw's uniform
 * instead of computing X: a draw is two sample words (batch-samplers.ts: sign bit s and 52-bit x; X = scale ln U(x) < 0
 * for s = 0 and X = -scale ln U(~x) > 0 for s = 1, U(x) = (x + 1/2) 2^-52), and with q = exp(-|tau|/scale):
 *   tau >= 0: X > tau  <=>  s = 1 and U(~x) < q   <=>  s = 1 and x > 2^52 - 1/2 - q 2^52;
 *   tau <  0: X > tau  <=>  s = 1 or  U(x) > q    <=>  s = 1 or  x > q 2^52 - 1/2.
 * The cut on x per predicate (`cutsFor`) depends on the inputs only, so a Monte Carlo batch computes it once for all its
 * trials; a trial then draws its 2k words in one call and compares integers: no logarithm. The decisions are those of
 * the inverse-CDF draw `laplaceFromBits` for the same words, but for draws within rounding (about 1e-14) of a cut.
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
  const { decisions, exPost } = ws
  const { cut, orSign } = cutsFor(ws, counts, thresholds, eps, shift)
  const w = drawSampleWords(rng, 2 * k)
  let pos = 0
  for (let i = 0; i < k; i++) {
    const hi = w[2 * i]
    const x = (hi & 0xfffff) * TWO_32 + (w[2 * i + 1] >>> 0)
    const s = hi >>> 31
    const above = x > cut[i] ? 1 : 0
    const d = orSign[i] === 1 ? s | above : s & above
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

/** The per-predicate cuts of the header for these inputs, kept in the workspace while the inputs stay the same. */
function cutsFor(ws: ThresholdWorkspace, counts: ArrayLike<number>, thresholds: ArrayLike<number>, eps: number, shift: number) {
  const c = ws.singleStepCuts
  if (c.counts === counts && c.thresholds === thresholds && c.eps === eps && c.shift === shift) return c
  const scale = 1 / eps
  for (let i = 0; i < counts.length; i++) {
    const tau = thresholds[i] - shift - counts[i]
    const q = Math.exp(-Math.abs(tau) / scale)
    if (tau >= 0) {
      c.cut[i] = TWO_52 - 0.5 - q * TWO_52
      c.orSign[i] = 0
    } else {
      c.cut[i] = q * TWO_52 - 0.5
      c.orSign[i] = 1
    }
  }
  c.counts = counts
  c.thresholds = thresholds
  c.eps = eps
  c.shift = shift
  return c
}
