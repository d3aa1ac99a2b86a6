/**
 * From dataset columns to the universe of distinct binned tuples and the database histogram over it.
 *
 * Numeric columns are binned: bin = floor(value / binWidth) (in floating point, exactly as written). Categorical columns
 * are kept as they are, coded 0..K-1 in order of first appearance. The universe X is the set of distinct tuples that
 * occur; the database x is the histogram `counts` over X (x_i = number of records equal to tuple i).
 */
import type { ColumnKind } from './metric'
import { distinctKeys } from './distinct-keys'

export interface ColumnSpec {
  kind: ColumnKind
  /** Bin width of a numeric column, > 0 (default 1). Ignored for categorical columns. */
  binWidth?: number
}

/** One column's raw values: numbers for a numeric column, strings for a categorical one. */
export type ColumnValues = ArrayLike<number> | readonly string[]

export interface Universe {
  /** Number of coordinates of a tuple. */
  dims: number
  kinds: ColumnKind[]
  /** Bin width per coordinate (NaN for categorical). */
  binWidths: number[]
  /** Per categorical coordinate, its labels by code ([] for numeric coordinates). */
  categories: string[][]
  /** Number of distinct tuples m. */
  size: number
  /** The distinct tuples, row-major (size x dims), in lexicographic order of their coordinates. */
  points: Int32Array
  /** x_i: how many records equal tuple i. */
  counts: Float64Array
  /** For each input record, the index of its tuple. */
  recordPoint: Int32Array
  /** Number of records n. */
  total: number
}

const MAX_BIN = 2 ** 31 - 1

export function binOf(value: number, width: number): number {
  const b = Math.floor(value / width)
  if (!Number.isFinite(b) || Math.abs(b) > MAX_BIN) {
    throw new RangeError(`value ${value} with bin width ${width} gives a bin number outside the supported range; use a wider bin`)
  }
  return b
}

function checkSpecs(columns: readonly ColumnValues[], specs: readonly ColumnSpec[]): number {
  if (columns.length === 0) throw new RangeError('at least one column is needed')
  if (columns.length !== specs.length) throw new RangeError('one spec per column is needed')
  const n = columns[0].length
  for (let k = 0; k < columns.length; k++) {
    if (columns[k].length !== n) throw new RangeError('all columns must have the same length')
    const s = specs[k]
    if (s.kind === 'numeric') {
      const w = s.binWidth ?? 1
      if (!(w > 0) || !Number.isFinite(w)) throw new RangeError(`bin width must be a finite number > 0 (got ${w})`)
    }
  }
  if (n === 0) throw new RangeError('there are no records')
  return n
}

