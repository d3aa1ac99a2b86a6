/**
 * Person-level anomaly identification: each asked record's own count x_i and ball count B(i, r) under a bound on what
 * one person contributes near it (ALGORITHMS.md sections 2 and 6; the derivation is in docs/anomaly-identification.md).
 *
 * The records asked are public, so the only rows that can change an answer are those within the radius of an asked
 * record. Near each asked record i, separately, every person counts:
 * - at most `rowsPerBin` rows in any one bin (a distinct binned tuple), and
 * - in at most `binsPerPerson` bins of the ball B(i, r): i's own bin first when the person has rows there, then the
 *   others in the order of a random priority per (person, bin) drawn from `rng` (the release's secure generator; in a
 *   simulation a seeded one). The priorities are one random function shared by every record asked, as maxGroups keeps
 *   a keyed random subset of a person's groups.
 * What a person keeps depends only on that person's own rows and priorities, so adding or removing one person changes
 * x_i by at most rowsPerBin and B(i, r) by at most rowsPerBin x binsPerPerson, rows of that person only: the answer's
 * flip distance lambda moves by at most L = rowsPerBin x binsPerPerson add/remove-one-record steps. With epsilon per
 * step, one record's answer costs L epsilon for a person, and q records q L epsilon (sequential composition).
 *
 * The bound never silences a row-level anomaly: the own bin is kept first and a kept bin counts at least one row, so
 * x_i >= 1 stays >= 1, while B(i, r) can only fall. At the defaults (1 and 1) B(i, r) counts the persons near i.
 */
import type { Rng } from '../random'
import { type ColumnKind, type Metric, radiusThreshold, thresholdDistance } from './metric'

export interface PersonBound {
  /** The most rows one person counts in one bin near an asked record (>= 1). */
  rowsPerBin: number
  /** The most bins one person counts within the radius of one asked record, its own bin first (>= 1). */
  binsPerPerson: number
}

