/**
 * `npm run bench -- accuracy`: the accuracy audit. For each release kind, many releases on data whose truth is known,
 * each against what its guarantee states:
 * - threshold queries: the false-negative rate of every predicate whose true count exceeds its threshold, against beta;
 * - anomaly identification: each record's error rate against the stated bound at its flip distance (e^(-eps (lambda-1))
 *   / (1 + e^eps), the guarantee's "wrong with probability at most ... and e^-eps times less for each further record");
 * - anomaly search: the share of releases with the anomaly in the top S (and of findings, and of wrong findings) against
 *   the accuracy preview's promise for the same question (releases/accuracy).
 * Data: the demo workspace (`quiet-alarm demo`), the NAB series (resources/data/nab: benches may read it, the product
 * does not) and generated person-level data. Each release runs the release path's own code after the charge (the
 * prepared release's read, its task with a fresh secure generator, its finish); the ledger is not charged (thousands of
 * releases would exhaust any budget). A check holds when the measured rate is not significantly worse than the promise:
 * the one-sided Clopper-Pearson bound at 0.001 (divided among the predicates or records of a case) must reach it.
 * Environment: ACCURACY_RUNS (default 400) releases per case. Prints one JSON line.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../src-main/cli'
import { loadNabPreset } from '../../src-main/cli/commands/search'
import type { QueryDefinitionInput } from '../../src-main/contract/datasets'
import type { ReleaseParams } from '../../src-main/contract/ledger'
import { openStore, type Store } from '../../src-main/services/store/store'
import { planImport, runImport } from '../../src-main/services/datasets/import-dataset'
import { saveQuery } from '../../src-main/services/datasets/query-store'
import { prepareRelease } from '../../src-main/services/releases/prepare'
import type { ExecutionResult, PreparedRelease, ReleaseRun } from '../../src-main/services/releases/kinds/release-kind'
import { releaseAccuracy } from '../../src-main/services/releases/accuracy'
import { publicThreshold } from '../../src-main/services/releases/threshold-adapter'
import { RELEASE_COMPUTE } from '../../src-worker/tasks/release-compute'
import { SecureRandom, seededRng } from '../../src-worker/engine/random'
import { flipProbability, isAnomaly, mdd, lambdaK } from '../../src-worker/engine/sensitive'
import { cheapestDecidingEpsilon } from '../../src-worker/engine/search'
import { clopperPearson } from '../integration/privacy/dp-tester'
import { round } from './timing'

const RUNS = Number(process.env.ACCURACY_RUNS ?? 400)
const ALPHA = 0.001
const NAB = 'resources/data/nab'

const dir = mkdtempSync(join(tmpdir(), 'qa-accuracy-bench-'))
const log = (s: string) => process.stderr.write(`accuracy: ${s}\n`)

/** R releases of a prepared release: its read once (the data do not change), then its task and finish R times. */
function releases(p: PreparedRelease, runs: number): ExecutionResult[] {
  const run = p.run as ReleaseRun
  const payload = run.read(SecureRandom.create())
  const compute = RELEASE_COMPUTE[run.task] as (payload: unknown, rng: SecureRandom) => unknown
  return Array.from({ length: runs }, () => run.finish(compute(payload, SecureRandom.create()) as never))
}

async function importCsv(store: Store, name: string, header: string, rows: Array<Array<string | number>>, personColumn?: string) {
  const path = join(dir, `${name}.csv`)
  writeFileSync(path, [header, ...rows.map((r) => r.join(','))].join('\n') + '\n')
  const r = await runImport(store.db, planImport(store.db, { path, name, onBadRow: 'abort', personColumn }))
  return r.dataset.id
}

const rate = (k: number, n: number) => round(k / n, 4)

// ---------------------------------------------------------------------------------------------------------------
// Threshold queries: FNR per positive predicate against beta.

