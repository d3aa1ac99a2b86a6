/**
 * Reproduces the search tables of docs/papers/binary-search.md (paper Figs. 1-4 on the seven NAB series), 100 runs per cell, seed 1.
 *   node --import tsx test/bench/search-reproduce.ts [all|fig2|fig2b|fig1|fig34] [series-prefix ...] > tables.md
 * Every cell equals one CLI call, e.g.
 *   quiet-alarm search --nab-preset resources/data/nab/nyc_taxi.csv --oracle direct --epsilon 1 --max-queries 200 --json
 */
import { readdirSync } from 'node:fs'
import { loadNabPreset } from '../../src-main/cli/commands/search'
import { type HaltingRules, type OracleKind, aggregateSearchTrials, runSearchTrials } from '../../src-worker/engine/search'

const DIR = 'resources/data/nab'
const RUNS = 100
const SEED = '1'
const CAP = 200
const only = process.argv.slice(3)
const series = readdirSync(DIR)
  .filter((f) => f.endsWith('.csv') && (only.length === 0 || only.some((o) => f.startsWith(o))))
  .sort()
const presets = new Map(series.map((f) => [f, loadNabPreset(`${DIR}/${f}`, process.cwd())]))
const two = ['ec2_request_latency_system_failure.csv', 'rogue_agent_key_hold.csv']
for (const f of two) if (!presets.has(f)) presets.set(f, loadNabPreset(`${DIR}/${f}`, process.cwd()))
const which = process.argv[2] ?? 'all'
const out = (s: string) => process.stdout.write(s + '\n')
const r2 = (x: number) => (Math.round(x * 100) / 100).toString()
const short = (f: string) => f.replace(/\.csv$/, '')

function cell(f: string, oracle: OracleKind, epsilon: number, halting: HaltingRules) {
  const p = presets.get(f)!
  const params = { epsilon, tLow: p.tLow, tHigh: p.tHigh, oracle, top: 4, halting }
  const t0 = performance.now()
  const agg = aggregateSearchTrials(runSearchTrials({ scores: p.scores, anomalies: [p.anomaly], params }, SEED, 0, RUNS))
  process.stderr.write(
    `${short(f)} ${oracle} eps=${epsilon} ${JSON.stringify(halting)}: ${JSON.stringify(agg)} ${Math.round(performance.now() - t0)} ms\n`
  )
  return agg
}
const fmtCell = (a: ReturnType<typeof aggregateSearchTrials>) =>
  `${r2(a.errorRate)} / ${r2(a.meanPrivacyRisk)}${a.cappedTrials ? ` (${a.cappedTrials} capped)` : ''}`

if (which === 'all' || which === 'fig2') {
  const EPS = [1, 2, 4]
  out(`### Error rate / mean total privacy risk vs eps (Fig. 2; Fig. 1 is the eps = 1 column against the ratio)`)
  out('')
  out(`| series | N | ratio (t_h-t_l)/t_l | oracle | ${EPS.map((e) => `eps = ${e}`).join(' | ')} |`)
  out(`|---|---|---|---|${EPS.map(() => '---').join('|')}|`)
  for (const f of series) {
    const p = presets.get(f)!
    for (const oracle of ['rr', 'binary', 'direct'] as const) {
      const cells = EPS.map((e) => fmtCell(cell(f, oracle, e, { tau: 0.5, maxQueries: CAP })))
      out(`| ${short(f)} | ${p.scores.length} | ${p.thresholdRatio.toFixed(3)} | ${oracle} | ${cells.join(' | ')} |`)
    }
  }
  out('')
}

if (which === 'all' || which === 'fig2b') {
  // Fig. 2's comparison at equal total privacy risk: no tau, every run asks exactly b / eps queries.
  const f = 'ec2_request_latency_system_failure.csv'
  const SETTINGS = [
    [1, 20],
    [1, 30],
    [2, 40]
  ] as const
  out(`### Error rate at equal eps and equal total privacy risk on ${short(f)} (Fig. 2 at a fixed budget b, no tau)`)
  out('')
  out(`| oracle | ${SETTINGS.map(([e, b]) => `eps = ${e}, b = ${b}`).join(' | ')} |`)
  out(`|---|${SETTINGS.map(() => '---').join('|')}|`)
  for (const oracle of ['rr', 'binary', 'direct'] as const) {
    out(`| ${oracle} | ${SETTINGS.map(([e, b]) => r2(cell(f, oracle, e, { budget: b }).errorRate)).join(' | ')} |`)
  }
  out('')
}

if (which === 'all' || which === 'fig1') {
  // Threshold ratio within one series: vary the margin m of section 6.1 (t_h = x* - m d, t_l = x_j + m d) on ec2.
  const f = 'ec2_request_latency_system_failure.csv'
  out(`### Error rate vs threshold ratio on ${short(f)} (Fig. 1), eps = 1, tau = 0.5, at most ${CAP} queries`)
  out('')
  out('| margin m | ratio | rr | binary | direct |')
  out('|---|---|---|---|---|')
  for (const m of [0.05, 0.2, 0.3, 0.4, 0.45]) {
    const p = loadNabPreset(`${DIR}/${f}`, process.cwd(), { margin: m })
    const key = `${f}#${m}`
    presets.set(key, { ...p })
    const cells = (['rr', 'binary', 'direct'] as const).map((o) => fmtCell(cell(key, o, 1, { tau: 0.5, maxQueries: CAP })))
    out(`| ${m} | ${p.thresholdRatio.toFixed(3)} | ${cells.join(' | ')} |`)
  }
  out('')
}

if (which === 'all' || which === 'fig34') {
  const B = [5, 10, 20, 40]
  out(`### Budget b without tau (Fig. 3): error rate, direct oracle`)
  out('')
  out(`| series | eps | ${B.map((b) => `b = ${b}`).join(' | ')} |`)
  out(`|---|---|${B.map(() => '---').join('|')}|`)
  for (const f of two)
    for (const e of [0.5, 1, 2]) out(`| ${short(f)} | ${e} | ${B.map((b) => r2(cell(f, 'direct', e, { budget: b }).errorRate)).join(' | ')} |`)
  out('')
  const T = [0.3, 0.5, 0.7, 0.9, 0.99]
  out(`### Halting threshold tau without budget (Fig. 4): error rate / mean total privacy risk, direct oracle, eps = 1`)
  out('')
  out(`| series | ${T.map((t) => `tau = ${t}`).join(' | ')} |`)
  out(`|---|${T.map(() => '---').join('|')}|`)
  for (const f of two) out(`| ${short(f)} | ${T.map((t) => fmtCell(cell(f, 'direct', 1, { tau: t, maxQueries: 5000 }))).join(' | ')} |`)
  out('')
}
