/**
 * Ball counts B_x(i, r) = sum of x_j over tuples j with d(i, j) <= r (closed ball, i's own copies included), for every
 * distinct tuple at once or for arbitrary query tuples, without a pass over all pairs.
 *
 * Numeric part ("rows and stencil"): the distinct tuples are grouped into rows that share every coordinate but the last
 * numeric one; each row keeps its last coordinates sorted with prefix sums of the weights. A ball on the integer lattice
 * is a union of segments along the last coordinate: for each offset o of the other numeric coordinates inside the ball
 * (the stencil, enumerated once), the segment is [last - h(o), last + h(o)] in the row at prefix + o. Row keys are
 * mixed-radix numbers padded by the radius, so a stencil offset is a constant key delta and rows are found in a dense
 * table (an open-addressing hash table when the dense one would be large). One query costs |stencil| lookups and binary
 * searches; when the stencil has more offsets than there are rows (radius large against the spread of the data) the
 * query scans the rows instead. In one dimension this is sorting + prefix sums + binary search.
 *
 * Categorical coordinates (and every coordinate under `hamming`) are handled by inclusion-exclusion over the subsets S of
 * categorical coordinates on which j must agree with i: with F_S(rho) = weight of tuples agreeing with i on S within
 * numeric budget rho, the weight of tuples agreeing on exactly m categorical coordinates is
 * E_m(rho) = sum over s >= m of (-1)^(s-m) C(s, m) sum_{|S| = s} F_S(rho), and B = sum over m of E_m(budget(C - m)),
 * the numeric budget left after C - m categorical mismatches (metric.ts says how a mismatch counts for each norm).
 * F_S is the numeric computation with the coordinates in S added to the row key (they must match exactly).
 * Cost: at most 2^C (C + 1) numeric passes; C is limited to 12.
 */
import { type ColumnKind, type Metric, radiusThreshold } from './metric'
import { distinctKeys } from './distinct-keys'

const DENSE_LIMIT = 1 << 22
const MAX_CATEGORICAL = 12

type NumericNorm = 'l1' | 'linf' | 'l2'

function isqrt(x: number): number {
  let s = Math.floor(Math.sqrt(x))
  while (s * s > x) s--
  while ((s + 1) * (s + 1) <= x) s++
  return s
}

function upperBound(a: Int32Array, x: number, l: number, h: number): number {
  while (l < h) {
    const mid = (l + h) >>> 1
    if (a[mid] <= x) l = mid + 1
    else h = mid
  }
  return l
}

function lowerBound(a: Int32Array, x: number, l: number, h: number): number {
  while (l < h) {
    const mid = (l + h) >>> 1
    if (a[mid] < x) l = mid + 1
    else h = mid
  }
  return l
}

/** The points grouped into rows: same prefix coordinates (exact dims, then numeric prefix dims), sorted last coordinate. */
interface Rows {
  /** prefix dims: exact dims first, then the numeric prefix dims */
  pdims: number[]
  nExact: number
  /** smallest and largest value of each prefix dim over the points */
  lo: number[]
  hi: number[]
  count: number
  /** row r holds distinct tuples rowStart[r] .. rowStart[r + 1] - 1 */
  rowStart: Int32Array
  /** row r's prefix coordinates at r * P .. r * P + P - 1 */
  rowPrefix: Int32Array
  /** the distinct tuples' last numeric coordinate, ascending within a row */
  lastVals: Int32Array
  /** prefix sums of the distinct tuples' weights */
  cum: Float64Array
}

function valueRange(points: Int32Array, d: number, m: number, k: number): [number, number] {
  let a = Infinity
  let b = -Infinity
  for (let j = 0; j < m; j++) {
    const v = points[j * d + k]
    if (v < a) a = v
    if (v > b) b = v
  }
  return [a, b]
}

