/**
 * Ball counts B(i, r) for every record, against their targets: 1,000,000 records x 2 numeric attributes (<= 3 s),
 * 200,000 records x 4 attributes (<= 5 s), and fast vs naive (all pairs of records) on 20,000 records.
 * Data: clustered Gaussian values (seeded), binned. Timed: binning + distinct tuples + ball counts of every distinct
 * tuple (which gives B for every record through recordPoint). Prints one JSON line.
 */
import { buildUniverse, type ColumnSpec } from '../../src-worker/engine/sensitive/records'
import { ballCountsOfPoints } from '../../src-worker/engine/sensitive/ball-count'
import { naiveCountBalls } from '../../src-worker/engine/sensitive/ball-count-naive'
import type { Metric } from '../../src-worker/engine/sensitive/metric'
import { seededRng, type Rng } from '../../src-worker/engine/random'
import { report, round, timeRuns, type TimingStats } from './timing'

/** timeRuns plus the mean CPU time per run (user + system): on a shared machine wall time includes waiting for a core. */
function timed(runs: number, fn: () => void, warmup = 1): TimingStats & { cpuMeanMs: number } {
  for (let i = 0; i < warmup; i++) fn()
  const c0 = process.cpuUsage()
  const stats = timeRuns(runs, fn, 0)
  const c = process.cpuUsage(c0)
  return { ...stats, cpuMeanMs: round((c.user + c.system) / 1000 / runs) }
}

function gauss(rng: Rng): number {
  const u = 1 - rng.next()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next())
}

/** n records in `dims` attributes: `clusters` Gaussian clusters (sd `sd`) with centres uniform in [0, 1000]^dims, 0.5% uniform background. */
function clustered(seed: string, n: number, dims: number, clusters: number, sd: number): Float64Array[] {
  const rng = seededRng(seed)
  const centres = Array.from({ length: clusters }, () => Array.from({ length: dims }, () => rng.next() * 1000))
  const cols = Array.from({ length: dims }, () => new Float64Array(n))
  for (let i = 0; i < n; i++) {
    const background = rng.next() < 0.005
    const c = centres[Math.floor(rng.next() * clusters)]
    for (let k = 0; k < dims; k++) cols[k][i] = background ? rng.next() * 1000 : c[k] + sd * gauss(rng)
  }
  return cols
}

interface Case {
  name: string
  n: number
  dims: number
  clusters: number
  sd: number
  binWidth: number
  radius: number
  metrics: Metric[]
  runs: number
}

function runCase(c: Case) {
  const cols = clustered(c.name, c.n, c.dims, c.clusters, c.sd)
  const specs: ColumnSpec[] = cols.map(() => ({ kind: 'numeric', binWidth: c.binWidth }))
  const build = timed(c.runs, () => buildUniverse(cols, specs))
  const u = buildUniverse(cols, specs)
  const perMetric: Record<string, unknown> = {}
  for (const metric of c.metrics) {
    let anomalies = 0
    const balls = timed(c.runs, () => ballCountsOfPoints(u.points, u.counts, u.kinds, metric, c.radius))
    const b = ballCountsOfPoints(u.points, u.counts, u.kinds, metric, c.radius)
    for (let p = 0; p < u.size; p++) if (b[p] <= 10) anomalies += u.counts[p]
    perMetric[metric] = {
      ballCountsMs: balls,
      totalMedianMs: round(build.medianMs + balls.medianMs),
      totalCpuMs: round(build.cpuMeanMs + balls.cpuMeanMs),
      recordsWithBallAtMost10: anomalies
    }
  }
  return {
    records: c.n,
    attributes: c.dims,
    data: `${c.clusters} Gaussian clusters, sd ${c.sd}, centres uniform in [0,1000]^${c.dims}, 0.5% uniform background`,
    binWidth: c.binWidth,
    radiusInBins: c.radius,
    distinctTuples: u.size,
    binAndDedupMs: build,
    metrics: perMetric
  }
}

const twoD = runCase({ name: 'bench/2d', n: 1_000_000, dims: 2, clusters: 8, sd: 15, binWidth: 1, radius: 3, metrics: ['l1', 'linf', 'l2'], runs: 3 })
const fourD = runCase({ name: 'bench/4d', n: 200_000, dims: 4, clusters: 10, sd: 20, binWidth: 4, radius: 2, metrics: ['l1', 'linf', 'l2'], runs: 3 })

// Fast vs naive (all pairs of records, no histogram) on 20,000 records, 2 attributes.
const small = clustered('bench/naive', 20_000, 2, 8, 15)
const smallSpecs: ColumnSpec[] = small.map(() => ({ kind: 'numeric', binWidth: 1 }))
const fast = timed(5, () => {
  const u = buildUniverse(small, smallSpecs)
  ballCountsOfPoints(u.points, u.counts, u.kinds, 'l2', 3)
})
const us = buildUniverse(small, smallSpecs)
const recPoints = new Int32Array(20_000 * 2)
for (let i = 0; i < 20_000; i++) recPoints.set(us.points.subarray(us.recordPoint[i] * 2, us.recordPoint[i] * 2 + 2), i * 2)
const ones = new Float64Array(20_000).fill(1)
const naive = timed(1, () => naiveCountBalls(recPoints, ones, us.kinds, 'l2', 3, recPoints), 0)

report({
  targets: { twoD1M: '<= 3000 ms', fourD200k: '<= 5000 ms' },
  twoD_1M: twoD,
  fourD_200k: fourD,
  naiveVsFast_20k: {
    records: 20_000,
    metric: 'l2',
    radiusInBins: 3,
    binWidth: 1,
    fastMedianMs: fast.medianMs,
    naiveMs: naive.medianMs,
    speedup: round(naive.medianMs / fast.medianMs, 1),
    fastCpuMs: fast.cpuMeanMs,
    naiveCpuMs: naive.cpuMeanMs,
    speedupCpu: round(naive.cpuMeanMs / fast.cpuMeanMs, 1)
  }
})