/** Build the universe and histogram from column values. */
export function buildUniverse(columns: readonly ColumnValues[], specs: readonly ColumnSpec[]): Universe {
  const n = checkSpecs(columns, specs)
  const d = columns.length
  const kinds = specs.map((s) => s.kind)
  const binWidths = specs.map((s) => (s.kind === 'numeric' ? (s.binWidth ?? 1) : NaN))
  const categories: string[][] = specs.map(() => [])
  // Integer coordinates per record, row-major.
  const coords = new Int32Array(n * d)
  const lo = new Array<number>(d).fill(Infinity)
  const hi = new Array<number>(d).fill(-Infinity)
  for (let k = 0; k < d; k++) {
    const col = columns[k]
    if (kinds[k] === 'numeric') {
      const w = binWidths[k]
      for (let i = 0; i < n; i++) {
        const v = col[i]
        if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`numeric column ${k} has a non-numeric value at record ${i}`)
        const b = binOf(v, w)
        coords[i * d + k] = b
        if (b < lo[k]) lo[k] = b
        if (b > hi[k]) hi[k] = b
      }
    } else {
      const codes = new Map<string, number>()
      const labels = categories[k]
      for (let i = 0; i < n; i++) {
        const v = String(col[i])
        let c = codes.get(v)
        if (c === undefined) {
          c = labels.length
          codes.set(v, c)
          labels.push(v)
        }
        coords[i * d + k] = c
      }
      lo[k] = 0
      hi[k] = labels.length - 1
    }
  }
  // Mixed-radix key, last coordinate least significant, so key order is lexicographic order.
  const stride = new Array<number>(d)
  let span = 1
  for (let k = d - 1; k >= 0; k--) {
    stride[k] = span
    span *= hi[k] - lo[k] + 1
  }
  let order: Int32Array // distinct tuple index -> a representative record
  let counts: Float64Array
  const recordPoint = new Int32Array(n)
  if (span <= Number.MAX_SAFE_INTEGER) {
    const keys = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      let key = 0
      for (let k = 0; k < d; k++) key += (coords[i * d + k] - lo[k]) * stride[k]
      keys[i] = key
    }
    const { distinct, index } = distinctKeys(keys)
    const m = distinct.length
    order = new Int32Array(m).fill(-1)
    counts = new Float64Array(m)
    for (let i = 0; i < n; i++) {
      const p = index[i]
      recordPoint[i] = p
      counts[p]++
      if (order[p] < 0) order[p] = i
    }
  } else {
    // Very wide spans: string keys, then a lexicographic sort of the distinct tuples.
    const index = new Map<string, number>()
    const reps: number[] = []
    const cnt: number[] = []
    for (let i = 0; i < n; i++) {
      const key = Array.prototype.join.call(coords.subarray(i * d, i * d + d), ',')
      let p = index.get(key)
      if (p === undefined) {
        p = reps.length
        index.set(key, p)
        reps.push(i)
        cnt.push(0)
      }
      recordPoint[i] = p
      cnt[p]++
    }
    const perm = reps.map((_, j) => j)
    perm.sort((a, b) => {
      for (let k = 0; k < d; k++) {
        const x = coords[reps[a] * d + k] - coords[reps[b] * d + k]
        if (x !== 0) return x
      }
      return 0
    })
    const rank = new Int32Array(perm.length)
    perm.forEach((j, r) => (rank[j] = r))
    order = Int32Array.from(perm, (j) => reps[j])
    counts = Float64Array.from(perm, (j) => cnt[j])
    for (let i = 0; i < n; i++) recordPoint[i] = rank[recordPoint[i]]
  }
  const m = order.length
  const points = new Int32Array(m * d)
  for (let p = 0; p < m; p++) points.set(coords.subarray(order[p] * d, order[p] * d + d), p * d)
  return { dims: d, kinds, binWidths, categories, size: m, points, counts, recordPoint, total: n }
}

/** Binned tuple of one raw record (numbers for numeric coordinates, strings for categorical). An unseen category gets code -1. */
export function encodeRecord(universe: Universe, raw: ReadonlyArray<number | string>): Int32Array {
  if (raw.length !== universe.dims) throw new RangeError(`a record needs ${universe.dims} values (got ${raw.length})`)
  const out = new Int32Array(universe.dims)
  for (let k = 0; k < universe.dims; k++) {
    const v = raw[k]
    if (universe.kinds[k] === 'numeric') {
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`value ${k + 1} of the record must be a number`)
      out[k] = binOf(v, universe.binWidths[k])
    } else {
      out[k] = universe.categories[k].indexOf(String(v))
    }
  }
  return out
}

/** Index of a tuple in the universe, or -1 if no record equals it. */
export function findPoint(universe: Universe, tuple: ArrayLike<number>): number {
  const d = universe.dims
  let l = 0
  let h = universe.size
  while (l < h) {
    const mid = (l + h) >>> 1
    let c = 0
    for (let k = 0; k < d && c === 0; k++) c = universe.points[mid * d + k] - tuple[k]
    if (c < 0) l = mid + 1
    else h = mid
  }
  if (l < universe.size) {
    for (let k = 0; k < d; k++) if (universe.points[l * d + k] !== tuple[k]) return -1
    return l
  }
  return -1
}

/** x_i for a tuple (0 if it is not in the data). */
export function countOf(universe: Universe, tuple: ArrayLike<number>): number {
  const p = findPoint(universe, tuple)
  return p < 0 ? 0 : universe.counts[p]
}