/** Groups the points into rows (see the file's comment): sorted mixed-radix keys, weights summed per distinct tuple. */
function buildRows(d: number, points: Int32Array, weights: ArrayLike<number>, exactDims: readonly number[], numDims: readonly number[]): Rows {
  const m = weights.length
  const hasLast = numDims.length > 0
  const lastDim = hasLast ? numDims[numDims.length - 1] : -1
  const pdims = [...exactDims, ...(hasLast ? numDims.slice(0, -1) : [])]
  const P = pdims.length
  const lo = new Array<number>(P)
  const hi = new Array<number>(P)
  for (let t = 0; t < P; t++) [lo[t], hi[t]] = valueRange(points, d, m, pdims[t])
  // Unpadded mixed-radix row keys (exact dims, then numeric prefix dims) for sorting the points into rows.
  const stride = new Array<number>(P)
  let span = 1
  for (let t = P - 1; t >= 0; t--) {
    stride[t] = span
    span *= hi[t] - lo[t] + 1
  }
  const [loL, hiL] = hasLast ? valueRange(points, d, m, lastDim) : [0, 0]
  const lspan = hiL - loL + 1
  if (span * lspan > Number.MAX_SAFE_INTEGER) {
    throw new RangeError('the binned data spans too many bins to index; use wider bins or fewer columns')
  }
  // Combined key per point: rowKey * lspan + (last - loL). Sort distinct keys and aggregate weights.
  const keys = new Float64Array(m)
  for (let j = 0; j < m; j++) {
    let rk = 0
    for (let t = 0; t < P; t++) rk += (points[j * d + pdims[t]] - lo[t]) * stride[t]
    keys[j] = rk * lspan + (hasLast ? points[j * d + lastDim] - loL : 0)
  }
  const { distinct: ukeys, index } = distinctKeys(keys)
  const u = ukeys.length
  const w = new Float64Array(u)
  for (let j = 0; j < m; j++) w[index[j]] += weights[j]
  const lastVals = new Int32Array(u)
  const cum = new Float64Array(u + 1)
  const rowStartList: number[] = []
  const rowKeyList: number[] = []
  let prevRow = -1
  for (let j = 0; j < u; j++) {
    const key = ukeys[j]
    let rk = Math.floor(key / lspan)
    let rem = key - rk * lspan
    if (rem < 0) {
      rk--
      rem += lspan
    } else if (rem >= lspan) {
      rk++
      rem -= lspan
    }
    lastVals[j] = rem + loL
    cum[j + 1] = cum[j] + w[j]
    if (rk !== prevRow) {
      rowStartList.push(j)
      rowKeyList.push(rk)
      prevRow = rk
    }
  }
  const rows = rowStartList.length
  const rowStart = new Int32Array(rows + 1)
  rowStart.set(rowStartList)
  rowStart[rows] = u
  // Row prefixes (coordinates), decoded from the unpadded keys.
  const rowPrefix = new Int32Array(rows * P)
  for (let r = 0; r < rows; r++) {
    let rk = rowKeyList[r]
    for (let t = 0; t < P; t++) {
      let c = Math.floor(rk / stride[t])
      if (rk - c * stride[t] < 0) c--
      else if (rk - c * stride[t] >= stride[t]) c++
      rk -= c * stride[t]
      rowPrefix[r * P + t] = c + lo[t]
    }
  }
  return { pdims, nExact: exactDims.length, lo, hi, count: rows, rowStart, rowPrefix, lastVals, cum }
}

/** The offsets of the numeric prefix dims inside the ball, as constant deltas of keys padded by the radius. */
interface Stencil {
  /** false: the stencil is larger than the number of rows or the padded keys overflow; scan the rows instead */
  usable: boolean
  /** per prefix dim: the padded key's origin and stride */
  base: number[]
  pstride: number[]
  pspan: number
  /** offset e's coordinates at e * np .. (e + 1) * np - 1, its key delta and its half-width along the last dim */
  offs: number[]
  deltas: number[]
  halfs: number[]
}

function buildStencil(rows: Rows, norm: NumericNorm, budget: number, rad: number, halfWidth: (partial: number) => number): Stencil {
  const { lo, hi, nExact } = rows
  const P = rows.pdims.length
  const np = P - nExact
  const base = lo.map((v, t) => (t < nExact ? v : v - rad))
  const pstride = new Array<number>(P)
  let pspan = 1
  for (let t = P - 1; t >= 0; t--) {
    pstride[t] = pspan
    pspan *= hi[t] - lo[t] + 1 + (t < nExact ? 0 : 2 * rad)
  }
  let boxSize = 1
  for (let t = 0; t < np; t++) boxSize *= 2 * rad + 1
  const stencil: Stencil = { usable: false, base, pstride, pspan, offs: [], deltas: [], halfs: [] }
  if (boxSize > 4 * rows.count + 16 || pspan > Number.MAX_SAFE_INTEGER) return stencil
  const o = new Array<number>(np).fill(-rad)
  for (let c = 0; c < boxSize; c++) {
    let partial = 0
    let delta = 0
    for (let t = 0; t < np; t++) {
      const a = Math.abs(o[t])
      partial = norm === 'l1' ? partial + a : norm === 'linf' ? Math.max(partial, a) : partial + a * a
      delta += o[t] * pstride[nExact + t]
    }
    if (partial <= budget) {
      stencil.offs.push(...o)
      stencil.deltas.push(delta)
      stencil.halfs.push(halfWidth(partial))
    }
    for (let t = np - 1; t >= 0; t--) {
      if (o[t] < rad) {
        o[t]++
        break
      }
      o[t] = -rad
    }
  }
  stencil.usable = stencil.deltas.length <= rows.count
  return stencil
}

