/**
 * Releases run whole on the release runner (release-lane.ts, release-runner.ts): a thread of their own with its own
 * connection, one release at a time, the kind's computation with the runner's own secure generator. The services'
 * thread only sends the request, so nothing waits for a release; a runner lost mid-release is the neutral failure.
 * `holdAfterCharge` keeps a release inside its run (as a long data read would) for as long as a test needs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../../src-main/services/store/store'
import { ReleaseLane, resolveRunnerScript } from '../../../src-main/services/releases/release-lane'
import { NEUTRAL_FAILURE, getRelease, listReleases } from '../../../src-main/services/releases/release-service'
import { ReleaseFailedError } from '../../../src-main/services/platform/errors'
import { SecureRandom, seededRng } from '../../../src-worker/engine/random'
import type { TaskPayload } from '../../../src-worker/tasks'
import { RELEASE_COMPUTE } from '../../../src-worker/tasks/release-compute'
import { tempWorkspace, waitFor } from '../helpers'
import { craftDataset, saveQuery, closeLedgerWorkspace, openLedgerWorkspace } from './fixtures'
import { officerAct } from '../officer-fixture'
import type { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>
let lane: ReleaseLane | null = null
let latch: Int32Array

beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-release-runner-'))
  latch = new Int32Array(new SharedArrayBuffer(4))
})
afterEach(async () => {
  await lane?.close()
  lane = null
  closeLedgerWorkspace(store, ws)
})

function newLane(o: { cadenceMs?: number; hold?: boolean } = {}): ReleaseLane {
  lane = new ReleaseLane({
    db: store.db,
    dbPath: store.path,
    script: resolveRunnerScript(),
    cadenceMs: o.cadenceMs ?? null,
    holdAfterCharge: o.hold ? latch : undefined
  })
  return lane
}

/** Waits until the runner holds a charged release inside its run. */
const held = () => waitFor(() => Atomics.load(latch, 0) === 1, 'the runner to hold a charged release', 60_000)
/** Lets the held release go on. */
function letGo(): void {
  Atomics.store(latch, 0, 0)
  Atomics.notify(latch, 0)
}

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
    maxNeighbours: 5,
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

describe('the release runner', () => {
  it('answers each kind on its own thread, charged once, with decisions only; answer times in whole seconds after the charge', async () => {
    const q = await queries()
    const l = newLane()
    const chargesBefore = (await h['ledger/entries']({})).total
    const t = await l.run({ queryId: q.threshold, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 20 } })
    expect(t.status).toBe('answered')
    expect(t.answer?.kind === 'threshold' && t.answer.decisions?.map((d) => d.flagged)).toEqual([true, false])
    const a = await l.run({ queryId: q.aiq, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 1 } })
    expect(a.answer?.kind === 'anomaly-identification' && a.answer.records.length).toBe(1)
    const s = await l.run({ queryId: q.search, params: { kind: 'anomaly-search' } })
    expect(s.answer?.kind === 'anomaly-search' && s.answer.top).toEqual(['the-one'])
    expect((await h['ledger/entries']({})).total).toBe(chargesBefore + 3)
    for (const r of [t, a, s]) expect((Date.parse(r.answeredAt!) - Date.parse(r.createdAt)) % 1000).toBe(0)
    // A denial comes back as the same sentence and code, with nothing spent.
    const denied = await l
      .run({ queryId: q.threshold, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 0.002 } })
      .catch((e: unknown) => e)
    expect((denied as { code?: string }).code).toBe('denied')
    expect((await h['ledger/entries']({})).total).toBe(chargesBefore + 3)
  })

  it('shows a release as running while the runner holds it, and keeps other calls free meanwhile', async () => {
    const q = await queries()
    const l = newLane({ hold: true })
    const run = l.run({ queryId: q.threshold, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 20 } })
    await held()
    // The services' thread answers while the release is inside its run (before: the read ran on this thread).
    const listed = listReleases(store.db, undefined, { view: l.view })
    expect(listed.map((r) => [r.status, r.statusText])).toEqual([['running', 'charged, answer being computed']])
    // Without the runner's mark the same row would read as interrupted.
    expect(getRelease(store.db, listed[0].releaseId).status).toBe('interrupted')
    letGo()
    expect((await run).status).toBe('answered')
    expect(listReleases(store.db, undefined, { view: l.view })[0].status).toBe('answered')
  })

  it('a runner lost in the middle of a release fails that release with the neutral failure (the charge stays, no retry); the next starts a new runner', async () => {
    const q = await queries()
    const l = newLane({ hold: true })
    const before = (await h['ledger/entries']({})).total
    const run = l.run({ queryId: q.search, params: { kind: 'anomaly-search' } }).catch((e: unknown) => e)
    await held()
    await (l as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate()
    const err = await run
    expect(err).toBeInstanceOf(ReleaseFailedError)
    expect((await h['ledger/entries']({})).total).toBe(before + 1)
    const rec = await h['releases/get']({ releaseId: (err as ReleaseFailedError).releaseId })
    expect(rec.statusText).toBe(`charged, no answer: failed (${NEUTRAL_FAILURE})`)
    latch[0] = 0
    const next = l.run({ queryId: q.threshold, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 20 } })
    await held()
    letGo()
    expect((await next).status).toBe('answered')
    expect((await h['ledger/entries']({})).total).toBe(before + 2)
  })

  it('in the service, hands the answer over at its recorded time (whole cadences after the charge), and starts the next release no earlier', async () => {
    const q = await queries()
    const l = newLane({ cadenceMs: 250 })
    const params = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.05, alpha: 20 }
    const [r1, r2] = await Promise.all([
      l.run({ queryId: q.threshold, params }).then((r) => ({ r, at: Date.now() })),
      l.run({ queryId: q.threshold, params })
    ])
    expect((Date.parse(r1.r.answeredAt!) - Date.parse(r1.r.createdAt)) % 250).toBe(0)
    expect(r1.at).toBeGreaterThanOrEqual(Date.parse(r1.r.answeredAt!))
    expect(Date.parse(r2.createdAt)).toBeGreaterThanOrEqual(Date.parse(r1.r.answeredAt!))
  })

  it('the computation takes only the secure generator', () => {
    const base = searchPayload()
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
