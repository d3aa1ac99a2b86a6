/**
 * Distinct values of a key array, sorted, and where each key sits among them: how both histogram builders (records.ts
 * for the data, ball-count.ts for its grid rows) turn numeric keys into point indices.
 */
export interface DistinctKeys {
  /** the distinct keys in ascending order */
  distinct: Float64Array
  /** index[i] = position of keys[i] in `distinct` */
  index: Int32Array
}

export function distinctKeys(keys: Float64Array): DistinctKeys {
  const sorted = keys.slice().sort()
  let m = 0
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[m++] = sorted[i]
  const distinct = sorted.subarray(0, m)
  const index = new Int32Array(keys.length)
  for (let i = 0; i < keys.length; i++) index[i] = lowerBound(distinct, keys[i])
  return { distinct, index }
}

/** First position in the ascending `a` whose value is not below x. */
function lowerBound(a: Float64Array, x: number): number {
  let l = 0
  let h = a.length
  while (l < h) {
    const mid = (l + h) >>> 1
    if (a[mid] < x) l = mid + 1
    else h = mid
  }
  return l
}
