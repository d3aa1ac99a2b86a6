/**
 * Per-cell summaries of per-trial metrics: mean and a 95% confidence interval.
 *
 * - Metrics that are 0/1 per trial (error of a search run, denial): Wilson score interval for the proportion.
 * - Rates (values in [0, 1] per trial, such as FNR = missed/positives within a trial): the Wilson score interval of the
 *   mean over the n trials. A mean of n values in [0, 1] has variance at most mean (1 - mean) / n (Bhatia-Davis), the
 *   binomial one, so this interval is never narrower than the rate's own and never of zero width: a sweep that saw no
 *   event says [0, 0.0xx], not [0, 0].
 * - Every other metric (eps*, min-entropy, privacy risk, queries): normal approximation, mean +- 1.96 s / sqrt(n) with
 *   the sample standard deviation s (n - 1 in the denominator). With n < 2 there is no interval.
 * Trials where a metric is undefined (NaN, e.g. FNR of a workload without positives) are left out; n says how many remain.
 * Values are summed in trial order, so the result is the same however the trials were split into batches.
 */
import type { MetricSummary } from '../../contract/experiments'

export const Z95 = 1.959963984540054

export function summarize(values: ArrayLike<number>, binary: boolean, unitInterval = false): MetricSummary {
  let n = 0
  let sum = 0
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (Number.isNaN(v)) continue
    n++
    sum += v
  }
  if (n === 0) return { mean: null, sd: null, n: 0, ciLow: null, ciHigh: null, interval: 'none' }
  const mean = sum / n
  let ss = 0
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (Number.isNaN(v)) continue
    ss += (v - mean) * (v - mean)
  }
  const sd = n > 1 ? Math.sqrt(ss / (n - 1)) : null
  if (binary || unitInterval) {
    const [lo, hi] = wilson(sum, n)
    return { mean, sd, n, ciLow: lo, ciHigh: hi, interval: 'wilson' }
  }
  if (sd === null) return { mean, sd, n, ciLow: null, ciHigh: null, interval: 'none' }
  const half = (Z95 * sd) / Math.sqrt(n)
  return { mean, sd, n, ciLow: mean - half, ciHigh: mean + half, interval: 'normal' }
}

/** Wilson score interval at 95% for `successes` out of `n`. */
export function wilson(successes: number, n: number, z = Z95): [number, number] {
  const p = successes / n
  const z2 = z * z
  const denom = 1 + z2 / n
  const centre = (p + z2 / (2 * n)) / denom
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))
  // At 0 or n successes the bound is exactly 0 or 1 (the difference of two equal doubles need not be 0).
  return [successes <= 0 ? 0 : Math.max(0, centre - half), successes >= n ? 1 : Math.min(1, centre + half)]
}
