/**
 * The O(m q) reference for ball counts: every query against every weighted point, with the distance of metric.ts
 * written out inline. For tests and the benchmark's baseline only; `ball-count.ts` is what the engine uses.
 */
import { type ColumnKind, type Metric, radiusThreshold } from './metric'

export function naiveCountBalls(
  points: Int32Array,
  weights: ArrayLike<number>,
  kinds: readonly ColumnKind[],
  metric: Metric,
  r: number,
  queries: Int32Array
): Float64Array {
  const d = kinds.length
  const T = radiusThreshold(metric, r)
  const m = weights.length
  const q = queries.length / d
  const discrete = Uint8Array.from(kinds, (k) => (k === 'categorical' || metric === 'hamming' ? 1 : 0))
  const mode = metric === 'linf' ? 1 : metric === 'l2' ? 2 : 0
  const out = new Float64Array(q)
  for (let i = 0; i < q; i++) {
    const qo = i * d
    let total = 0
    for (let j = 0; j < m; j++) {
      const po = j * d
      let acc = 0
      for (let k = 0; k < d; k++) {
        const diff = queries[qo + k] - points[po + k]
        const c = discrete[k] ? (diff === 0 ? 0 : 1) : diff < 0 ? -diff : diff
        if (mode === 1) acc = c > acc ? c : acc
        else if (mode === 2) acc += c * c
        else acc += c
      }
      if (acc <= T) total += weights[j]
    }
    out[i] = total
  }
  return out
}
