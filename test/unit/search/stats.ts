/** Small statistical helpers for the search tests (one-sided normal quantiles, binomial and two-proportion z tests). */

/** Upper quantile z_alpha of the standard normal (Acklam-style rational approximation via bisection on erfc). */
export function normalUpperQuantile(alpha: number): number {
  let lo = 0,
    hi = 40
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2
    if (normalUpperTail(mid) > alpha) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/** P(Z > z) for a standard normal, via a high-precision erfc (Numerical Recipes erfcc, relative error < 1.2e-7). */
export function normalUpperTail(z: number): number {
  const x = z / Math.SQRT2
  const t = 1 / (1 + 0.5 * Math.abs(x))
  const r =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    )
  const erfc = x >= 0 ? r : 2 - r
  return erfc / 2
}

/** One-sided two-proportion z statistic for H1: p1 > p2 (pooled variance). */
export function twoProportionZ(k1: number, n1: number, k2: number, n2: number): number {
  const p1 = k1 / n1,
    p2 = k2 / n2,
    p = (k1 + k2) / (n1 + n2)
  const se = Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
  return se === 0 ? (p1 > p2 ? Infinity : 0) : (p1 - p2) / se
}

/** Welch z statistic for H1: mean(a) > mean(b) (large samples). */
export function welchZ(a: number[], b: number[]): number {
  const m = (x: number[]) => x.reduce((s, v) => s + v, 0) / x.length
  const v = (x: number[], mu: number) => x.reduce((s, y) => s + (y - mu) ** 2, 0) / (x.length - 1)
  const ma = m(a),
    mb = m(b)
  return (ma - mb) / Math.sqrt(v(a, ma) / a.length + v(b, mb) / b.length)
}
