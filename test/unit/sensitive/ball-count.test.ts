import { describe, expect, it } from 'vitest'
import { countBalls, ballCountsOfPoints } from '../../../src-worker/engine/sensitive/ball-count'
import { naiveCountBalls } from '../../../src-worker/engine/sensitive/ball-count-naive'
import { buildUniverse, encodeRecord, type ColumnSpec } from '../../../src-worker/engine/sensitive/records'
import { METRICS, distance, withinRadius, type ColumnKind } from '../../../src-worker/engine/sensitive/metric'
import { seededRng, type Rng } from '../../../src-worker/engine/random'

function gauss(rng: Rng): number {
  const u = 1 - rng.next()
  const v = rng.next()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
}

/** n records, clustered Gaussian numeric columns and small categorical ones. */
function randomColumns(rng: Rng, n: number, kinds: ColumnKind[], spread: number): Array<number[] | string[]> {
  const centres = [0, 3, -5].map((c) => c * spread)
  const cluster = Array.from({ length: n }, () => Math.floor(rng.next() * centres.length))
  return kinds.map((k) =>
    k === 'numeric'
      ? cluster.map((c) => centres[c] + spread * gauss(rng))
      : cluster.map((c) => (rng.next() < 0.7 ? `c${c}` : `c${Math.floor(rng.next() * 4)}`))
  )
}

const cases: Array<{ name: string; kinds: ColumnKind[]; spread: number; widths?: number[] }> = [
  { name: '1-D', kinds: ['numeric'], spread: 6 },
  { name: '2-D', kinds: ['numeric', 'numeric'], spread: 4, widths: [0.5, 1] },
  { name: '4-D', kinds: ['numeric', 'numeric', 'numeric', 'numeric'], spread: 2.5 },
  { name: 'categorical', kinds: ['categorical', 'categorical', 'categorical'], spread: 1 },
  { name: 'mixed', kinds: ['numeric', 'categorical', 'numeric', 'categorical'], spread: 3 }
]

describe('the naive reference uses the documented metric', () => {
  it('counts a point iff its distance (l1 sum, linf max, l2 root of squares, 0/1 per category, hamming) is <= r', () => {
    const rng = seededRng('metric')
    const kinds: ColumnKind[] = ['numeric', 'categorical', 'numeric']
    for (let t = 0; t < 3000; t++) {
      const a = Int32Array.from([Math.floor(rng.next() * 7), Math.floor(rng.next() * 2), Math.floor(rng.next() * 7)])
      const b = Int32Array.from([Math.floor(rng.next() * 7), Math.floor(rng.next() * 2), Math.floor(rng.next() * 7)])
      const r = Math.floor(rng.next() * 16) / 2
      const dx = Math.abs(a[0] - b[0])
      const dz = Math.abs(a[2] - b[2])
      const dc = a[1] === b[1] ? 0 : 1
      const want = { l1: dx + dc + dz, linf: Math.max(dx, dc, dz), l2: Math.sqrt(dx * dx + dc + dz * dz), hamming: (dx ? 1 : 0) + dc + (dz ? 1 : 0) }
      for (const metric of METRICS) {
        expect(distance(a, b, kinds, metric)).toBeCloseTo(want[metric], 12)
        const inBall = want[metric] <= r + 1e-12
        expect(withinRadius(a, b, kinds, metric, r)).toBe(inBall)
        expect(naiveCountBalls(b, [1], kinds, metric, r, a)[0]).toBe(inBall ? 1 : 0)
      }
    }
  })
})