/** Row lookup by padded key: a dense table when the padded key space is small enough, else an open-addressing hash. */
function buildLookup(rows: Rows, stencil: Stencil): (key: number) => number {
  const P = rows.pdims.length
  const { base, pstride, pspan } = stencil
  const paddedKey = (r: number): number => {
    let key = 0
    for (let t = 0; t < P; t++) key += (rows.rowPrefix[r * P + t] - base[t]) * pstride[t]
    return key
  }
  if (pspan <= DENSE_LIMIT) {
    const dense = new Int32Array(pspan).fill(-1)
    for (let r = 0; r < rows.count; r++) dense[paddedKey(r)] = r
    return (key) => dense[key]
  }
  const hash = new KeyTable(rows.count)
  for (let r = 0; r < rows.count; r++) hash.set(paddedKey(r), r)
  return (key) => hash.get(key)
}

/**
 * The weight of points j that agree with each query on every coordinate in `exactDims` and whose numeric distance over
 * `numDims` (norm `norm`, in threshold units: the squared distance for l2) is <= budget (>= 0).
 */
function countWithin(
  d: number,
  points: Int32Array,
  weights: ArrayLike<number>,
  exactDims: readonly number[],
  numDims: readonly number[],
  norm: NumericNorm,
  budget: number,
  queries: Int32Array
): Float64Array {
  const q = queries.length / d
  const out = new Float64Array(q)
  if (weights.length === 0 || q === 0) return out
  const rad = norm === 'l2' ? isqrt(budget) : budget
  const halfWidth = (partial: number): number => (norm === 'l1' ? budget - partial : norm === 'linf' ? budget : isqrt(budget - partial))
  const rows = buildRows(d, points, weights, exactDims, numDims)
  const stencil = buildStencil(rows, norm, budget, rad, halfWidth)
  const rowOf = stencil.usable ? buildLookup(rows, stencil) : () => -1
  const lastDim = numDims.length > 0 ? numDims[numDims.length - 1] : -1
  const qp = new Array<number>(rows.pdims.length)
  for (let i = 0; i < q; i++) out[i] = queryOne(rows, stencil, rowOf, norm, budget, halfWidth, queries, i * d, lastDim, qp)
  return out
}

/** The weight of row r's tuples whose last coordinate is in [a, b]. */
function segment(rows: Rows, r: number, a: number, b: number): number {
  const s = rows.rowStart[r]
  const e = rows.rowStart[r + 1]
  return rows.cum[upperBound(rows.lastVals, b, s, e)] - rows.cum[lowerBound(rows.lastVals, a, s, e)]
}

/** One query's ball weight: through the stencil and the lookup, or by scanning the rows when the stencil is unusable. */
function queryOne(
  rows: Rows,
  stencil: Stencil,
  rowOf: (key: number) => number,
  norm: NumericNorm,
  budget: number,
  halfWidth: (partial: number) => number,
  queries: Int32Array,
  qo: number,
  lastDim: number,
  qp: number[]
): number {
  const { pdims, nExact, lo, hi, rowPrefix } = rows
  const P = pdims.length
  const np = P - nExact
  const { base, pstride, offs, deltas, halfs } = stencil
  let outside = false
  let key = 0
  for (let t = 0; t < P; t++) {
    const v = queries[qo + pdims[t]]
    qp[t] = v
    if (v < lo[t] || v > hi[t]) {
      if (t < nExact) return 0
      outside = true
    }
    key += (v - base[t]) * pstride[t]
  }
  const last = lastDim >= 0 ? queries[qo + lastDim] : 0
  let total = 0
  if (!stencil.usable) {
    for (let r = 0; r < rows.count; r++) {
      let ok = true
      for (let t = 0; t < nExact; t++) {
        if (rowPrefix[r * P + t] !== qp[t]) {
          ok = false
          break
        }
      }
      if (!ok) continue
      let partial = 0
      for (let t = nExact; t < P; t++) {
        const a = Math.abs(rowPrefix[r * P + t] - qp[t])
        partial = norm === 'l1' ? partial + a : norm === 'linf' ? Math.max(partial, a) : partial + a * a
      }
      if (partial > budget) continue
      const h = halfWidth(partial)
      total += segment(rows, r, last - h, last + h)
    }
    return total
  }
  for (let e = 0; e < deltas.length; e++) {
    if (outside) {
      let inBox = true
      for (let t = 0; t < np; t++) {
        const v = qp[nExact + t] + offs[e * np + t]
        if (v < lo[nExact + t] || v > hi[nExact + t]) {
          inBox = false
          break
        }
      }
      if (!inBox) continue
    }
    const r = rowOf(key + deltas[e])
    if (r >= 0) total += segment(rows, r, last - halfs[e], last + halfs[e])
  }
  return total
}

