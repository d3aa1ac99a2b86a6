/**
 * Eq. 12's rounded prediction for the candidates of one DPPWLM step: for each candidate (eps `next`, alpha), the
 * number of the step's undecided predicates predicted to stay undecided, min(nU, max(0, round(predictUndecided(...)))),
 * the same whole number as `predictUndecided` rounded (data-dependent.ts), computed with about a quarter of its
 * exponentials.
 *
 * With L = cur < H = next, D = H - L, c = L^2 / (L + H) and x = |threshold - noisy count| (the law is symmetric), a
 * predicate's term is T(x - alpha) - T(x + alpha) when x >= alpha, else 1 - T(alpha - x) - T(x + alpha), where
 * T(s) = e^{-L s} (1 + c (1 - e^{-D s}) / D) / 2 (laplace-sum.ts). Here e^{-L x} is computed once per predicate for
 * the whole step, e^{+-L alpha} and e^{+-D alpha} once per candidate, and e^{-D x} once per predicate and candidate:
 * the exponentials of sums become products. The sum differs from predictUndecided's by rounding only; both are
 * within `margin` of the exact sum (a bound on either computation's rounding, from the magnitudes of its terms), so
 * when the sum is farther than twice that from a half-integer both round to the same whole number; otherwise the
 * candidate's sum is computed by predictUndecided itself. Either way the result is predictUndecided's, rounded.
 */
import { laplaceSumInterval } from './laplace-sum'

/**
 * Eq. 12: expected number of the given predicates whose next noisy count (eps `next`) lands in [c - alpha, c + alpha],
 * given their noisy counts G at eps `prev`.
 */
export function predictUndecided(
  indices: ArrayLike<number>,
  noisy: ArrayLike<number>,
  thresholds: ArrayLike<number>,
  alpha: number,
  prev: number,
  next: number
): number {
  let s = 0
  for (let q = 0; q < indices.length; q++) {
    const i = indices[q]
    const base = thresholds[i] - noisy[i]
    s += laplaceSumInterval(base - alpha, base + alpha, prev, next)
  }
  return s
}

const U = 2 ** -53

export class StayPredictor {
  private readonly x: Float64Array
  private readonly p: Float64Array
  /** 1 / p (used for the predicates within alpha of their threshold, where p > 0) */
  private readonly ip: Float64Array
  /** candidates whose sum was too close to a half-integer and was computed by predictUndecided */
  fallbacks = 0

  constructor(
    private readonly undecided: ArrayLike<number>,
    private readonly noisy: ArrayLike<number>,
    private readonly thresholds: ArrayLike<number>,
    private readonly cur: number
  ) {
    const nU = undecided.length
    this.x = new Float64Array(nU)
    this.p = new Float64Array(nU)
    this.ip = new Float64Array(nU)
    for (let q = 0; q < nU; q++) {
      const i = undecided[q]
      const x = Math.abs(thresholds[i] - noisy[i])
      this.x[q] = x
      this.p[q] = Math.exp(-cur * x)
      this.ip[q] = 1 / this.p[q]
    }
  }

  /** min(nU, max(0, round(predictUndecided(undecided, noisy, thresholds, alpha, cur, next)))), for next > cur. */
  stay(alpha: number, next: number): number {
    const nU = this.x.length
    const L = this.cur
    const D = next - L
    if (!(D > 0 && alpha > 0 && Number.isFinite(alpha))) return this.exact(alpha, next)
    const c = (L * L) / (L + next)
    const cD = c / D
    const ap = Math.exp(L * alpha)
    const am = Math.exp(-L * alpha)
    const bp = Math.exp(D * alpha)
    const bm = Math.exp(-D * alpha)
    // a term's magnitude is 1 + (e1 + e2) (k0 + k1 x)
    const k0 = 2 + (L + c) * alpha + cD
    const k1 = L + c
    const xs = this.x
    const ps = this.p
    const ips = this.ip
    let s = 0
    let mag = nU
    for (let q = 0; q < nU; q++) {
      const x = xs[q]
      const p = ps[q]
      const f = Math.exp(-D * x)
      const e2 = p * am // e^{-L (x + alpha)}
      const t2 = 0.5 * e2 * (1 + cD * (1 - f * bm))
      let e1: number
      if (x >= alpha) {
        e1 = p * ap // e^{-L (x - alpha)}
        s += 0.5 * e1 * (1 + cD * (1 - f * bp)) - t2
      } else {
        e1 = am * ips[q] // e^{-L (alpha - x)}
        s += 1 - 0.5 * e1 * (1 + cD * (1 - bm / f)) - t2
      }
      mag += (e1 + e2) * (k0 + k1 * x)
    }
    // Rounding of either computation: a few ulps of each term's magnitudes (exp within an ulp, its argument's rounding
    // scaled by the argument, 1 - e^{-D s} to a few ulps absolute, divided by D) and of the running sums.
    const margin = 4 * (32 * U * mag + 2 * U * nU * (24 + nU))
    const lo = Math.floor(s + 0.5 - 2 * margin)
    const hi = Math.floor(s + 0.5 + 2 * margin)
    if (lo !== hi) return this.exact(alpha, next)
    return Math.min(nU, Math.max(0, lo))
  }

  private exact(alpha: number, next: number): number {
    this.fallbacks++
    const nU = this.x.length
    return Math.min(nU, Math.max(0, Math.round(predictUndecided(this.undecided, this.noisy, this.thresholds, alpha, this.cur, next))))
  }
}
