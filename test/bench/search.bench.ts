/**
 * Benchmarks of the anomaly search (issue 5). Prints one JSON line.
 * - single: one search on 10,000 individuals, direct oracle, eps = 1, until max posterior > 0.5 (target <= 20 ms median);
 *   normal scores uniform in [0, 1], the anomaly at 2, t_l = 1, t_h = 2.
 * - nab: 100 runs on each of the seven NAB series (preset thresholds, tau = 0.5), randomized response at eps = 1
 *   (target <= 5 s in total on one core). The noisy-max oracles need hundreds to thousands of rounds on the five series
 *   with threshold ratios below 0.2 (README "Anomaly search"), far beyond this target, so they are not timed here.
 */
import { readdirSync } from 'node:fs'
import { seededRng } from '../../src-worker/engine/random'
import { type OracleKind, privateBinarySearch, runSearchTrials, aggregateSearchTrials } from '../../src-worker/engine/search'
import { loadNabPreset } from '../../src-main/cli/commands/search'
import { report, round, timeRuns } from './timing'

const n = 10_000
const gen = seededRng('bench-scores')
const scores = new Float64Array(n)
for (let i = 0; i < n; i++) scores[i] = gen.next()
scores[4321] = 2
let queries = 0
const single = timeRuns(30, (i) => {
  queries += privateBinarySearch(scores, { epsilon: 1, tLow: 1, tHigh: 2, oracle: 'direct', top: 4, halting: { tau: 0.5 } }, seededRng(`b${i}`)).queries
})

const dir = '../shared/data/nab'
const files = readdirSync(dir).filter((f) => f.endsWith('.csv')).sort()
function nab(oracle: OracleKind, maxQueries?: number) {
  const perSeries: Record<string, { ms: number; meanQueries: number; errorRate: number; cappedRuns: number }> = {}
  let total = 0
  for (const f of files) {
    const p = loadNabPreset(`${dir}/${f}`, process.cwd())
    const t0 = performance.now()
    const m = runSearchTrials(
      { scores: p.scores, anomalies: [p.anomaly], params: { epsilon: 1, tLow: p.tLow, tHigh: p.tHigh, oracle, top: 4, halting: { tau: 0.5, maxQueries } } },
      1, 0, 100
    )
    const ms = performance.now() - t0
    total += ms
    const a = aggregateSearchTrials(m)
    perSeries[f.replace(/\.csv$/, '')] = { ms: round(ms, 0), meanQueries: a.meanQueries, errorRate: a.errorRate, cappedRuns: a.cappedTrials }
  }
  return { totalMs: round(total, 0), perSeries }
}

report({
  single10k: { ...single, meanQueries: round(queries / (30 + 5), 1), targetMedianMs: 20 },
  nabRrEps1: { ...nab('rr'), targetTotalMs: 5000 }
})