/** Open-addressing hash table from non-negative integer keys (< 2^53) to non-negative ints; get() gives -1 when absent. */
class KeyTable {
  private readonly keys: Float64Array
  private readonly vals: Int32Array
  private readonly mask: number
  constructor(n: number) {
    let cap = 16
    while (cap < 2 * n) cap *= 2
    this.keys = new Float64Array(cap).fill(-1)
    this.vals = new Int32Array(cap)
    this.mask = cap - 1
  }
  private slot(key: number): number {
    const lo = key >>> 0
    const hi = (key / 4294967296) >>> 0
    let h = Math.imul(lo ^ Math.imul(hi, 0x27d4eb2d), 0x9e3779b1)
    h ^= h >>> 15
    h = Math.imul(h, 0x85ebca6b)
    h ^= h >>> 13
    return h & this.mask
  }
  set(key: number, val: number): void {
    let i = this.slot(key)
    while (this.keys[i] !== -1 && this.keys[i] !== key) i = (i + 1) & this.mask
    this.keys[i] = key
    this.vals[i] = val
  }
  get(key: number): number {
    let i = this.slot(key)
    for (;;) {
      const k = this.keys[i]
      if (k === key) return this.vals[i]
      if (k === -1) return -1
      i = (i + 1) & this.mask
    }
  }
}

function binomial(n: number, k: number): number {
  let c = 1
  for (let t = 1; t <= k; t++) c = (c * (n - k + t)) / t
  return Math.round(c)
}

/**
 * Ball counts for arbitrary query tuples (row-major, q x dims) against the weighted distinct points.
 * `points` (m x dims) with `weights` (m) is the histogram; kinds say which coordinates are categorical.
 * Query coordinates may hold category codes that no point has (e.g. -1 for an unseen category).
 */
export function countBalls(
  points: Int32Array,
  weights: ArrayLike<number>,
  kinds: readonly ColumnKind[],
  metric: Metric,
  r: number,
  queries: Int32Array
): Float64Array {
  const d = kinds.length
  const T = radiusThreshold(metric, r)
  const catDims: number[] = []
  const numDims: number[] = []
  for (let k = 0; k < d; k++) {
    if (metric === 'hamming' || kinds[k] === 'categorical') catDims.push(k)
    else numDims.push(k)
  }
  const norm: NumericNorm = metric === 'hamming' ? 'l1' : metric
  const C = catDims.length
  if (C === 0) return countWithin(d, points, weights, [], numDims, norm, T, queries)
  if (C > MAX_CATEGORICAL) throw new RangeError(`at most ${MAX_CATEGORICAL} categorical coordinates are supported (got ${C})`)
  // Numeric budget left after c categorical mismatches; -1 if none.
  const budget = (c: number): number => {
    if (metric === 'linf') return c === 0 || T >= 1 ? T : -1
    return T - c
  }
  const out = new Float64Array(queries.length / d)
  for (let mask = 0; mask < 1 << C; mask++) {
    const S: number[] = []
    for (let t = 0; t < C; t++) if (mask & (1 << t)) S.push(catDims[t])
    const s = S.length
    // Sum the coefficients of the same numeric pass (same budget; with no numeric dims any budget >= 0 is the same).
    const coef = new Map<number, number>()
    for (let mm = 0; mm <= s; mm++) {
      const b = budget(C - mm)
      if (b < 0) continue
      const key = numDims.length === 0 ? 0 : b
      const c = (s - mm) % 2 === 0 ? binomial(s, mm) : -binomial(s, mm)
      coef.set(key, (coef.get(key) ?? 0) + c)
    }
    for (const [b, c] of coef) {
      if (c === 0) continue
      const F = countWithin(d, points, weights, S, numDims, norm, b, queries)
      for (let i = 0; i < out.length; i++) out[i] += c * F[i]
    }
  }
  return out
}

/** B(i, r) for every distinct tuple of the histogram (points row-major m x dims). */
export function ballCountsOfPoints(
  points: Int32Array,
  weights: ArrayLike<number>,
  kinds: readonly ColumnKind[],
  metric: Metric,
  r: number
): Float64Array {
  return countBalls(points, weights, kinds, metric, r, points)
}
