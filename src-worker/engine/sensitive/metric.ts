/**
 * Distances between binned record tuples (ALGORITHMS.md section 2).
 *
 * A tuple has numeric coordinates (bin numbers, integers) and categorical coordinates (category codes). The distance of
 * two tuples is built from per-coordinate distances:
 * - numeric coordinate: |a - b| in bins (for `hamming`: 0 if equal, 1 otherwise, i.e. bins are treated as categories);
 * - categorical coordinate: the discrete metric, 0 if equal, 1 otherwise;
 * and the vector of per-coordinate distances is combined by the chosen norm:
 * - `l1`: their sum (on purely categorical tuples this is the Hamming distance);
 * - `linf`: their maximum;
 * - `l2`: the square root of the sum of their squares;
 * - `hamming`: the number of coordinates that differ (every coordinate, numeric ones included, compared as a category).
 * Each is a metric on tuples. The radius r is in bins. Because all per-coordinate distances are integers, `l1`, `linf`
 * and `hamming` compare against floor(r), and `l2` compares the integer squared distance against r2 = floor(r*r + 1e-9)
 * (the tolerance keeps e.g. r = Math.SQRT2 from losing the tuples at distance sqrt(2) to rounding).
 */

export type Metric = 'l1' | 'linf' | 'l2' | 'hamming'
export const METRICS: readonly Metric[] = ['l1', 'linf', 'l2', 'hamming']

export type ColumnKind = 'numeric' | 'categorical'

/** The integer threshold the distance (or, for l2, the squared distance) is compared against. */
export function radiusThreshold(metric: Metric, r: number): number {
  if (!(r >= 0) || !Number.isFinite(r)) throw new RangeError(`radius must be a finite number >= 0 (got ${r})`)
  return metric === 'l2' ? Math.floor(r * r + 1e-9) : Math.floor(r)
}

/**
 * The distance of two tuples in threshold units: the distance itself for l1/linf/hamming, the squared distance for l2.
 * Compare it with `radiusThreshold(metric, r)`.
 */
export function thresholdDistance(a: ArrayLike<number>, b: ArrayLike<number>, kinds: readonly ColumnKind[], metric: Metric): number {
  let acc = 0
  for (let k = 0; k < kinds.length; k++) {
    let c: number
    if (kinds[k] === 'categorical' || metric === 'hamming') c = a[k] === b[k] ? 0 : 1
    else c = Math.abs(a[k] - b[k])
    if (metric === 'linf') acc = c > acc ? c : acc
    else if (metric === 'l2') acc += c * c
    else acc += c
  }
  return acc
}

/** The distance itself (sqrt of the squared distance for l2). */
export function distance(a: ArrayLike<number>, b: ArrayLike<number>, kinds: readonly ColumnKind[], metric: Metric): number {
  const t = thresholdDistance(a, b, kinds, metric)
  return metric === 'l2' ? Math.sqrt(t) : t
}

export function withinRadius(a: ArrayLike<number>, b: ArrayLike<number>, kinds: readonly ColumnKind[], metric: Metric, r: number): boolean {
  return thresholdDistance(a, b, kinds, metric) <= radiusThreshold(metric, r)
}
