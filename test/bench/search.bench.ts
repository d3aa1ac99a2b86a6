/**
 * Benchmarks of the anomaly search. Prints one JSON line.
 * - single10k: one search on 10,000 individuals, direct oracle, eps = 1, until max posterior > 0.5 (target <= 20 ms
 *   median); normal scores uniform in [0, 1], the anomaly at 2, t_l = 1, t_h = 2.
 * - nab<Oracle>Eps1: 100 runs on each of the seven NAB series (preset thresholds, tau = 0.5, eps = 1), for each oracle
 *   (target for randomized response: <= 5 s in total on one core). A series is run only if a probe run (its own seed)
 *   stops within PROBE_QUERIES queries and 100 such runs are projected to take at most SERIES_BUDGET_MS; otherwise it is
 *   listed under `skipped` with the reason. The noisy-max oracles need tens of thousands of rounds per run on the series
 *   whose threshold ratio is about 0.01-0.02 (their update per round is at most 2 eps (t_h - t_l) / t_l nats), so they do
 *   not finish there; `totalMs` then covers the finished series only and `complete` is false.
 * - nabDirectEps1Cap200: the direct oracle on all seven series with the Fig. 2 protocol of the tables in docs/papers/binary-search.md (tau = 0.5,
 *   at most 200 queries per run), so that every series finishes; `maxSeriesMs` is the slowest series' 100 runs.
 * Times: `totalMs` is wall time; `totalCpuMs` is the CPU time this process used meanwhile (one thread: it should match the wall
 *   time on an idle machine and stays put when other work shares the cores); `loadAverage` is the 1-minute load when
 *   the bench started.
 */
import { readdirSync } from 'node:fs'
import { loadavg } from 'node:os'
import { seededRng } from '../../src-worker/engine/random'
import { type OracleKind, ORACLE_KINDS, privateBinarySearch, runSearchTrials, aggregateSearchTrials } from '../../src-worker/engine/search'
import { loadNabPreset } from '../../src-main/cli/commands/search'
import { report, round, timeRuns } from './timing'

const loadAtStart = loadavg()[0]
const n = 10_000
const gen = seededRng('bench-scores')
const scores = new Float64Array(n)
for (let i = 0; i < n; i++) scores[i] = gen.next()
scores[4321] = 2
let queries = 0
const single = timeRuns(30, (i) => {
  queries += privateBinarySearch(
    scores,
    { epsilon: 1, tLow: 1, tHigh: 2, oracle: 'direct', top: 4, halting: { tau: 0.5 } },
    seededRng(`b${i}`)
  ).queries
})

const RUNS = 100
const PROBE_QUERIES = 5000
const SERIES_BUDGET_MS = 60_000
const dir = 'resources/data/nab'
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.csv'))
  .sort()
const presets = files.map((f) => ({ name: f.replace(/\.csv$/, ''), p: loadNabPreset(`${dir}/${f}`, process.cwd()) }))

interface SeriesFigure {
  ms: number
  cpuMs: number
  meanQueries: number
  errorRate: number
  cappedRuns: number
}

/** 100 runs per series; with `cap`, every run stops after at most `cap` queries (no probe needed). */
function nab(oracle: OracleKind, cap?: number) {
  const perSeries: Record<string, SeriesFigure> = {}
  const skipped: Record<string, string> = {}
  let total = 0
  let totalCpu = 0
  for (const { name, p } of presets) {
    const params = (maxQueries?: number) => ({
      epsilon: 1,
      tLow: p.tLow,
      tHigh: p.tHigh,
      oracle,
      top: 4,
      halting: { tau: 0.5, maxQueries }
    })
    const ev = (maxQueries?: number) => ({ scores: p.scores, anomalies: [p.anomaly], params: params(maxQueries) })
    if (cap !== undefined) {
      perSeries[name] = timedSeries(ev(cap))
      total += perSeries[name].ms
      totalCpu += perSeries[name].cpuMs
      continue
    }
    const t0 = performance.now()
    const probe = runSearchTrials(ev(PROBE_QUERIES), 'probe', 0, 1)[0]
    const probeMs = performance.now() - t0
    const ratio = round(p.thresholdRatio, 3)
    if (probe.haltedBy === 'maxQueries') {
      const perRound = probeMs / PROBE_QUERIES
      skipped[name] =
        `a probe run did not stop within ${PROBE_QUERIES} queries (threshold ratio ${ratio}); ` +
        `100 runs would take more than ${round((RUNS * PROBE_QUERIES * perRound) / 1000, 0)} s`
      continue
    }
    if (probeMs * RUNS > SERIES_BUDGET_MS) {
      skipped[name] =
        `a probe run took ${probe.queries} queries, ${round(probeMs, 0)} ms (threshold ratio ${ratio}); ` +
        `100 runs are projected at ${round((probeMs * RUNS) / 1000, 0)} s`
      continue
    }
    perSeries[name] = timedSeries(ev())
    total += perSeries[name].ms
    totalCpu += perSeries[name].cpuMs
  }
  return {
    totalMs: round(total, 0),
    totalCpuMs: round(totalCpu, 0),
    maxSeriesMs: Math.max(0, ...Object.values(perSeries).map((f) => f.ms)),
    complete: Object.keys(skipped).length === 0,
    runsPerSeries: RUNS,
    perSeries,
    skipped
  }
}

/** RUNS runs of one evaluation (seed 1): wall and CPU time, and what the runs did. */
function timedSeries(ev: Parameters<typeof runSearchTrials>[0]): SeriesFigure {
  const t1 = performance.now()
  const c1 = process.cpuUsage()
  const m = runSearchTrials(ev, 1, 0, RUNS)
  const c = process.cpuUsage(c1)
  const ms = performance.now() - t1
  const a = aggregateSearchTrials(m)
  return {
    ms: round(ms, 0),
    cpuMs: round((c.user + c.system) / 1000, 0),
    meanQueries: a.meanQueries,
    errorRate: a.errorRate,
    cappedRuns: a.cappedTrials
  }
}

const out: Record<string, unknown> = {
  loadAverage: round(loadAtStart, 2),
  single10k: { ...single, meanQueries: round(queries / (30 + 5), 1), targetMedianMs: 20 }
}
const label: Record<OracleKind, string> = { rr: 'Rr', binary: 'Binary', direct: 'Direct' }
for (const oracle of ORACLE_KINDS) {
  out[`nab${label[oracle]}Eps1`] = oracle === 'rr' ? { ...nab(oracle), targetTotalMs: 5000 } : nab(oracle)
}
out.nabDirectEps1Cap200 = nab('direct', 200)
report(out)
