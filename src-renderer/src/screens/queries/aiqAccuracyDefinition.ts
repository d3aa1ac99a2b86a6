/**
 * Accuracy first for anomaly identification: the analyst states the error rate they accept; ε per record is
 * priced from Construction 1's closed form (ALGORITHMS.md section 2). The answer for a record is flipped with probability
 * t = e^(-ε (λ - 1)) / (1 + e^ε), where λ >= 1 is the number of record additions or removals that would change the
 * answer (λ_k under sensitive privacy, mdd under ε-DP). For every record at least `margin` changes from the other answer
 * (λ >= margin) the error is at most e^(-ε (margin - 1)) / (1 + e^ε): a bound from the definition alone, no data read.
 */

/** The error bound for records at least `margin` changes from flipping, at ε per record. */
export function aiqErrorBound(epsilon: number, margin: number): number {
  return Math.exp(-epsilon * (margin - 1)) / (1 + Math.exp(epsilon))
}

/**
 * The smallest ε per record whose error bound for records at least `margin` changes from flipping is at most `error`
 * (rounded up to 4 significant digits, so that the bound still holds). Null when the error is not in (0, 0.5): at ε = 0
 * the answer is a coin toss (error 1/2).
 */
export function aiqEpsilonForError(error: number, margin: number): number | null {
  if (!(error > 0 && error < 0.5) || !(margin >= 1)) return null
  let eps: number
  if (margin === 1) eps = Math.log(1 / error - 1)
  else {
    // The bound falls as ε grows: bisection on (0, hi].
    let lo = 0
    let hi = 1
    while (aiqErrorBound(hi, margin) > error && hi < 1e6) hi *= 2
    for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
      const mid = (lo + hi) / 2
      if (aiqErrorBound(mid, margin) > error) lo = mid
      else hi = mid
    }
    eps = hi
  }
  // Round up to 4 significant digits (a larger ε only lowers the error).
  const step = 10 ** (Math.floor(Math.log10(eps)) - 3)
  let up = Number((Math.ceil(eps / step - 1e-9) * step).toPrecision(4))
  if (aiqErrorBound(up, margin) > error) up = Number(((Math.ceil(eps / step) + 1) * step).toPrecision(4))
  return up
}