function thresholdCase(name: string, store: Store, queryId: number, params: Extract<ReleaseParams, { kind: 'threshold' }>) {
  const p = prepareRelease(store.db, queryId, params)
  const q = store.db.prepare('SELECT dataset_id, definition FROM queries WHERE id = ?').get(queryId) as { dataset_id: number; definition: string }
  // The truth under the query's own counting (bounds included), read once: a simulation's ground truth.
  const truth = publicThreshold(store.db, q.dataset_id, JSON.parse(q.definition)).evaluate(SecureRandom.create())
  const positives = [...truth.counts.keys()].filter((i) => truth.counts[i] > truth.thresholds[i])
  const misses = new Map(positives.map((i) => [i, 0]))
  const runs = releases(p, RUNS)
  for (const r of runs) {
    if (r.answer.kind !== 'threshold') throw new Error('not a threshold answer')
    const decisions = r.answer.decisions!
    for (const i of positives) if (!decisions[i].flagged) misses.set(i, misses.get(i)! + 1)
  }
  const a = ALPHA / Math.max(1, positives.length)
  let worst = { fnr: 0, lo: 0, hi: 0, predicate: '' }
  let holds = true
  for (const i of positives) {
    const k = misses.get(i)!
    const ci = clopperPearson(k, RUNS, a)
    if (ci.lo > params.beta) holds = false
    if (k / RUNS >= worst.fnr) worst = { fnr: rate(k, RUNS), lo: round(ci.lo, 4), hi: round(ci.hi, 4), predicate: `${i}` }
  }
  const nearest = positives.length ? Math.min(...positives.map((i) => truth.counts[i] - truth.thresholds[i])) : null
  log(`${name} ${params.mechanism}: ${positives.length} positives, worst FNR ${worst.fnr} (beta ${params.beta})`)
  return {
    case: name,
    mechanism: params.mechanism,
    beta: params.beta,
    alpha: params.alpha,
    releases: RUNS,
    predicates: truth.counts.length,
    positives: positives.length,
    smallestExcess: nearest,
    worstFnr: worst.fnr,
    worstFnrInterval: [worst.lo, worst.hi],
    meanFnr: positives.length
      ? rate(
          [...misses.values()].reduce((x, y) => x + y, 0),
          positives.length * RUNS
        )
      : null,
    holds
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Anomaly identification: each record's error rate against the bound at its flip distance.

interface AiqTruth {
  record: string
  own: number
  ball: number
}

function aiqCase(
  name: string,
  store: Store,
  queryId: number,
  params: Extract<ReleaseParams, { kind: 'anomaly-identification' }>,
  truth: AiqTruth[],
  maxNeighbours: number,
  k: number
) {
  const p = prepareRelease(store.db, queryId, params)
  const wrong = truth.map(() => 0)
  for (const r of releases(p, RUNS)) {
    if (r.answer.kind !== 'anomaly-identification') throw new Error('not an AIQ answer')
    r.answer.records.forEach((x, j) => {
      if (x.anomaly !== isAnomaly(truth[j].own, truth[j].ball, maxNeighbours)) wrong[j]++
    })
  }
  const a = ALPHA / truth.length
  const records = truth.map((t, j) => {
    const lambda = params.mechanism === 'dp' ? mdd(t.own, t.ball, maxNeighbours) : lambdaK(t.own, t.ball, maxNeighbours, k)
    const bound = flipProbability(lambda, params.epsilon)
    const ci = clopperPearson(wrong[j], RUNS, a)
    return {
      record: t.record,
      anomaly: isAnomaly(t.own, t.ball, maxNeighbours),
      lambda,
      bound: round(bound, 5),
      error: rate(wrong[j], RUNS),
      errorInterval: [round(ci.lo, 4), round(ci.hi, 4)],
      holds: ci.lo <= bound
    }
  })
  log(`${name} ${params.mechanism}: ${records.map((r) => `${r.record} ${r.error}/${r.bound}`).join(', ')}`)
  return {
    case: name,
    mechanism: params.mechanism,
    epsilonPerRecord: params.epsilon,
    charge: Number((p.chargeNano / 1e9).toFixed(6)),
    worstCaseBound: round(1 / (1 + Math.exp(params.epsilon)), 5),
    releases: RUNS,
    records,
    holds: records.every((r) => r.holds)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Anomaly search: the top-S hit rate against the preview's promise.

async function searchCase(name: string, store: Store, queryId: number, anomalyId: string, runs = RUNS) {
  const promise = await releaseAccuracy(store.db, { queryId, params: { kind: 'anomaly-search' } })
  const at = (series: number) => promise.series[series].points.find((pt) => pt.epsilon === promise.currentEpsilon)!.value
  const p = prepareRelease(store.db, queryId, { kind: 'anomaly-search' })
  let found = 0
  let conclusive = 0
  let wrongFinding = 0
  for (const r of releases(p, runs)) {
    if (r.answer.kind !== 'anomaly-search') throw new Error('not a search answer')
    if (r.answer.top.map(String).includes(anomalyId)) found++
    if (r.answer.conclusive) {
      conclusive++
      if (String(r.answer.top[0]) !== anomalyId) wrongFinding++
    }
  }
  const ci = clopperPearson(found, runs, ALPHA)
  const out = {
    case: name,
    individuals: (p.publicParams as { individuals: number }).individuals,
    questions: (p.publicParams as { maxQueries: number }).maxQueries,
    charge: Number((p.chargeNano / 1e9).toFixed(6)),
    releases: runs,
    foundInTopS: rate(found, runs),
    foundInterval: [round(ci.lo, 4), round(ci.hi, 4)],
    promisedFound: round(at(0), 4),
    conclusive: rate(conclusive, runs),
    promisedConclusive: round(at(1), 4),
    wrongFindings: rate(wrongFinding, runs),
    promisedWrongFindings: round(at(2), 4),
    holds: ci.hi >= at(0)
  }
  log(`${name}: found ${out.foundInTopS} (promised ${out.promisedFound}), conclusive ${out.conclusive}`)
  return out
}

/** A direct-oracle search of the top 4 asking at most `questions` questions at epsilon `eps`. */
function searchDef(
  scoreColumn: string,
  idColumn: string,
  individuals: string[],
  tLow: number,
  tHigh: number,
  eps: number,
  questions: number
): QueryDefinitionInput {
  return {
    kind: 'anomaly-search',
    scoreColumn,
    idColumn,
    individuals,
    tLow,
    tHigh,
    epsilonPerQuery: eps,
    budget: questions * eps,
    oracle: 'direct',
    top: 4
  }
}

// ---------------------------------------------------------------------------------------------------------------

async function run() {
  const t0 = Date.now()
  log(`building the demo workspace in ${dir}`)
  const demoPath = join(dir, 'demo.qa')
  const quiet = { stdout: { write: () => true }, stderr: { write: () => true }, cwd: dir }
  if ((await main(['demo', '--db', demoPath], quiet as never)) !== 0) throw new Error('the demo failed')
  const store = openStore(demoPath)
  const threshold: unknown[] = []
  const aiq: unknown[] = []
  const search: unknown[] = []

  // Threshold: the demo's 32 rooms (persons, public capacities), and generated person-level counts just over and under
  // their thresholds (the hardest positives: one person over).
  for (const mechanism of ['tslm', 'ppwlm', 'dppwlm'] as const)
    threshold.push(thresholdCase('demo rooms', store, 1, { kind: 'threshold', mechanism, beta: 0.05, alpha: 1 }))
  const rng = seededRng('accuracy-bench')
  const visits: Array<Array<string | number>> = []
  const groups = Array.from({ length: 40 }, (_, g) => `g${g}`)
  groups.forEach((g, i) => {
    const persons = 20 + (i % 2 === 0 ? 1 : -1) * (1 + (i % 5)) // 21..25 or 15..19 persons against a threshold of 20
    for (let p = 0; p < persons; p++) for (let v = 0; v < 1 + Math.floor(rng.next() * 3); v++) visits.push([`${g}-p${p}`, g])
  })
  const gen = await importCsv(store, 'generated visits', 'person,room', visits, 'person')
  const genQ = saveQuery(store.db, gen, 'rooms over 20 persons', {
    kind: 'threshold',
    groupBy: ['room'],
    count: { kind: 'persons', personColumn: 'person', cap: 1 },
    threshold: { kind: 'constant', value: 20 },
    groups: groups.map((g) => [g])
  })
  for (const mechanism of ['tslm', 'ppwlm'] as const)
    threshold.push(thresholdCase('generated person-level rooms', store, genQ.id, { kind: 'threshold', mechanism, beta: 0.1, alpha: 2 }))

  // Anomaly identification: the demo (person-level, 1 x 1 bound: persons near each record), NAB taxi (row-level), generated.
  const demoTruth: AiqTruth[] = [
    { record: 'C,3', own: 2, ball: 2 },
    { record: 'D,21', own: 1, ball: 1 },
    { record: 'A,14', own: 0, ball: 0 }
  ]
  // (A, 14): the persons near it, counted once each (the truth of the 1 x 1 bound), from the data.
  const near = store.db
    .prepare(
      `SELECT COUNT(DISTINCT c2) AS near, COUNT(DISTINCT CASE WHEN c4 = 'A' AND c7 = 14 THEN c2 END) AS own FROM ds_1 WHERE (c4 = 'A' AND c7 BETWEEN 13 AND 15) OR c7 = 14`
    )
    .get() as { near: number; own: number }
  demoTruth[2] = { record: 'A,14', own: near.own, ball: near.near }
  for (const mechanism of ['sp', 'dp'] as const)
    aiq.push(aiqCase('demo unusual presence', store, 2, { kind: 'anomaly-identification', mechanism, epsilon: 1 }, demoTruth, 5, 2))

  const taxi = loadNabSeries('nyc_taxi.csv')
  const taxiDs = await importCsv(
    store,
    'nyc taxi',
    'timestamp,value',
    taxi.rows.map((r) => [r.ts, r.value])
  )
  const bins = new Map<number, number>()
  for (const r of taxi.rows) bins.set(Math.floor(r.value / 500), (bins.get(Math.floor(r.value / 500)) ?? 0) + 1)
  const askedBins = [...bins.keys()].sort((a, b) => a - b)
  const pick = [
    askedBins[0],
    askedBins[1],
    askedBins[Math.floor(askedBins.length / 2)],
    askedBins[askedBins.length - 2],
    askedBins[askedBins.length - 1]
  ]
  const taxiTruth = pick.map((b) => ({
    record: String(b * 500 + 250),
    own: bins.get(b) ?? 0,
    ball: (bins.get(b - 1) ?? 0) + (bins.get(b) ?? 0) + (bins.get(b + 1) ?? 0)
  }))
  const taxiQ = saveQuery(store.db, taxiDs, 'unusual half-hours', {
    kind: 'anomaly-identification',
    columns: ['value'],
    binWidths: [500],
    metric: 'l1',
    radius: 1,
    maxNeighbours: 25,
    k: 5,
    records: pick.map((b) => [b * 500 + 250])
  })
  for (const mechanism of ['sp', 'dp'] as const)
    aiq.push(aiqCase('NAB nyc_taxi', store, taxiQ.id, { kind: 'anomaly-identification', mechanism, epsilon: 0.5 }, taxiTruth, 25, 5))

  // Generated person-level readings: 300 persons with 1-8 readings each around 50 (sd 5); two persons with readings at
  // 90; records asked at 50, 70 and 90. The 2 x 3 bound: each person counts at most 2 readings per bin in 3 bins.
  const readings: Array<Array<string | number>> = []
  for (let p = 0; p < 300; p++) {
    const n = 1 + Math.floor(rng.next() * 8)
    for (let j = 0; j < n; j++) readings.push([`p${p}`, Math.round(50 + 5 * gaussian(rng))])
  }
  for (const p of ['x1', 'x2']) for (let j = 0; j < 4; j++) readings.push([p, 90])
  const readDs = await importCsv(store, 'generated readings', 'person,reading', readings, 'person')
  const readQ = saveQuery(store.db, readDs, 'unusual readings', {
    kind: 'anomaly-identification',
    columns: ['reading'],
    binWidths: [2],
    metric: 'l1',
    radius: 1,
    maxNeighbours: 6,
    k: 2,
    records: [[50], [70], [90]],
    rowsPerBin: 2,
    binsPerPerson: 3
  })
  // A radius-1 ball on one axis holds 3 bins: with 3 bins per person nothing is left to chance, so the truth is exact.
  const readTruth = [50, 70, 90].map((x) => personTruth(readings, x, 2, 1, 2, 3))
  for (const mechanism of ['sp', 'dp'] as const)
    aiq.push(
      aiqCase('generated person-level readings', store, readQ.id, { kind: 'anomaly-identification', mechanism, epsilon: 0.5 }, readTruth, 6, 2)
    )

  // Anomaly search: the demo's search (900 persons; its saved budget), the NAB series (their labelled anomaly; the
  // paper's data-derived thresholds, for evaluation only; at the epsilon per question that decides cheapest), and
  // generated person-level scores.
  search.push(await searchCase('demo person-hours', store, 3, 'P0418'))
  for (const f of readdirSync(NAB)
    .filter((x) => x.endsWith('.csv'))
    .sort()) {
    const preset = loadNabPreset(join(NAB, f), process.cwd())
    const ids = Array.from(preset.scores, (_, i) => `t${i}`)
    const ds = await importCsv(
      store,
      `nab ${f}`,
      'id,score',
      ids.map((id, i) => [id, preset.scores[i]])
    )
    // The epsilon per question whose deciding budget is smallest (public: the list's size and the thresholds), and 1.5
    // times the fewest questions that decide at it.
    const cheapest = cheapestDecidingEpsilon({ individuals: ids.length, top: 4, oracle: 'direct', tLow: preset.tLow, tHigh: preset.tHigh, tau: 0.5 })!
    const q = saveQuery(
      store.db,
      ds,
      'the anomaly',
      searchDef('score', 'id', ids, preset.tLow, preset.tHigh, cheapest.epsilon, Math.ceil(cheapest.queries * 1.5))
    )
    search.push(await searchCase(`NAB ${f.replace(/\.csv$/, '')}`, store, q.id, ids[preset.anomaly], Math.min(RUNS, 200)))
  }
  const scores: Array<Array<string | number>> = []
  for (let p = 0; p < 2000; p++) for (let j = 0; j < 1 + Math.floor(rng.next() * 3); j++) scores.push([`p${p}`, round(rng.next() * 40, 2)])
  scores.push(['p1234', 75])
  const scoreDs = await importCsv(store, 'generated scores', 'person,score', scores, 'person')
  const persons = Array.from({ length: 2000 }, (_, p) => `p${p}`)
  const neededHere = neededQuestions(store, scoreDs, searchDef('score', 'person', persons, 40, 70, 4, 1))
  const sq = saveQuery(store.db, scoreDs, 'the outlier', searchDef('score', 'person', persons, 40, 70, 4, Math.ceil(neededHere * 1.5)))
  search.push(await searchCase('generated person-level scores', store, sq.id, 'p1234'))

  store.close()
  return {
    releasesPerCase: RUNS,
    alpha: ALPHA,
    threshold,
    anomalyIdentification: aiq,
    search,
    allHold: [...threshold, ...aiq, ...search].every((c) => (c as { holds: boolean }).holds),
    seconds: Math.round((Date.now() - t0) / 1000)
  }
}

/** The fewest questions a saved search can decide with, from its refusal at one question (public inputs). */
function neededQuestions(store: Store, datasetId: number, def: QueryDefinitionInput): number {
  const q = saveQuery(store.db, datasetId, 'probe', def)
  try {
    prepareRelease(store.db, q.id, { kind: 'anomaly-search' })
    return 1
  } catch (e) {
    const m = /\((\d+) questions at epsilon/.exec((e as Error).message)
    if (!m) throw e
    return Number(m[1])
  }
}

function loadNabSeries(file: string) {
  const text = readFileSync(join(NAB, file), 'utf8')
  const rows = text
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => {
      const [ts, v] = l.split(',')
      return { ts: ts.trim(), value: Number(v) }
    })
  return { rows }
}

function gaussian(rng: { next(): number }): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next())
}

/**
 * The bounded truth of one record on person-level readings (binned by `width`, radius `r` in bins): per person, the own
 * bin first, then other bins within the radius; when a person has more bins than `bins`, which are kept is random, so
 * this is exact only when no person has more than `bins` bins near the record (checked).
 */
function personTruth(rows: Array<Array<string | number>>, x: number, width: number, r: number, perBin: number, bins: number): AiqTruth {
  const rec = Math.floor(x / width)
  const byPerson = new Map<string, Map<number, number>>()
  for (const [p, v] of rows) {
    const b = Math.floor(Number(v) / width)
    if (Math.abs(b - rec) > r) continue
    const m = byPerson.get(String(p)) ?? new Map<number, number>()
    m.set(b, (m.get(b) ?? 0) + 1)
    byPerson.set(String(p), m)
  }
  let own = 0
  let ball = 0
  for (const m of byPerson.values()) {
    if (m.size > bins) throw new Error(`a person has ${m.size} bins near ${x}: the truth would be random`)
    for (const [b, c] of m) {
      ball += Math.min(c, perBin)
      if (b === rec) own += Math.min(c, perBin)
    }
  }
  return { record: String(x), own, ball }
}

run()
  .then((out) => {
    rmSync(dir, { recursive: true, force: true })
    process.stdout.write(JSON.stringify(out) + '\n')
  })
  .catch((e) => {
    rmSync(dir, { recursive: true, force: true })
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`)
    process.exit(1)
  })
