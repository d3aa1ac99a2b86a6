/**
 * Person-level anomaly identification that finds anomalies (on the demo): the planted night-time presences (C, 03:00)
 * are found in at least 9 releases of 10 at the demo's epsilon, the release and the `aiq` simulation agree on the same
 * data, the bound is a visible field priced and explained before anything is spent, and old saved definitions (with
 * "beta" and "maxRowsPerPerson") still load and price as they did.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { join } from 'node:path'
import { runCli } from '../cli-runner'
import { prepareRelease } from '../../../src-main/services/releases/prepare'
import { previewRelease } from '../../../src-main/services/releases/release-service'
import { releaseAccuracy } from '../../../src-main/services/releases/accuracy'
import { getQuery, saveQuery } from '../../../src-main/services/datasets/query-store'
import { seededRng } from '../../../src-worker/engine/random'
import { computeAiqRelease } from '../../../src-worker/tasks/release-anomaly-identification'
import type { ReleaseRun } from '../../../src-main/services/releases/kinds/release-kind'
import { clopperPearson } from '../privacy/dp-tester'
import { DEMO_QUERIES, type DemoWorkspace, buildDemo } from './demo-fixture'

// Seeded runs of prepared releases (deterministic tests); the service's own path still takes no seed.
vi.mock('../../../src-worker/engine/random', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src-worker/engine/random')>()
  return { ...real, assertSecure: () => undefined }
})

let demo: DemoWorkspace
beforeAll(async () => {
  demo = await buildDemo()
}, 120_000)
afterAll(() => demo?.cleanup())

const OCCUPANCY = join(__dirname, '../../../resources/sample/occupancy.csv')
const AIQ = { kind: 'anomaly-identification' as const, mechanism: 'sp' as const, epsilon: 1 }

/** The `aiq` simulation on the sample file, as a person-level release counts (JSON). */
async function aiqCli(record: string, extra: string[] = []) {
  const args = ['aiq', '--data', OCCUPANCY, '--columns', 'building,hour_of_day', '--categorical', 'building', '--radius', '1']
  const r = await runCli([...args, '--max-neighbours', '5', '--k', '2', '--epsilon', '1', '--record-value', record, ...extra, '--json'], {
    cwd: demo.dir
  })
  expect(r.code, r.err).toBe(0)
  return JSON.parse(r.out) as { count: number; ballCount: number; isAnomaly: boolean; flipProbability: number }
}

/** P(X <= k) for X ~ Binomial(n, p). */
function binomialCdf(k: number, n: number, p: number): number {
  let s = 0
  let term = (1 - p) ** n
  for (let i = 0; i <= k; i++) {
    s += term
    term *= ((n - i) / (i + 1)) * (p / (1 - p))
  }
  return s
}

