/**
 * Issue 18: release computation on the worker pool. The data read and the charge stay on the services' thread; the
 * kind's one computation (`release:<kind>`) runs on a worker with the worker's own secure generator, once.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../../src-main/services/store/store'
import { type Batch, WorkerPool } from '../../../src-main/services/platform/worker-pool'
import { resolveWorkerScript } from '../../../src-main/services/platform/worker-script'
import type { ReleasePool } from '../../../src-main/services/releases/kinds/release-kind'
import { NEUTRAL_FAILURE, runReleaseOnPool, runReleaseTimed } from '../../../src-main/services/releases/release-service'
import { ReleaseFailedError } from '../../../src-main/services/platform/errors'
import { SecureRandom, seededRng } from '../../../src-worker/engine/random'
import { type TaskPayload, tasks } from '../../../src-worker/tasks'
import { RELEASE_COMPUTE } from '../../../src-worker/tasks/release-compute'
import { assertNoGenerator } from '../../../src-worker/tasks/release-task'
import { tempWorkspace } from '../helpers'
import { craftDataset, saveQuery, closeLedgerWorkspace, openLedgerWorkspace } from './fixtures'
import { officerAct } from '../officer-fixture'
import type { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>
let pool: WorkerPool

beforeAll(() => {
  pool = new WorkerPool(resolveWorkerScript({ ...process.env, QA_DIAGNOSTICS: '1' }), 1)
})
afterAll(async () => pool.shutdown())
beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-release-pool-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

/** One query of each kind on small crafted data; the anomaly (score 9000) and the flagged room (R1) are clear-cut. */
async function queries() {
  const rows: Array<[string, number]> = []
  for (let i = 0; i < 3000; i++) rows.push(['R1', i % 7])
  for (let i = 0; i < 20; i++) rows.push(['R2', 100 + i])
  const ds = craftDataset(
    store.db,
    'badges',
    [
      { name: 'room', type: 'text' },
      { name: 'code', type: 'integer' }
    ],
    rows
  )
  const threshold = saveQuery(store.db, ds, 'busy rooms', {
    kind: 'threshold',
    groupBy: ['room'],
    count: { kind: 'rows' },
    threshold: { kind: 'constant', value: 1000 },
    groups: [['R1'], ['R2']]
  })
  const aiq = saveQuery(store.db, ds, 'is R2 odd?', {
    kind: 'anomaly-identification',
    columns: ['room', 'code'],
    binWidths: [null, 1],
    metric: 'l1',
    radius: 0,
    beta: 5,
    k: 1,
    records: [['R2', 100]]
  })
  const people: Array<[string, number]> = []
  for (let i = 0; i < 32; i++) people.push([`p${i}`, i % 5])
  people.push(['the-one', 9000])
  const sds = craftDataset(
    store.db,
    'scores',
    [
      { name: 'who', type: 'text' },
      { name: 'score', type: 'integer' }
    ],
    people
  )
  const search = saveQuery(store.db, sds, 'find the one', {
    kind: 'anomaly-search',
    scoreColumn: 'score',
    idColumn: 'who',
    individuals: people.map((p) => p[0]),
    tLow: 10,
    tHigh: 5000,
    epsilonPerQuery: 2,
    budget: 40,
    oracle: 'direct',
    top: 1
  })
  for (const datasetId of [ds, sds]) await h['budgets/set']({ datasetId, epsilon: '1000', reason: 'test budget', ...officerAct(store.db, 'olga') })
  return { threshold, aiq, search }
}

const searchPayload = (): TaskPayload<'release:anomaly-search'> => ({
  scores: Float64Array.from([0, 1, 2, 50]),
  request: { epsilon: 1, tLow: 5, tHigh: 40, oracle: 'direct', budget: 10, tau: 0.9, top: 1, posteriorGrid: 0.01 }
})

