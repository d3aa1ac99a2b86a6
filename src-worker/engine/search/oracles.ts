/**
 * The three oracles of the private noisy binary search (ALGORITHMS.md section 3, paper eqs. 5, 9, 11, 14, 24).
 *
 * Every oracle answers one query Q (and its complement) at privacy risk eps under anomaly-restricted DP with sensitivity
 * t_l, and returns the log-likelihood increments to add to the log-posterior of the members of Q and of the complement.
 * Only differences between the two increments matter (the posterior is renormalised after each round).
 */
import { type Rng, laplace } from '../random'

export type OracleKind = 'rr' | 'binary' | 'direct'
export const ORACLE_KINDS: readonly OracleKind[] = ['rr', 'binary', 'direct']

/** Log-likelihood increments for one answered query. */
export interface QueryUpdate {
  /** added to log f(i) for i in Q */
  inQ: number
  /** added to log f(i) for i not in Q */
  outQ: number
}

/** ln(1 + e^x) without overflow. */
export function softplus(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x))
}

/** Randomized response flip probability p = 1 / (1 + e^eps), so that eps = ln((1-p)/p) (Prop. 1). */
export function rrFlipProbability(eps: number): number {
  return Math.exp(-softplus(eps))
}

/** ln p and ln(1-p) of randomized response, computed without underflow for large eps. */
export function rrLogProbabilities(eps: number): { logP: number; log1mP: number } {
  const sp = softplus(eps)
  return { logP: -sp, log1mP: eps - sp }
}

/** The threshold ratio (t_h - t_l) / t_l that drives the binarised and direct oracles. */
export function thresholdRatio(tLow: number, tHigh: number): number {
  return (tHigh - tLow) / tLow
}

/**
 * Eq. 24: upper bound on the error probability of the binarised oracle Z = 1(Y > Ybar), which is exactly
 * P(Lap - Lap' > t_h - t_l) = (1/2 + x/4) e^{-x} with x = eps (t_h - t_l) / t_l.
 */
export function binaryErrorBound(eps: number, tLow: number, tHigh: number): number {
  return Math.exp(binaryLogProbabilities(eps, tLow, tHigh).logP)
}

/** ln p and ln(1-p) for the Eq. 24 bound, stable for large eps (ln p = ln(1/2 + x/4) - x). */
export function binaryLogProbabilities(eps: number, tLow: number, tHigh: number): { logP: number; log1mP: number } {
  const x = eps * thresholdRatio(tLow, tHigh)
  const logP = Math.log(0.5 + x / 4) - x
  return { logP, log1mP: Math.log1p(-Math.exp(logP)) }
}

export interface OracleConfig {
  kind: OracleKind
  eps: number
  tLow: number
  tHigh: number
}

/** Precomputed constants of an oracle (computed once per search). */
export interface PreparedOracle extends OracleConfig {
  /** Laplace scale t_l / eps (binary, direct). */
  scale: number
  /** ln p, ln(1-p) of the randomized-response style update (rr, binary). */
  logP: number
  log1mP: number
}

export function prepareOracle(cfg: OracleConfig): PreparedOracle {
  const { kind, eps, tLow, tHigh } = cfg
  if (!(eps > 0) || !Number.isFinite(eps)) throw new RangeError(`epsilon must be positive and finite (got ${eps})`)
  if (!(tLow > 0) || !Number.isFinite(tLow)) throw new RangeError(`t_low must be positive and finite: it is the sensitivity (got ${tLow})`)
  if (!(tHigh > tLow) || !Number.isFinite(tHigh)) throw new RangeError(`t_high must be finite and above t_low (got ${tHigh} <= ${tLow})`)
  const lp = kind === 'rr' ? rrLogProbabilities(eps) : binaryLogProbabilities(eps, tLow, tHigh)
  return { ...cfg, scale: tLow / eps, logP: lp.logP, log1mP: lp.log1mP }
}

/**
 * Ask the oracle about Q, given the true maxima H(Q) and H(Q complement) of the scores (eq. 8).
 * - rr: Y = 1(i* in Q) xor Bernoulli(p); under the data model 1(i* in Q) = 1(H(Q) > H(Qbar)). Update eq. 6.
 * - binary: Y = H(Q) + Lap(t_l/eps), Ybar = H(Qbar) + Lap(t_l/eps), Z = 1(Y > Ybar), update eq. 6 with p of eq. 24.
 * - direct: the same noisy pair, update with the Laplace likelihood of eq. 11 (constants cancel).
 * Draws from `rng` in a fixed order: rr one uniform; binary and direct one Laplace for Q, then one for the complement.
 */
export function askOracle(o: PreparedOracle, maxIn: number, maxOut: number, rng: Rng): QueryUpdate {
  if (o.kind === 'rr') {
    const truth = maxIn > maxOut
    const flip = rng.next() < Math.exp(o.logP)
    const answer = truth !== flip
    return answer ? { inQ: o.log1mP, outQ: o.logP } : { inQ: o.logP, outQ: o.log1mP }
  }
  const y = maxIn + laplace(rng, o.scale)
  const yBar = maxOut + laplace(rng, o.scale)
  if (o.kind === 'binary') {
    return y > yBar ? { inQ: o.log1mP, outQ: o.logP } : { inQ: o.logP, outQ: o.log1mP }
  }
  // Eq. 11's increments are -k (|y - t_h| + |yBar - t_l|) for Q and -k (|y - t_l| + |yBar - t_h|) for the complement;
  // only their difference -k (d(y) - d(yBar)) matters, with d(v) = |v - t_h| - |v - t_l| = clamp(t_h + t_l - 2v) to
  // [t_l - t_h, t_h - t_l]. Computed from the bounded d, no score (however large) makes the update infinite or rounds
  // the difference away.
  const k = o.eps / o.tLow
  return { inQ: -k * (directDistanceGap(o, y) - directDistanceGap(o, yBar)), outQ: 0 }
}

/** d(v) = |v - t_h| - |v - t_l|, as the clamp of t_h + t_l - 2v to [t_l - t_h, t_h - t_l] (exact for every finite v). */
function directDistanceGap(o: PreparedOracle, v: number): number {
  const w = o.tHigh - o.tLow
  return Math.min(w, Math.max(-w, o.tHigh + o.tLow - 2 * v))
}
