/**
 * Closed form of the sum (or difference: the law is symmetric) of two independent Laplace variables
 * S = X + Y, X ~ Lap(1/a), Y ~ Lap(1/b). Used for Eq. 12 of the MIDE paper (the predicted number of predicates still
 * undecided after a step), instead of numeric integration.
 *
 * Characteristic functions: a^2/(a^2+t^2) * b^2/(b^2+t^2) = (b^2 f_a - a^2 f_b) / (b^2 - a^2), so for s >= 0
 *   P(S > s) = (b^2 e^{-a s} - a^2 e^{-b s}) / (2 (b^2 - a^2))
 *            = e^{-a s} / 2 * (1 + a^2 * (1 - e^{-(b-a) s}) / ((b - a)(a + b)))          (a <= b)
 * The second form has no cancellation when b is close to a, and tends to e^{-a s}(1 + a s / 2)/2 at a = b.
 */

/** P(S > s) for s >= 0 (upper tail of the sum of Lap(1/a) and Lap(1/b)). */
export function laplaceSumTail(s: number, a: number, b: number): number {
  if (s <= 0) return 0.5
  if (s === Infinity) return 0
  let lo = a,
    hi = b
  if (lo > hi) {
    lo = b
    hi = a
  }
  const d = hi - lo
  // (1 - e^{-d s}) / d, with its limit s at d = 0
  const g = d === 0 ? s : -Math.expm1(-d * s) / d
  return 0.5 * Math.exp(-lo * s) * (1 + (lo * lo * g) / (lo + hi))
}

/** P(S <= x). */
export function laplaceSumCdf(x: number, a: number, b: number): number {
  return x >= 0 ? 1 - laplaceSumTail(x, a, b) : laplaceSumTail(-x, a, b)
}

/** P(lo <= S <= hi) (the law is continuous, so open or closed ends do not matter), computed without cancellation in the tails. */
export function laplaceSumInterval(lo: number, hi: number, a: number, b: number): number {
  if (!(hi > lo)) return 0
  if (lo >= 0) return laplaceSumTail(lo, a, b) - laplaceSumTail(hi, a, b)
  if (hi <= 0) return laplaceSumTail(-hi, a, b) - laplaceSumTail(-lo, a, b)
  return 1 - laplaceSumTail(-lo, a, b) - laplaceSumTail(hi, a, b)
}