describe('release computation on the worker pool', () => {
  it('answers each kind on a worker (through the door that has a pool), charged once, with decisions only', async () => {
    const q = await queries()
    const chargesBefore = (await h['ledger/entries']({})).total
    const t = await runReleaseTimed(store.db, { queryId: q.threshold, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 20 } }, pool)
    expect(t.status).toBe('answered')
    expect(t.answer?.kind === 'threshold' && t.answer.decisions?.map((d) => d.flagged)).toEqual([true, false])
    const a = await runReleaseOnPool(store.db, { queryId: q.aiq, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 1 } }, pool)
    expect(a.answer?.kind === 'anomaly-identification' && a.answer.records.length).toBe(1)
    const s = await runReleaseOnPool(store.db, { queryId: q.search, params: { kind: 'anomaly-search' } }, pool)
    expect(s.answer?.kind === 'anomaly-search' && s.answer.top).toEqual(['the-one'])
    expect((await h['ledger/entries']({})).total).toBe(chargesBefore + 3)
    // The answer time is the charge time padded to whole seconds, as inline.
    for (const r of [a, s]) expect((Date.parse(r.answeredAt!) - Date.parse(r.createdAt)) % 1000).toBe(0)
  })

  it('a worker that fails is the neutral release failure: the charge stays, nothing of the cause is shown, no retry', async () => {
    const q = await queries()
    const before = (await h['ledger/entries']({})).total
    let calls = 0
    const failing: ReleasePool = {
      run: (async (batches: readonly Batch[], options: { once?: boolean }) => {
        calls++
        expect(options.once).toBe(true)
        expect(batches.map((b) => b.kind)).toEqual(['release:anomaly-search'])
        return [{ ok: false, error: 'secret 9000 in the cause', failure: { kind: 'worker-lost', reason: 'secret 9000' } }]
      }) as unknown as ReleasePool['run']
    }
    // Through the door's path: the failure is handed over at its padded time, like an answer.
    const err = await runReleaseTimed(store.db, { queryId: q.search, params: { kind: 'anomaly-search' } }, failing).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ReleaseFailedError)
    expect(String((err as Error).message)).not.toMatch(/9000|secret/)
    expect(calls).toBe(1)
    expect((await h['ledger/entries']({})).total).toBe(before + 1)
    const rec = await h['releases/get']({ releaseId: (err as ReleaseFailedError).releaseId })
    expect(rec.statusText).toBe(`charged, no answer: failed (${NEUTRAL_FAILURE})`)
  })

  it('runs a release batch once: a worker lost mid-batch is not retried, and no time-out applies', async () => {
    const lost = pool.run([{ kind: 'diag/exit', payload: { code: 70 }, units: 1 }], { once: true, failFast: false })
    const [outcome] = await lost
    expect(outcome.ok).toBe(false)
    expect(!outcome.ok && outcome.error).toMatch(/Batch 1 of 1 \(diag\/exit\) failed: the worker stopped unexpectedly/)
    // Without `once` the same batch is retried (and so fails "twice"): the option is what makes the difference.
    const [twice] = await pool.run([{ kind: 'diag/exit', payload: { code: 70 }, units: 1 }], { failFast: false })
    expect(!twice.ok && twice.error).toMatch(/failed twice/)
    const [slow] = await pool.run([{ kind: 'diag/sleep', payload: { ms: 400, value: 'done' }, units: 1 }], { once: true, batchTimeoutMs: 50 })
    expect(slow).toEqual({ ok: true, value: 'done' })
  })

  it('a payload cannot carry a generator or a seed, and the computation refuses a seeded generator', () => {
    const base = searchPayload()
    // @ts-expect-error a release payload has no seed (typecheck fails here if the payload type took one)
    const withSeed: TaskPayload<'release:anomaly-search'> = { ...base, seed: 'x' }
    // @ts-expect-error nor a generator
    const withRng: TaskPayload<'release:anomaly-search'> = { ...base, rng: seededRng(1) }
    const ctx = { progress: () => undefined }
    expect(() => tasks['release:anomaly-search'](withSeed, ctx)).toThrow(/takes no generator or seed \(payload\.seed\)/)
    expect(() => tasks['release:anomaly-search'](withRng, ctx)).toThrow(/takes no generator or seed \(payload\.rng\)/)
    // A generator after structured cloning is a plain object with its kind: refused at any depth, under any name.
    expect(() => assertNoGenerator({ request: { noise: { ...seededRng(2) } } })).toThrow(/payload\.request\.noise looks like one/)
    expect(() => assertNoGenerator({ request: { Seed: 1 } })).toThrow(/payload\.request\.Seed/)
    expect(() => assertNoGenerator(base)).not.toThrow()
    expect(tasks['release:anomaly-search'](base, ctx).top).toHaveLength(1)
    // The one computation per kind takes only the secure generator (the worker's own; a seeded one is refused).
    expect(() => RELEASE_COMPUTE['release:anomaly-search'](base, seededRng('x'))).toThrow(/secure generator/)
    expect(() =>
      RELEASE_COMPUTE['release:threshold'](
        {
          mechanism: 'tslm',
          counts: Float64Array.of(5),
          thresholds: Float64Array.of(1),
          params: { alpha: 1, beta: 0.05, epsMax: 10, eps1: 0.1, steps: 4, fineSteps: 2 }
        },
        seededRng(3)
      )
    ).toThrow(/secure generator/)
    expect(() =>
      RELEASE_COMPUTE['release:anomaly-identification'](
        {
          columns: [{ kind: 'numeric', binWidth: 1, values: Float64Array.of(1, 2, 1) }],
          rows: 2,
          records: [[1]],
          mechanism: 'dp',
          metric: 'l1',
          radius: 0,
          beta: 5,
          k: 1,
          epsilon: 1
        },
        { kind: 'secure', next: () => 0.5 } as never
      )
    ).toThrow(/secure generator/)
    expect(RELEASE_COMPUTE['release:anomaly-search'](base, SecureRandom.create()).top).toHaveLength(1)
  })
})