describe('ball counts: fast path equals the naive count', () => {
  for (const c of cases) {
    for (const metric of METRICS) {
      it(`${c.name}, ${metric}`, () => {
        const rng = seededRng(`balls/${c.name}/${metric}`)
        const n = 600
        const cols = randomColumns(rng, n, c.kinds, c.spread)
        const specs: ColumnSpec[] = c.kinds.map((kind, k) => ({ kind, binWidth: c.widths?.[k] ?? 1 }))
        const u = buildUniverse(cols, specs)
        const radii = c.kinds.length === 4 ? [0, 1, 1.5, 2, 3.2] : [0, 1, 1.5, 2.9, 4, 40]
        for (const r of radii) {
          const fast = ballCountsOfPoints(u.points, u.counts, u.kinds, metric, r)
          const naive = naiveCountBalls(u.points, u.counts, u.kinds, metric, r, u.points)
          expect(Array.from(fast), `r = ${r}`).toEqual(Array.from(naive))
          // Against the records themselves (no histogram): B(i) summed over records.
          const ones = new Float64Array(n).fill(1)
          const recPoints = new Int32Array(n * u.dims)
          for (let i = 0; i < n; i++) recPoints.set(u.points.subarray(u.recordPoint[i] * u.dims, (u.recordPoint[i] + 1) * u.dims), i * u.dims)
          const perRecord = naiveCountBalls(recPoints, ones, u.kinds, metric, r, u.points)
          expect(Array.from(fast)).toEqual(Array.from(perRecord))
          // Arbitrary queries: records shifted off the data, and unseen categories.
          const q = 50
          const queries = new Int32Array(q * u.dims)
          for (let i = 0; i < q; i++) {
            const raw = c.kinds.map((k, j) =>
              k === 'numeric' ? (cols[j][i] as number) + (rng.next() - 0.5) * 6 * c.spread : rng.next() < 0.2 ? 'unseen' : (cols[j][i] as string)
            )
            queries.set(encodeRecord(u, raw), i * u.dims)
          }
          expect(Array.from(countBalls(u.points, u.counts, u.kinds, metric, r, queries))).toEqual(
            Array.from(naiveCountBalls(u.points, u.counts, u.kinds, metric, r, queries))
          )
        }
      })
    }
  }

  it('queries beyond the data in one middle coordinate (no aliasing of row keys)', () => {
    const rng = seededRng('balls/beyond')
    const n = 300
    const kinds: ColumnKind[] = ['numeric', 'numeric', 'numeric']
    const cols = kinds.map(() => Array.from({ length: n }, () => Math.floor(rng.next() * 12)))
    const u = buildUniverse(
      cols,
      kinds.map((kind) => ({ kind }))
    )
    // Every point, with its middle coordinate moved 1..40 bins past either end of the data.
    const shifted: number[] = []
    for (let p = 0; p < u.size; p++) {
      for (let s = 1; s <= 40; s++) {
        for (const v of [11 + s, 0 - s]) shifted.push(u.points[p * 3], v, u.points[p * 3 + 2])
      }
    }
    const queries = Int32Array.from(shifted)
    for (const metric of METRICS) {
      for (const r of [0, 1, 2, 5]) {
        expect(Array.from(countBalls(u.points, u.counts, u.kinds, metric, r, queries))).toEqual(
          Array.from(naiveCountBalls(u.points, u.counts, u.kinds, metric, r, queries))
        )
      }
    }
  })

  it('wide spreads (row table in a Map instead of a dense array) and large radii (row scan)', () => {
    const rng = seededRng('balls/wide')
    const n = 400
    const kinds: ColumnKind[] = ['numeric', 'numeric', 'numeric', 'numeric']
    const cols = kinds.map(() => Array.from({ length: n }, () => Math.floor(rng.next() * 400)))
    const u = buildUniverse(
      cols,
      kinds.map((kind) => ({ kind }))
    )
    for (const metric of METRICS) {
      for (const r of [3, 60, 700, 1e9]) {
        expect(Array.from(ballCountsOfPoints(u.points, u.counts, u.kinds, metric, r))).toEqual(
          Array.from(naiveCountBalls(u.points, u.counts, u.kinds, metric, r, u.points))
        )
      }
    }
  })
})
