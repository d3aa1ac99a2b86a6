/**
 * A planning estimate of how many rounds a search run takes, for time-left estimates and scheduling only (it is not a
 * bound and is never shown as one; Prop. 3 is in bounds.ts). It needs the scores, so it is for simulations only.
 *
 * Under a median split (mass 1/2 on each side) the anomaly's log-posterior moves per round by
 *   ln 2 - softplus(-s),
 * where s is the update's log-likelihood difference between the anomaly's side and the other side. The estimate is the
 * distance to the halting log-odds, ln(N - 1) + ln(1/delta) with delta = (1 - tau)/tau for the tau rule, divided by the
 * expected move per round (the drift), capped by the budget and the hard cap:
 * - rr: s = +eps with probability 1 - p, -eps with p = 1/(1 + e^eps);
 * - binary: s = +L or -L (L = ln((1-p)/p), p of eq. 24); the answer is wrong with the true probability of the noisy
 *   comparison, (1/2 + g/(4b)) e^(-g/b), for the gap g between the anomaly's score and the nearest other score;
 * - direct: s of the Laplace likelihood, its expectation by a 48 x 48 quantile grid over the two noises.
 * Measured against runs on the NAB series (eps 0.25-4): the real means are 0.4-0.9 times the estimate.
 */
import { deltaOfTau } from './bounds'
import { maxQueriesOf } from './halting'
import { type OracleKind, binaryLogProbabilities, rrLogProbabilities, softplus } from './oracles'
import type { SearchParams } from './private-binary-search'

const GRID = 48

/** Laplace(0, b) quantile at u in (0, 1). */
function laplaceQuantile(u: number, b: number): number {
  return u < 0.5 ? b * Math.log(2 * u) : -b * Math.log(2 * (1 - u))
}

/** Expected move of the anomaly's log-posterior per round (nats; <= 0 means the search does not converge). */
export function anomalyDrift(oracle: OracleKind, eps: number, tLow: number, tHigh: number, anomalyScore: number, nearestScore: number): number {
  if (oracle === 'rr') {
    const { logP, log1mP } = rrLogProbabilities(eps)
    const p = Math.exp(logP)
    const s = log1mP - logP
    return Math.LN2 - ((1 - p) * softplus(-s) + p * softplus(s))
  }
  const b = tLow / eps
  if (oracle === 'binary') {
    const { logP, log1mP } = binaryLogProbabilities(eps, tLow, tHigh)
    const L = log1mP - logP
    const g = Math.max(0, anomalyScore - nearestScore) / b
    const q = (0.5 + g / 4) * Math.exp(-g)
    return Math.LN2 - ((1 - q) * softplus(-L) + q * softplus(L))
  }
  const k = eps / tLow
  let sum = 0
  for (let a = 0; a < GRID; a++) {
    const y = anomalyScore + laplaceQuantile((a + 0.5) / GRID, b)
    const fromY = Math.abs(y - tLow) - Math.abs(y - tHigh)
    for (let c = 0; c < GRID; c++) {
      const yBar = nearestScore + laplaceQuantile((c + 0.5) / GRID, b)
      const s = k * (fromY + Math.abs(yBar - tHigh) - Math.abs(yBar - tLow))
      sum += softplus(-s)
    }
  }
  return Math.LN2 - sum / (GRID * GRID)
}

/**
 * Estimated rounds of one run with these parameters on `individuals` scores whose anomaly scores `anomalyScore` and whose
 * highest other score is `nearestScore`. Without a posterior rule (or when the drift is not positive): the cap.
 */
export function expectedRounds(individuals: number, params: SearchParams, anomalyScore: number, nearestScore: number): number {
  const cap = maxQueriesOf(params.halting, params.epsilon)
  const { tau, delta } = params.halting
  const deltas = [tau === undefined ? undefined : deltaOfTau(tau), delta].filter((d): d is number => d !== undefined)
  if (deltas.length === 0) return cap
  const drift = anomalyDrift(params.oracle, params.epsilon, params.tLow, params.tHigh, anomalyScore, nearestScore)
  if (!(drift > 0)) return cap
  const distance = Math.log(Math.max(1, individuals - 1)) + Math.log(1 / Math.max(...deltas))
  return Math.min(cap, Math.max(1, distance / drift))
}