describe("the demo's planted anomaly is found on person-level data", () => {
  it('(C, 03:00) is answered "anomaly" in at least 9 of 10 releases; the flip probability makes fewer than 9 unlikely', async () => {
    const sim = await aiqCli('C,3', ['--person-column', 'person_id'])
    // Two persons, one row each at (C, 3), nobody else within the radius: x = 2, B = 2, lambda_2 = 4.
    expect(sim).toMatchObject({ count: 2, ballCount: 2, isAnomaly: true })
    expect(sim.flipProbability).toBeCloseTo(Math.exp(-4) / (1 + Math.exp(-1)), 12)
    // The bound the test can promise: with flip probability t, 10 releases find it fewer than 9 times with
    // probability P(Bin(10, 1 - t) <= 8) = 0.0082.
    const pFewer = binomialCdf(8, 10, 1 - sim.flipProbability)
    expect(pFewer).toBeLessThan(0.01)
    const store = demo.copy()
    const p = prepareRelease(store.db, DEMO_QUERIES.aiq, AIQ)
    let found = 0
    for (let i = 0; i < 10; i++) {
      const out = p.execute(seededRng(`demo-aiq-${i}`))
      if (out.answer.kind === 'anomaly-identification' && out.answer.records[0].anomaly) found++
    }
    expect(found).toBeGreaterThanOrEqual(9)
  })

  it('the release and the aiq simulation agree: 1,000 releases answer each record as the simulated flip probability says', async () => {
    const store = demo.copy()
    const p = prepareRelease(store.db, DEMO_QUERIES.aiq, AIQ)
    const records = ['C,3', 'D,21', 'A,14']
    const sims = await Promise.all(records.map((r) => aiqCli(r, ['--person-column', 'person_id'])))
    const N = 1000
    const anomalies = records.map(() => 0)
    const rng = seededRng('demo-aiq-agree')
    // The release's own read (the rows after the charge) once, then its computation (the pool's task) N times.
    const run = p.run as ReleaseRun<'release:anomaly-identification'>
    const payload = run.read(rng)
    for (let i = 0; i < N; i++) {
      const out = run.finish(computeAiqRelease(payload, rng))
      if (out.answer.kind !== 'anomaly-identification') throw new Error('wrong kind')
      out.answer.records.forEach((r, j) => (anomalies[j] += r.anomaly ? 1 : 0))
    }
    sims.forEach((sim, j) => {
      const expected = sim.isAnomaly ? 1 - sim.flipProbability : sim.flipProbability
      // Two-sided Clopper-Pearson at 1e-6 on the release's count must contain the simulated probability.
      const ci = clopperPearson(anomalies[j], N, 1e-6)
      expect(expected, `record ${records[j]}: ${anomalies[j]} of ${N}`).toBeGreaterThanOrEqual(ci.lo)
      expect(expected, `record ${records[j]}: ${anomalies[j]} of ${N}`).toBeLessThanOrEqual(ci.hi)
    })
    // (D, 21): one person (P0418) near it on person-level data, 30 of their rows on row-level data.
    expect(sims[1]).toMatchObject({ count: 1, ballCount: 1, isAnomaly: true })
    expect(await aiqCli('D,21')).toMatchObject({ count: 10, isAnomaly: false })
  })

  it('the bound is in the preview: priced by rows per bin x bins per person, explained in the charge and the guarantee', () => {
    const store = demo.copy()
    const pv = previewRelease(store.db, { queryId: DEMO_QUERIES.aiq, params: AIQ })
    // The default bound (1 x 1) costs what row-level data costs: 3 records x epsilon 1.
    expect(pv.epsilonExact).toBe('3')
    expect(pv.chargeExplained).toMatch(/x 1 \(near each record a person counts at most 1 row per bin in at most 1 bin/)
    expect(pv.guarantee).toMatch(
      /a record is an anomaly when at most 5 persons are near it; this never turns an anomaly of the rows into a normal answer/
    )
    expect(pv.guarantee).not.toMatch(/\bbeta\b/)
    const wider = saveQuery(store.db, 1, 'wider bound', { ...getDef(store), rowsPerBin: 2, binsPerPerson: 3 })
    const pw = previewRelease(store.db, { queryId: wider.id, params: AIQ })
    expect(pw.epsilonExact).toBe('18')
    expect(pw.guarantee).toMatch(/at most 2 rows in a bin and in at most 3 bins within the radius/)
    expect(pw.guarantee).toMatch(/times 6: the most a person's rows move one record's neighbour count/)
  })

  it('definitions saved with the former names load, price and release as before (beta, maxRowsPerPerson)', () => {
    const store = demo.copy()
    const legacy = { ...getDef(store), beta: 5, maxRowsPerPerson: 2 } as Record<string, unknown>
    delete legacy.maxNeighbours
    // Written as an older version stored it (saved queries never change).
    const id = Number(
      store.db
        .prepare(`INSERT INTO queries (dataset_id, name, kind, definition) VALUES (1, 'legacy', 'anomaly-identification', ?)`)
        .run(JSON.stringify(legacy)).lastInsertRowid
    )
    const q = getQuery(store.db, id)
    expect(q.definition).toMatchObject({ maxNeighbours: 5, rowsPerBin: 2 })
    expect(q.definition).not.toHaveProperty('beta')
    expect(previewRelease(store.db, { queryId: id, params: AIQ }).epsilonExact).toBe('6')
  })

  it('the accuracy preview: error against epsilon in closed form, from public inputs only', async () => {
    const store = demo.copy()
    const a = await releaseAccuracy(store.db, { queryId: DEMO_QUERIES.aiq, params: AIQ })
    expect(a.measure).toBe('error')
    expect(a.currentEpsilon).toBe(3)
    const worst = a.series[0].points.find((pt) => pt.epsilon === 3)!
    expect(worst.value).toBeCloseTo(1 / (1 + Math.E), 12)
    expect(a.sentence).toMatch(/^At ε 3 in all \(1 per record\)/)
  })
})

function getDef(store: ReturnType<DemoWorkspace['copy']>) {
  const d = getQuery(store.db, DEMO_QUERIES.aiq).definition
  if (d.kind !== 'anomaly-identification') throw new Error('not the demo AIQ')
  return d
}
