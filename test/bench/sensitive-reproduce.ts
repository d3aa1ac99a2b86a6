/**
 * Reproduces the tables of docs/papers/sensitive-privacy.md on real data (NAB machine temperature, labelled failure windows):
 *   node --import tsx test/bench/sensitive-reproduce.ts [--trials 200] [--seed 1]
 * Prints Markdown tables. Simulation with ground truth (seeded generator); nothing here is a release.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { readCsvFile, numericColumn, columnIndex } from '../../src-main/cli/csv-file'
import { buildUniverse, type ColumnSpec, type ColumnValues } from '../../src-worker/engine/sensitive/records'
import { ballCountsOfPoints } from '../../src-worker/engine/sensitive/ball-count'
import { aiqTableForRecords } from '../../src-worker/engine/sensitive/queries'
import { aggregateAiqTrials, exactErrorRates, runAiqTrials } from '../../src-worker/engine/sensitive/simulate'
import type { Metric } from '../../src-worker/engine/sensitive/metric'

const { values: opts } = parseArgs({ options: { trials: { type: 'string' }, seed: { type: 'string' } } })
const trials = Number(opts.trials ?? 200)
const seed = opts.seed ?? '1'

const KEY = 'realKnownCause/machine_temperature_system_failure.csv'
const table = readCsvFile(`resources/data/nab/machine_temperature_system_failure.csv`, process.cwd(), 'data file')
const temp = numericColumn(table, 'value')
const tsCol = columnIndex(table, 'timestamp')
const stamps = table.rows.map((r) => r[tsCol].trim())
const hour = Float64Array.from(stamps, (s) => Number(s.slice(11, 13)))
const windows = (JSON.parse(readFileSync('resources/data/nab/combined_windows.json', 'utf8')) as Record<string, string[][]>)[KEY].map(
  ([a, b]) => [a.slice(0, 19), b.slice(0, 19)] as const
)
const windowOf = stamps.map((s) => windows.findIndex(([a, b]) => s >= a && s <= b))
const n = temp.length
const inWindows = windowOf.filter((w) => w >= 0).length

interface Setting {
  label: string
  cols: ColumnValues[]
  specs: ColumnSpec[]
  metric: Metric
  r: number
}
const oneD = (w: number, metric: Metric, r: number): Setting => ({
  label: `temperature, bin ${w}`,
  cols: [temp],
  specs: [{ kind: 'numeric', binWidth: w }],
  metric,
  r
})
const twoD = (w: number, metric: Metric, r: number): Setting => ({
  label: `temperature bin ${w} + hour of day`,
  cols: [temp, hour],
  specs: [
    { kind: 'numeric', binWidth: w },
    { kind: 'numeric', binWidth: 1 }
  ],
  metric,
  r
})

function balls(s: Setting) {
  const u = buildUniverse(s.cols, s.specs)
  const b = ballCountsOfPoints(u.points, u.counts, u.kinds, s.metric, s.r)
  const recCount = Float64Array.from(u.recordPoint, (p) => u.counts[p])
  const recBall = Float64Array.from(u.recordPoint, (p) => b[p])
  return { u, recCount, recBall }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`
const sci = (x: number | null) => (x === null ? '-' : x === 0 ? '0' : x < 1e-3 ? x.toExponential(1) : x.toFixed(4))

const out: string[] = []
out.push(`Data: ${KEY}, ${n} readings, ${inWindows} (${pct(inWindows / n)}) inside the ${windows.length} labelled anomaly windows.`)
out.push('')
out.push('Table 1: which readings are (beta, r)-anomalies, and how they line up with the labelled windows')
out.push('')
out.push('| attributes | metric | r (bins) | beta | anomalous readings | inside windows | windows hit | strong (B <= beta - 5) |')
out.push('|---|---|---|---|---|---|---|---|')
const settings1: Array<[Setting, number]> = [
  [oneD(1, 'l1', 1), 5],
  [oneD(1, 'l1', 2), 20],
  [oneD(1, 'l1', 2), 50],
  [oneD(2, 'l1', 2), 100],
  [twoD(2, 'linf', 1), 10],
  [twoD(2, 'l2', 2), 20]
]
for (const [s, beta] of settings1) {
  const { recCount, recBall } = balls(s)
  let anomalies = 0
  let inside = 0
  let strong = 0
  const hit = new Set<number>()
  for (let i = 0; i < n; i++) {
    if (recCount[i] >= 1 && recBall[i] <= beta) {
      anomalies++
      if (recBall[i] <= beta - 5) strong++
      if (windowOf[i] >= 0) {
        inside++
        hit.add(windowOf[i])
      }
    }
  }
  out.push(
    `| ${s.label} | ${s.metric} | ${s.r} | ${beta} | ${anomalies} | ${inside} (${anomalies ? pct(inside / anomalies) : '-'}) | ${hit.size} of ${windows.length} | ${strong} |`
  )
}
out.push('')
out.push(`Table 2: error of the (eps, k)-SP mechanism vs the optimal eps-DP mechanism, one query per reading (${trials} trials, seed ${seed})`)
out.push('')
out.push('Strong anomalies = non-sensitive readings (B + k <= beta). Exact = mean flip probability; sampled = Monte Carlo.')
out.push('')
out.push('| setting | beta | k | eps | strong anomalies | DP exact | SP exact | DP sampled | SP sampled | sensitive readings: DP exact | SP exact |')
out.push('|---|---|---|---|---|---|---|---|---|---|---|')
const s2 = oneD(1, 'l1', 2)
const u2 = buildUniverse(s2.cols, s2.specs)
for (const [beta, k, epsilon] of [
  [20, 1, 0.1],
  [20, 1, 0.5],
  [20, 1, 1],
  [20, 5, 0.5],
  [50, 1, 0.1],
  [50, 5, 0.1],
  [50, 5, 0.5]
] as const) {
  const t = aiqTableForRecords(u2, s2.metric, s2.r, { beta, k, epsilon })
  let strong = 0
  for (let i = 0; i < n; i++) strong += t.sensitive[i] ? 0 : 1
  const exact = exactErrorRates(t)
  const agg = aggregateAiqTrials(runAiqTrials(t, seed, 0, trials))
  out.push(
    `| ${s2.label}, ${s2.metric}, r = ${s2.r} | ${beta} | ${k} | ${epsilon} | ${strong} | ${sci(exact.dp.errorRateNonSensitive)} | ${sci(exact.sp.errorRateNonSensitive)} | ${sci(agg.dp.errorRateNonSensitive)} | ${sci(agg.sp.errorRateNonSensitive)} | ${sci(exact.dp.errorRateSensitive)} | ${sci(exact.sp.errorRateSensitive)} |`
  )
}
process.stdout.write(out.join('\n') + '\n')