export function checkPersonBound(b: PersonBound): void {
  for (const [name, v] of [
    ['rowsPerBin', b.rowsPerBin],
    ['binsPerPerson', b.binsPerPerson]
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a whole number >= 1 (got ${v})`)
  }
}

export interface BoundedCounts {
  /** x_i per asked record, after the bound */
  own: Float64Array
  /** B(i, r) per asked record, after the bound */
  ball: Float64Array
}

export interface PersonRows {
  /** The binned tuples of the distinct points, row-major (size x dims), as `Universe.points`. */
  points: Int32Array
  kinds: readonly ColumnKind[]
  /** Per row: its point's index. */
  rowPoint: Int32Array
  /** Per row: its person's code (>= 0); rows with -1 count for nobody (left out). */
  rowPerson: Int32Array
}

/**
 * For each asked record (`asked`: point indices into `rows.points`), x_i and B(i, r) under the bound. Cost: a sort of the
 * rows' (person, point) keys, then for every distinct (person, point) pair the asked records within the radius of that
 * point (records sorted on their first numeric coordinate when the metric allows pruning on it).
 */
export function boundedBallCounts(rows: PersonRows, asked: Int32Array, metric: Metric, radius: number, bound: PersonBound, rng: Rng): BoundedCounts {
  checkPersonBound(bound)
  const d = rows.kinds.length
  const q = asked.length
  const own = new Float64Array(q)
  const ball = new Float64Array(q)
  const pairs = personPointPairs(rows)
  if (pairs.count === 0 || q === 0) return { own, ball }
  const near = recordsNear(rows.points, rows.kinds, metric, radius, asked, d)
  const kept = new Int32Array(q)
  const touched: number[] = []
  const order: number[] = []
  for (let start = 0; start < pairs.count;) {
    const person = pairs.person[start]
    let end = start
    while (end < pairs.count && pairs.person[end] === person) end++
    // The record's own bin first: counted for every asked record at that point.
    for (let j = start; j < end; j++) {
      const pt = pairs.point[j]
      const capped = Math.min(pairs.rows[j], bound.rowsPerBin)
      for (const r of near(pt)) {
        if (asked[r] !== pt) continue
        if (kept[r] === 0) touched.push(r)
        own[r] += capped
        ball[r] += capped
        kept[r] = 1
      }
    }
    // The other bins in the order of their random priorities, while the record's ball has room.
    order.length = 0
    for (let j = start; j < end; j++) order.push(j)
    const priority = new Float64Array(end - start)
    for (let j = 0; j < priority.length; j++) priority[j] = rng.next()
    order.sort((a, b) => priority[a - start] - priority[b - start] || a - b)
    for (const j of order) {
      const pt = pairs.point[j]
      const capped = Math.min(pairs.rows[j], bound.rowsPerBin)
      for (const r of near(pt)) {
        if (asked[r] === pt || kept[r] >= bound.binsPerPerson) continue
        if (kept[r] === 0) touched.push(r)
        ball[r] += capped
        kept[r]++
      }
    }
    for (const r of touched) kept[r] = 0
    touched.length = 0
    start = end
  }
  return { own, ball }
}

/** Distinct (person, point) pairs with their row counts, sorted by person then point. */
function personPointPairs(rows: PersonRows): { count: number; person: Int32Array; point: Int32Array; rows: Float64Array } {
  const n = rows.rowPoint.length
  let m = 0
  for (let i = 0; i < n; i++) if (rows.rowPerson[i] >= 0) m++
  const size = rows.points.length / Math.max(1, rows.kinds.length)
  // person * size + point is below 2^53 (both are below 2^31).
  const keys = new Float64Array(m)
  let k = 0
  for (let i = 0; i < n; i++) if (rows.rowPerson[i] >= 0) keys[k++] = rows.rowPerson[i] * size + rows.rowPoint[i]
  keys.sort()
  const person = new Int32Array(m)
  const point = new Int32Array(m)
  const count = new Float64Array(m)
  let c = -1
  for (let i = 0; i < m; i++) {
    if (i === 0 || keys[i] !== keys[i - 1]) {
      c++
      person[c] = Math.floor(keys[i] / size)
      point[c] = keys[i] - person[c] * size
    }
    count[c]++
  }
  return { count: c + 1, person, point, rows: count }
}

/**
 * A lookup from a point to the asked records whose ball contains it (memoised per point). Under l1, linf and l2 a
 * numeric coordinate differs by at most the distance, so the records are kept sorted on the first numeric coordinate
 * and only those within floor(radius) of the point's value there are compared.
 */
function recordsNear(
  points: Int32Array,
  kinds: readonly ColumnKind[],
  metric: Metric,
  radius: number,
  asked: Int32Array,
  d: number
): (pt: number) => number[] {
  const T = radiusThreshold(metric, radius)
  const reach = Math.floor(radius + 1e-9)
  const axis = metric === 'hamming' ? -1 : kinds.findIndex((k) => k === 'numeric')
  const byAxis = Array.from(asked.keys())
  const value = (r: number) => points[asked[r] * d + axis]
  if (axis >= 0) byAxis.sort((a, b) => value(a) - value(b) || a - b)
  const axisValues = axis >= 0 ? Int32Array.from(byAxis, value) : new Int32Array(0)
  const memo = new Map<number, number[]>()
  return (pt) => {
    let out = memo.get(pt)
    if (out !== undefined) return out
    out = []
    const at = points.subarray(pt * d, pt * d + d)
    let lo = 0
    let hi = byAxis.length
    if (axis >= 0) {
      lo = lowerBound(axisValues, at[axis] - reach)
      hi = lowerBound(axisValues, at[axis] + reach + 1)
    }
    for (let j = lo; j < hi; j++) {
      const r = byAxis[j]
      if (thresholdDistance(at, points.subarray(asked[r] * d, asked[r] * d + d), kinds, metric) <= T) out.push(r)
    }
    out.sort((a, b) => a - b)
    memo.set(pt, out)
    return out
  }
}

function lowerBound(a: Int32Array, x: number): number {
  let l = 0
  let h = a.length
  while (l < h) {
    const mid = (l + h) >>> 1
    if (a[mid] < x) l = mid + 1
    else h = mid
  }
  return l
}
