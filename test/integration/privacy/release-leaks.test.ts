/**
 * The release-path leaks found by the audit, each written as the attack an analyst tried on the demo's sample data
 * (resources/sample: occupancy, capacities, person-hours). Each is now refused before anything is charged, or the
 * release carries nothing of the private data. ALGORITHMS.md section 5 states the rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolve } from 'node:path'
import type { QueryDefinition } from '../../../src-main/contract/datasets'
import type { ReleaseParams } from '../../../src-main/contract/ledger'
import { planImport, runImport } from '../../../src-main/services/datasets/import-dataset'
import { datasetRows, lookupDataset, renameDataset } from '../../../src-main/services/catalog/catalog'
import { declarePublic } from '../../../src-main/services/datasets/declare-public'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import {
  STORED_VIEW,
  NEUTRAL_FAILURE,
  getRelease,
  listReleases,
  previewRelease,
  runRelease
} from '../../../src-main/services/releases/release-service'
import { ReleaseLane, resolveRunnerScript } from '../../../src-main/services/releases/release-lane'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { type Rng, seededRng } from '../../../src-worker/engine/random'
import { privateBinarySearch } from '../../../src-worker/engine/search'
import { saveQuery as insertQueryUnchecked } from '../ledger/fixtures'
import { tempWorkspace } from '../helpers'
import { officerAct } from '../officer-fixture'

const SAMPLE = resolve(__dirname, '../../../resources/sample')
const OFFICER = 'Olga (privacy officer)'

interface Workspace {
  ws: ReturnType<typeof tempWorkspace>
  store: Store
  occ: number
  cap: number
  ph: number
}

async function sampleWorkspace(prefix: string, edit?: (db: Store['db'], ids: { occ: number; ph: number }) => void): Promise<Workspace> {
  const ws = tempWorkspace(prefix)
  const store = openStore(ws.db)
  const imp = async (file: string, name: string) =>
    (await runImport(store.db, planImport(store.db, { path: resolve(SAMPLE, file), name, onBadRow: 'abort' }))).dataset.id
  const occ = await imp('occupancy.csv', 'occupancy')
  const cap = await imp('capacities.csv', 'capacities')
  const ph = await imp('person-hours.csv', 'person-hours')
  for (const d of [occ, ph]) setBudget(store.db, { datasetId: d, epsilon: '50', reason: 'attack tests', ...officerAct(store.db, OFFICER) })
  declarePublic(store.db, { datasetId: cap, reason: 'capacities are posted at the doors', ...officerAct(store.db, OFFICER) })
  edit?.(store.db, { occ, ph })
  return { ws, store, occ, cap, ph }
}

function ledgerRows(db: Store['db']): number {
  return (db.prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n
}

const TSLM: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1 }

let w: Workspace
beforeAll(async () => {
  w = await sampleWorkspace('qa-leaks-')
})
afterAll(() => {
  w.store.close()
  w.ws.cleanup()
})

describe('finding 1: column thresholds copied another dataset into the release', () => {
  const byPerson = (datasetId: number, column: string): QueryDefinition => ({
    kind: 'threshold',
    groupBy: ['person_id'],
    count: { kind: 'rows' },
    threshold: { kind: 'column', datasetId, column }
  })

  it('thresholds from the private "person-hours" are refused when saved, and an old saved query is refused before any charge', () => {
    expect(() => saveQuery(w.store.db, w.occ, 'hours of everyone', byPerson(w.ph, 'hours_on_site'))).toThrow(
      'The threshold table "person-hours" is not public: its values would reach the release. Ask the privacy officer to declare it public (quiet-alarm datasets public), or use another source'
    )
    // A query saved before this rule existed (written straight into the table) cannot be previewed or released.
    const old = insertQueryUnchecked(w.store.db, w.occ, 'old: hours of everyone', byPerson(w.ph, 'hours_on_site'))
    const before = ledgerRows(w.store.db)
    expect(() => previewRelease(w.store.db, { queryId: old, params: TSLM })).toThrow(/is not public/)
    expect(() => runRelease(w.store.db, { queryId: old, params: TSLM })).toThrow(/is not public/)
    expect(ledgerRows(w.store.db)).toBe(before)
  })

  it('the counted dataset can never be its own threshold table, even when public', async () => {
    const own = await sampleWorkspace('qa-leaks-own-', (db, ids) =>
      declarePublic(db, { datasetId: ids.occ, reason: 'test: even a public dataset', ...officerAct(db, OFFICER) })
    )
    try {
      const def: QueryDefinition = {
        kind: 'threshold',
        groupBy: ['person_id', 'room', 'timestamp'],
        count: { kind: 'rows' },
        threshold: { kind: 'column', datasetId: own.occ, column: 'minutes' }
      }
      expect(() => saveQuery(own.store.db, own.occ, 'minutes of every row', def)).toThrow(
        'The threshold table cannot be the counted dataset "occupancy" itself'
      )
      const old = insertQueryUnchecked(own.store.db, own.occ, 'old: minutes of every row', def)
      expect(() => runRelease(own.store.db, { queryId: old, params: TSLM })).toThrow(
        'The threshold table cannot be the counted dataset "occupancy" itself'
      )
      expect((own.store.db.prepare("SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'").get() as { n: number }).n).toBe(0)
    } finally {
      own.store.close()
      own.ws.cleanup()
    }
  })

  it('with a public threshold table, every released threshold is one of its values and every predicate one of its keys', () => {
    const q = saveQuery(w.store.db, w.occ, 'rooms over capacity', {
      kind: 'threshold',
      period: { column: 'timestamp', from: '2024-03-12T14:00:00Z', to: '2024-03-12T15:00:00Z' },
      groupBy: ['building', 'room'],
      count: { kind: 'persons', personColumn: 'person_id', cap: 1 },
      threshold: { kind: 'column', datasetId: w.cap, column: 'capacity' }
    })
    const r = runRelease(w.store.db, { queryId: q.id, params: TSLM })
    const capRows = datasetRows(w.store.db, w.cap, 0, 1000).rows
    const publicPairs = new Set(capRows.map((x) => JSON.stringify([x[0], x[1], x[2]])))
    if (r.answer?.kind !== 'threshold') throw new Error('no threshold answer')
    expect(r.answer.decisions!.length).toBe(capRows.length)
    for (const d of r.answer.decisions!) expect(publicPairs.has(JSON.stringify([...d.key, d.threshold]))).toBe(true)
  })
})

describe('finding 2: a predicate list read from the data gave infinite epsilon', () => {
  const everyTuple: QueryDefinition = {
    kind: 'threshold',
    filter: [{ column: 'minutes', op: '<', value: -1 }],
    groupBy: ['person_id', 'room', 'timestamp'],
    count: { kind: 'rows' },
    threshold: { kind: 'constant', value: 1 }
  }
  it('grouping by (person_id, room, timestamp) without a public group list is refused when saved and when released', () => {
    expect(() => saveQuery(w.store.db, w.occ, 'presence tuples', everyTuple)).toThrow(/^The groups of a threshold query must be public/)
    const old = insertQueryUnchecked(w.store.db, w.occ, 'old: presence tuples', everyTuple)
    const before = ledgerRows(w.store.db)
    expect(() => previewRelease(w.store.db, { queryId: old, params: TSLM })).toThrow(/^The groups of a threshold query must be public/)
    expect(() => runRelease(w.store.db, { queryId: old, params: TSLM })).toThrow(/^The groups of a threshold query must be public/)
    expect(ledgerRows(w.store.db)).toBe(before)
  })
  it('explicit groups are released as given, whether or not they occur in the data', () => {
    const q = saveQuery(w.store.db, w.occ, 'two tuples', {
      ...everyTuple,
      groups: [
        ['P0007', 'A-101', '2024-03-04T08:00:00Z'],
        ['NOBODY', 'Z-999', '2024-03-04T08:00:00Z']
      ]
    })
    const r = runRelease(w.store.db, { queryId: q.id, params: TSLM })
    if (r.answer?.kind !== 'threshold') throw new Error('no threshold answer')
    expect(r.answer.predicates).toBe(2)
    expect(r.answer.decisions!.map((d) => d.key[0])).toEqual(['P0007', 'NOBODY'])
  })
})

describe('finding 3: the free preview and error messages read the data', () => {
  it('a preview is the same whatever the private rows hold (keys present, duplicates, values)', async () => {
    // A second workspace whose private occupancy differs: half its rows gone, another person's rows doubled.
    const other = await sampleWorkspace('qa-leaks-b-', (db, ids) => {
      const t = `ds_${ids.occ}`
      db.exec(`DELETE FROM "${t}" WHERE rowid % 2 = 0; INSERT INTO "${t}" SELECT * FROM "${t}" WHERE c2 = 'P0010'; UPDATE "${t}" SET c9 = c9 * 7`)
      db.exec(`DELETE FROM "ds_${ids.ph}" WHERE rowid > 100`)
    })
    try {
      const defs: QueryDefinition[] = [
        {
          kind: 'threshold',
          groupBy: ['building', 'room'],
          count: { kind: 'persons', personColumn: 'person_id', cap: 2 },
          threshold: {
            kind: 'reference',
            factor: 1.5,
            aggregate: 'max',
            bucket: 'hour',
            column: 'timestamp',
            from: '2024-03-04T00:00:00Z',
            to: '2024-03-11T00:00:00Z'
          },
          groupsFrom: { datasetId: w.cap }
        },
        {
          kind: 'threshold',
          groupBy: ['building', 'room'],
          count: { kind: 'rows' },
          threshold: { kind: 'column', datasetId: w.cap, column: 'capacity' }
        },
        {
          kind: 'anomaly-identification',
          columns: ['building', 'hour_of_day'],
          binWidths: [null, 1],
          metric: 'l1',
          radius: 1,
          maxNeighbours: 5,
          k: 2,
          records: [['C', 3]]
        }
      ]
      const params: ReleaseParams[] = [TSLM, { ...TSLM, mechanism: 'dppwlm' }, { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 0.5 }]
      defs.forEach((def, i) => {
        const qa = saveQuery(w.store.db, w.occ, `same ${i}`, def).id
        const qb = saveQuery(other.store.db, other.occ, `same ${i}`, def).id
        const strip = (p: ReturnType<typeof previewRelease>) => ({
          ...p,
          queryId: 0,
          spentBefore: 0,
          spentBeforeExact: '',
          spentAfter: 0,
          spentAfterExact: '',
          remaining: 0,
          remainingExact: ''
        })
        expect(strip(previewRelease(other.store.db, { queryId: qb, params: params[i] }))).toEqual(
          strip(previewRelease(w.store.db, { queryId: qa, params: params[i] }))
        )
      })
      const search: QueryDefinition = {
        kind: 'anomaly-search',
        scoreColumn: 'hours_on_site',
        idColumn: 'person_id',
        individuals: Array.from({ length: 900 }, (_, i) => `P${String(i + 1).padStart(4, '0')}`),
        tLow: 50,
        tHigh: 120,
        epsilonPerQuery: 2,
        budget: 30,
        oracle: 'direct'
      }
      const sa = saveQuery(w.store.db, w.ph, 'search', search).id
      const sb = saveQuery(other.store.db, other.ph, 'search', search).id
      const pa = previewRelease(w.store.db, { queryId: sa, params: { kind: 'anomaly-search' } })
      const pb = previewRelease(other.store.db, { queryId: sb, params: { kind: 'anomaly-search' } })
      expect({
        ...pb,
        queryId: 0,
        spentBefore: 0,
        spentBeforeExact: '',
        spentAfter: 0,
        spentAfterExact: '',
        remaining: 0,
        remainingExact: ''
      }).toEqual({
        ...pa,
        queryId: 0,
        spentBefore: 0,
        spentBeforeExact: '',
        spentAfter: 0,
        spentAfterExact: '',
        remaining: 0,
        remainingExact: ''
      })
    } finally {
      other.store.close()
      other.ws.cleanup()
    }
  })

  it("whether a release fails never depends on the private values (the review's bin-overflow probe of max(minutes))", () => {
    // The probe: bin width X / 2^31 made the release fail exactly when some value reached X, so a binary search over X
    // read max(minutes) (60 in the sample) for 2e-8 epsilon. Now every value is clamped into the public frame of the
    // records asked about before binning: both sides of the true maximum are answered.
    const occPerRow = (X: number) =>
      saveQuery(w.store.db, w.occ, `max >= ${X}?`, {
        kind: 'anomaly-identification',
        columns: ['minutes'],
        binWidths: [X / 2 ** 31],
        metric: 'linf',
        radius: 1,
        beta: 1,
        k: 1,
        records: [[0]],
        maxRowsPerPerson: 1
      }).id
    for (const X of [60, 61]) {
      const r = runRelease(w.store.db, { queryId: occPerRow(X), params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 1e-9 } })
      expect(r.status).toBe('answered')
    }
    // A column that is empty on every row: answered (as a histogram of zeros), not failed.
    const t = `ds_${w.ph}`
    w.store.db.exec(`ALTER TABLE "${t}" ADD COLUMN c99 INTEGER`)
    w.store.db
      .prepare(
        `INSERT INTO dataset_columns (dataset_id, position, name, sql_name, type, type_source) VALUES (?, 99, 'badge_floor', 'c99', 'integer', 'inferred')`
      )
      .run(w.ph)
    const empty = saveQuery(w.store.db, w.ph, 'empty column', {
      kind: 'anomaly-identification',
      columns: ['badge_floor'],
      binWidths: [1],
      metric: 'l1',
      radius: 0,
      beta: 1,
      k: 1,
      records: [[3]]
    })
    expect(runRelease(w.store.db, { queryId: empty.id, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 0.1 } }).status).toBe(
      'answered'
    )
    // A record asked about that no bin can hold is a public problem: refused before anything is charged.
    const before = ledgerRows(w.store.db)
    const huge = saveQuery(w.store.db, w.occ, 'huge record', {
      kind: 'anomaly-identification',
      columns: ['minutes'],
      binWidths: [1e-300],
      metric: 'l1',
      radius: 0,
      beta: 1,
      k: 1,
      records: [[1e10]]
    })
    expect(() => runRelease(w.store.db, { queryId: huge.id, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 0.1 } })).toThrow(
      'A record\'s value for "minutes" falls outside the bins this bin width allows'
    )
    expect(ledgerRows(w.store.db)).toBe(before)
  })

  it('anything that still fails after the charge says one neutral sentence; the charge stays', async () => {
    const q = saveQuery(w.store.db, w.ph, 'lost table', {
      kind: 'anomaly-identification',
      columns: ['hours_on_site'],
      binWidths: [1],
      metric: 'l1',
      radius: 0,
      beta: 1,
      k: 1,
      records: [[3]]
    })
    const before = ledgerRows(w.store.db)
    let message = ''
    try {
      // The data table disappears between the charge and the run (a crash of the disk, a hand edit).
      runRelease(
        w.store.db,
        { queryId: q.id, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 0.1 } },
        {
          afterCharge: () => w.store.db.exec(`ALTER TABLE "ds_${w.ph}" RENAME TO "ds_${w.ph}_gone"`)
        }
      )
    } catch (e) {
      message = (e as Error).message
    } finally {
      w.store.db.exec(`ALTER TABLE "ds_${w.ph}_gone" RENAME TO "ds_${w.ph}"`)
    }
    expect(ledgerRows(w.store.db)).toBe(before + 1)
    const id = Number(/^Release (\d+) /.exec(message)?.[1])
    expect(message).toBe(`Release ${id} was charged but not answered (${NEUTRAL_FAILURE}); the charge stays in the ledger`)
    // Where answers are hidden until their recorded time (the service), the failure shows as still running until then,
    // as an answer would; the workbench shows it at once.
    const serviceView = { ...STORED_VIEW, hideUntilAnswerTime: true }
    const at = w.store.db.prepare('SELECT answered_at FROM releases WHERE id = ?').pluck().get(id) as string
    if (Date.parse(at) > Date.now()) expect(getRelease(w.store.db, id, { view: serviceView }).statusText).toBe('charged, answer being computed')
    expect(getRelease(w.store.db, id).statusText).toBe(`charged, no answer: failed (${NEUTRAL_FAILURE})`)
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(at) - Date.now() + 5)))
    expect(getRelease(w.store.db, id, { view: serviceView }).statusText).toBe(`charged, no answer: failed (${NEUTRAL_FAILURE})`)
  })
})

describe('finding 4: anomaly search scores were not clipped', () => {
  it('the guarantee names the clipping and the public list; scores below L reach the search as L (see empirical-privacy.test.ts)', () => {
    const q = saveQuery(w.store.db, w.ph, 'clipped search', {
      kind: 'anomaly-search',
      scoreColumn: 'hours_on_site',
      idColumn: 'person_id',
      individuals: ['P0001', 'P0002', 'P0003'],
      scoreFloor: 20,
      tLow: 50,
      tHigh: 120,
      epsilonPerQuery: 1,
      budget: 3,
      oracle: 'direct'
    })
    const p = previewRelease(w.store.db, { queryId: q.id, params: { kind: 'anomaly-search' } })
    expect(p.guarantee).toContain('of the 3 listed individuals')
    expect(p.guarantee).toContain('The list of individuals is public (it is part of the query); scores below 20 are raised to 20 before the search.')
    expect(p.guarantee).toContain('every individual whose hours_on_site is at most 50 is protected')
  })
})

describe('finding 5: timing', () => {
  /** The service's release lane on this workspace (cadence 250 ms): the runner's thread, answers handed over at their time. */
  async function withServiceLane<T>(f: (lane: ReleaseLane) => Promise<T>): Promise<T> {
    const lane = new ReleaseLane({ db: w.store.db, dbPath: w.store.path, script: resolveRunnerScript(), cadenceMs: 250 })
    try {
      return await f(lane)
    } finally {
      await lane.close()
    }
  }

  it('in the service the answer time is the charge time plus whole cadences, and the lane hands the answer over no earlier', async () => {
    const q = saveQuery(w.store.db, w.occ, 'timed', {
      kind: 'threshold',
      groupBy: ['building'],
      count: { kind: 'persons', personColumn: 'person_id', cap: 1 },
      threshold: { kind: 'constant', value: 10 },
      groups: [['A'], ['B']]
    })
    await withServiceLane(async (lane) => {
      for (let i = 0; i < 2; i++) {
        const r = await lane.run({ queryId: q.id, params: TSLM })
        const held = Date.parse(r.answeredAt!) - Date.parse(r.createdAt)
        expect(held % 250).toBe(0)
        expect(held).toBeGreaterThanOrEqual(250)
        // The call returned at the recorded time, not when the data work ended.
        expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(r.answeredAt!))
      }
    })
  })

  it('in the service, polling releases/list and releases/get beside a release shows it running, without its answer, until its answer time', async () => {
    // The answer is stored when the run ends: a 1 ms poll beside releases/run would read the run time to the millisecond.
    const q = saveQuery(w.store.db, w.occ, 'polled', {
      kind: 'threshold',
      groupBy: ['building'],
      count: { kind: 'persons', personColumn: 'person_id', cap: 1 },
      threshold: { kind: 'constant', value: 10 },
      groups: [['A'], ['B']]
    })
    await withServiceLane(async (lane) => {
      const seen: Array<{ at: number; status: string; answer: boolean }> = []
      let done = false
      const poll = (async () => {
        while (!done) {
          for (const r of listReleases(w.store.db, undefined, { view: lane.view }).filter((x) => x.queryId === q.id))
            seen.push({ at: Date.now(), status: r.status, answer: r.answer !== null })
          await new Promise((resolve) => setTimeout(resolve, 1))
        }
      })()
      const r = await lane.run({ queryId: q.id, params: TSLM })
      const returned = Date.now()
      done = true
      await poll
      const answerAt = Date.parse(r.answeredAt!)
      // The runner's thread leaves this one free: the poll ran all along.
      expect(seen.length).toBeGreaterThan(0)
      for (const s of seen) {
        if (s.at < answerAt) expect(s).toMatchObject({ status: 'running', answer: false })
      }
      expect(returned).toBeGreaterThanOrEqual(answerAt)
      const got = getRelease(w.store.db, r.releaseId, { view: lane.view })
      expect(got.status).toBe('answered')
      expect(got.answer).toEqual(r.answer)
    })
  })

  it('a search computes as many rounds whether it stops after a few questions or uses its whole budget', () => {
    // One individual far above the rest: the posterior passes tau after a few questions. All alike: it never does.
    const rng: Rng = seededRng('padding')
    const params = { epsilon: 1, tLow: 10, tHigh: 100, oracle: 'direct' as const, top: 4, halting: { tau: 0.5, budget: 40 }, padToQueries: 40 }
    const clear = privateBinarySearch(
      Float64Array.from({ length: 200 }, (_, i) => (i === 7 ? 1000 : 5)),
      params,
      rng
    )
    const flat = privateBinarySearch(
      Float64Array.from({ length: 200 }, () => 5),
      params,
      rng
    )
    expect(clear.queries).toBeLessThan(40)
    expect(flat.queries).toBe(40)
    expect(clear.rounds).toBe(40)
    expect(flat.rounds).toBe(40)
    // The answer is the one at the stop: the padding rounds change nothing that is released.
    const unpadded = privateBinarySearch(
      Float64Array.from({ length: 200 }, (_, i) => (i === 7 ? 1000 : 5)),
      { ...params, padToQueries: 0 },
      seededRng('padding')
    )
    expect(unpadded.rounds).toBe(unpadded.queries)
    expect(clear.top).toEqual(unpadded.top)
    expect(clear.queries).toBe(unpadded.queries)
  })
})

describe('private rows are not browsable through the contract', () => {
  it('datasets/rows refuses a private dataset and pages a public one', () => {
    expect(() => datasetRows(w.store.db, w.occ, 0, 5)).toThrow('The rows of "occupancy" are private and are not shown')
    expect(datasetRows(w.store.db, w.cap, 0, 2).rows).toHaveLength(2)
  })
})

describe('review: a dataset renamed "2" could take an officer act meant for dataset 2', () => {
  it('names of digits only are refused, and digits on the command line are an id first', () => {
    expect(() => renameDataset(w.store.db, w.occ, '2')).toThrow('A dataset name cannot be only digits (it would read as a dataset id); add a letter')
    expect(lookupDataset(w.store.db, String(w.cap))?.id).toBe(w.cap)
  })
})
