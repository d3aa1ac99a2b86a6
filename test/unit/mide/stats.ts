/** Small statistics helpers for the MIDE tests (exact binomial tails, KS statistic). */

function logGamma(x: number): number {
  // Lanczos approximation (g = 7, n = 9), accurate to ~1e-15 relative for x > 0
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7
  ]
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x)
  x -= 1
  let a = c[0]
  const t = x + 7.5
  for (let i = 1; i < 9; i++) a += c[i] / (x + i)
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a)
}

/** P(X >= x) for X ~ Binomial(n, p): pmf at x from log-gamma, then the recurrence pmf(j+1) = pmf(j) (n-j)/(j+1) p/(1-p). */
export function binomialUpperTail(n: number, p: number, x: number): number {
  if (x <= 0) return 1
  if (x > n) return 0
  let pmf = Math.exp(logGamma(n + 1) - logGamma(x + 1) - logGamma(n - x + 1) + x * Math.log(p) + (n - x) * Math.log1p(-p))
  let s = 0
  for (let j = x; j <= n; j++) {
    s += pmf
    if (pmf < 1e-300 && j > n * p) break
    pmf *= ((n - j) / (j + 1)) * (p / (1 - p))
  }
  return Math.min(1, s)
}

/** P(X <= x) for X ~ Binomial(n, p). */
export function binomialLowerTail(n: number, p: number, x: number): number {
  if (x < 0) return 0
  return Math.max(0, 1 - binomialUpperTail(n, p, x + 1))
}

export function ksStatistic(sample: ArrayLike<number>, cdf: (x: number) => number): number {
  const s = Array.from(sample).sort((a, b) => a - b)
  let d = 0
  for (let i = 0; i < s.length; i++) {
    const f = cdf(s[i])
    d = Math.max(d, (i + 1) / s.length - f, f - i / s.length)
  }
  return d
}

/** KS critical value at level alpha (asymptotic): sqrt(-ln(alpha/2)/2) / sqrt(n). */
export const ksCritical = (n: number, alpha: number) => Math.sqrt(-Math.log(alpha / 2) / 2) / Math.sqrt(n)

export const laplaceCdf = (scale: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / scale) : 1 - 0.5 * Math.exp(-x / scale))

/** Quantile of the standard normal (Acklam's rational approximation, |error| < 1.2e-9), for sample-size bounds. */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const pl = 0.02425
  if (p < pl) {
    const q = Math.sqrt(-2 * Math.log(p))
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
  }
  if (p > 1 - pl) return -normalQuantile(1 - p)
  const q = p - 0.5
  const r = q * q
  return (
    ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  )
}
