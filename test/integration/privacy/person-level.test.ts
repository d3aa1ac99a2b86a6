/**
 * The attack: a person present in 6 rooms, one TSLM release per room count at a per-predicate epsilon of 0.576.
 * Charged as if a person moved one count (the old row-level rule), the release cost 0.576 while the person lost about
 * 6 x 0.576. Now a release on a person-level dataset charges what one person can lose: maxGroups (default: every
 * predicate) x cap x the per-predicate epsilon; the measured loss (empirical lower bound, through prepare + execute)
 * stays below that and above the old charge.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { QueryDefinition, ThresholdCount } from '../../../src-main/contract/datasets'
import type { ReleaseParams } from '../../../src-main/contract/ledger'
import { recordPrivacyUnit } from '../../../src-main/services/catalog/unit-record'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { nanoToNumber } from '../../../src-main/services/chain/nano-epsilon'
import { prepareRelease } from '../../../src-main/services/releases/prepare'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { ledgerSummary } from '../../../src-main/services/ledger/ledger-views'
import { appendEntry } from '../../../src-main/services/chain/ledger-chain'
import { officerAct } from '../officer-fixture'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { seededRng } from '../../../src-worker/engine/random'
import { craftDataset } from '../ledger/fixtures'
import { tempWorkspace } from '../helpers'
import { countEvents, epsilonLowerBoundOf, lowerBoundPower, printBound } from './dp-tester'

vi.mock('../../../src-worker/engine/random', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src-worker/engine/random')>()
  return { ...real, assertSecure: () => undefined }
})

const ALPHA = 1e-4
const ROOMS = ['R1', 'R2', 'R3', 'R4', 'R5', 'R6']
/** ln(1/(2 beta)) / alpha at beta 0.05, alpha 4: the per-predicate epsilon of the issue's release. */
const PER_PREDICATE = Math.log(10) / 4
/**
 * Runs per input, sized for power: with P, each room's count sits at c - alpha and is flagged with probability 1/2;
 * without P one below it, with probability e^-eps / 2. When all six of the person's rooms count (the first test; the
 * second's truncation ignored), the event "at least 4 rooms flagged" alone lifts the bound above 2 x 0.576 with
 * probability >= 0.999 at 3,000 runs (computed exactly below: 0.9997; 0.95 at 2,000), so either test fails on that
 * leak. A mechanism that keeps its promise stays below its charge with probability >= 1 - ALPHA at any number of runs.
 */
const RUNS = 3_000
const atLeastFourOfSix = (p: number) => [4, 5, 6].reduce((s, k) => s + [15, 6, 1][k - 4] * p ** k * (1 - p) ** (6 - k), 0)

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeAll(() => {
  ws = tempWorkspace('qa-person-')
  store = openStore(ws.db)
})
afterAll(() => {
  store.close()
  ws.cleanup()
})

/** Ten other persons in every room; with `withP`, person P visits all six rooms once. */
function personLevel(name: string, withP: boolean): number {
  const rows: Array<[string, string, string]> = []
  for (const room of ROOMS) for (let i = 0; i < 10; i++) rows.push([`other-${room}-${i}`, room, 'staff'])
  if (withP) for (const room of ROOMS) rows.push(['P', room, 'staff'])
  const id = craftDataset(
    store.db,
    name,
    [
      { name: 'person', type: 'text' },
      { name: 'room', type: 'text' },
      { name: 'role', type: 'text' }
    ],
    rows
  )
  store.db.transaction(() => recordPrivacyUnit(store.db, id, 'person', ['role']))()
  return id
}

let n = 0
function pair(count: ThresholdCount) {
  n++
  // Flagged iff count + Lap(1/eps) > c - alpha; with c - alpha = 11 (P present: 11 per room) each room sits where one
  // person more or less changes the flag probability by the full factor e^eps.
  const def: QueryDefinition = {
    kind: 'threshold',
    groupBy: ['room'],
    count,
    threshold: { kind: 'constant', value: 11 + 4 },
    groups: ROOMS.map((r) => [r])
  }
  const params: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 4 }
  const a = prepareRelease(store.db, saveQuery(store.db, personLevel(`with-P-${n}`, true), 'rooms', def).id, params)
  const b = prepareRelease(store.db, saveQuery(store.db, personLevel(`without-P-${n}`, false), 'rooms', def).id, params)
  return { a, b }
}

const flaggedAtLeast = (m: number) => (r: ReturnType<ReturnType<typeof pair>['a']['execute']>) =>
  r.answer.kind === 'threshold' && r.answer.flagged.length >= m

describe('a person present in 6 rooms (person-level dataset)', () => {
  it(`is measured over ${RUNS} runs, enough to see the six-room loss above 2 x 0.576 with probability >= 0.999`, () => {
    // The first test's three events share ALPHA, and each bound's four Clopper-Pearson intervals share its part.
    const power = lowerBoundPower(RUNS, atLeastFourOfSix(0.5), atLeastFourOfSix(Math.exp(-PER_PREDICATE) / 2), 2 * PER_PREDICATE, ALPHA / 3 / 8)
    expect(power).toBeGreaterThan(0.999)
    // The same for the second test's four events.
    expect(
      lowerBoundPower(RUNS, atLeastFourOfSix(0.5), atLeastFourOfSix(Math.exp(-PER_PREDICATE) / 2), 2 * PER_PREDICATE, ALPHA / 4 / 8)
    ).toBeGreaterThan(0.999)
    // Fewer runs would not do: at 2,000 the power is about 0.95.
    expect(
      lowerBoundPower(2_000, atLeastFourOfSix(0.5), atLeastFourOfSix(Math.exp(-PER_PREDICATE) / 2), 2 * PER_PREDICATE, ALPHA / 3 / 8)
    ).toBeLessThan(0.99)
  })

  it('refuses a row count on a person-level dataset (its sensitivity is unbounded)', () => {
    const id = personLevel('rows-refused', true)
    expect(() =>
      saveQuery(store.db, id, 'rows', {
        kind: 'threshold',
        groupBy: ['room'],
        count: { kind: 'rows' },
        threshold: { kind: 'constant', value: 3 },
        groups: [['R1']]
      })
    ).toThrow('Dataset "rows-refused" protects persons (person column "person"): count persons by "person" with a contribution cap')
  })

  it('without a bound, one release charges 6 x 0.576 on the whole dataset, and the person loses more than the old 0.576 but less than the charge', () => {
    const { a, b } = pair({ kind: 'persons', personColumn: 'person', cap: 1 })
    const charge = nanoToNumber(a.chargeNano)
    expect(charge).toBeGreaterThanOrEqual(6 * PER_PREDICATE)
    expect(charge).toBeCloseTo(6 * PER_PREDICATE, 6)
    // Rooms are not per-person columns: the cells are not disjoint for persons, so the charge is on the whole dataset.
    expect(a.cells).toEqual(['{}'])
    expect(a.guarantee).toContain('for each person (person column "person") in this release (it adds to at most 6 of the 6 groups)')
    const rng = seededRng('six-rooms')
    const eps = epsilonLowerBoundOf(
      countEvents(
        RUNS,
        () => a.execute(rng),
        () => b.execute(rng),
        [4, 5, 6].map(flaggedAtLeast)
      ),
      ALPHA
    )
    expect(eps).toBeGreaterThan(2 * PER_PREDICATE)
    printBound(expect.getState().currentTestName, eps, charge)
    expect(eps).toBeLessThan(charge)
  })

  it('with maxGroups 2 the person is truncated to two random rooms: the charge is 2 x 0.576 and the loss stays below it', () => {
    const { a, b } = pair({ kind: 'persons', personColumn: 'person', cap: 1, maxGroups: 2 })
    const charge = nanoToNumber(a.chargeNano)
    expect(charge).toBeCloseTo(2 * PER_PREDICATE, 6)
    const rng = seededRng('two-rooms')
    const eps = epsilonLowerBoundOf(
      countEvents(
        RUNS,
        () => a.execute(rng),
        () => b.execute(rng),
        [3, 4, 5, 6].map(flaggedAtLeast)
      ),
      ALPHA
    )
    printBound(expect.getState().currentTestName, eps, charge)
    expect(eps).toBeLessThan(charge)
  })

  it('grouping by a column that holds one value per person keeps per-cell charges at one group', () => {
    const id = personLevel('by-role', true)
    const q = saveQuery(store.db, id, 'by role', {
      kind: 'threshold',
      groupBy: ['role'],
      count: { kind: 'persons', personColumn: 'person', cap: 1 },
      threshold: { kind: 'constant', value: 3 },
      groups: [['staff'], ['visitor']]
    })
    const p = prepareRelease(store.db, q.id, { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 4 })
    expect(nanoToNumber(p.chargeNano)).toBeCloseTo(PER_PREDICATE, 6)
    expect(p.cells).toEqual(['{"role":"staff"}', '{"role":"visitor"}'])
  })
})

describe('(eps,k)-sensitive privacy: one neighbourhood graph per dataset', () => {
  it('the first SP release fixes the graph; an SP release on another graph is refused before any charge; eps-DP stays possible', () => {
    const id = craftDataset(
      store.db,
      'hours',
      [{ name: 'h', type: 'integer' }],
      Array.from({ length: 40 }, (_, i) => [i % 24])
    )
    setBudget(store.db, { datasetId: id, epsilon: '100', reason: 'graph test', ...officerAct(store.db, 'olga') })
    const aiq = (k: number) =>
      saveQuery(store.db, id, `k${k}`, {
        kind: 'anomaly-identification',
        columns: ['h'],
        binWidths: [1],
        metric: 'l1',
        radius: 1,
        beta: 3,
        k,
        records: [[3]]
      }).id
    const sp = { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 0.5 } as const
    const k2 = aiq(2)
    const first = runRelease(store.db, { queryId: k2, params: sp })
    const charges = () => (store.db.prepare("SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'").get() as { n: number }).n
    const before = charges()
    const k1 = aiq(1)
    expect(() => runRelease(store.db, { queryId: k1, params: sp })).toThrow(
      `This dataset's (eps,k)-sensitive privacy account is on the graph fixed by ledger entry ${first.ledgerSeq} (columns h, metric l1, radius 1, max neighbours 3, k 2, same bins)`
    )
    expect(charges()).toBe(before)
    expect(runRelease(store.db, { queryId: aiq(2), params: sp }).status).toBe('answered')
    expect(runRelease(store.db, { queryId: k1, params: { ...sp, mechanism: 'dp' } }).status).toBe('answered')
  })
})

describe("the issue's sequence: one rooms release and one hours release against a budget of 5", () => {
  it('the ledger holds what the person lost (9 x 0.576 = 5.18 > 5): the second release is denied; with a budget of 6 it is admitted and spentPerUnit covers the loss', () => {
    for (const budget of ['5', '6']) {
      const rows: Array<[string, string, number]> = []
      for (const room of ROOMS) for (const hour of [8, 9, 10]) for (let i = 0; i < 3; i++) rows.push([`o-${room}-${hour}-${i}`, room, hour])
      // P: 6 rooms, at 3 hours: in every predicate of both releases.
      ROOMS.forEach((room, i) => rows.push(['P', room, 8 + (i % 3)]))
      const id = craftDataset(
        store.db,
        `rooms-hours-${budget}`,
        [
          { name: 'person', type: 'text' },
          { name: 'room', type: 'text' },
          { name: 'hour', type: 'integer' }
        ],
        rows
      )
      store.db.transaction(() => recordPrivacyUnit(store.db, id, 'person'))()
      setBudget(store.db, { datasetId: id, epsilon: budget, reason: 'the issue sequence', ...officerAct(store.db, 'olga') })
      const count = { kind: 'persons', personColumn: 'person', cap: 1 } as const
      const params: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 4 }
      const rooms = saveQuery(store.db, id, 'rooms', {
        kind: 'threshold',
        groupBy: ['room'],
        count,
        threshold: { kind: 'constant', value: 5 },
        groups: ROOMS.map((r) => [r])
      })
      const hours = saveQuery(store.db, id, 'hours', {
        kind: 'threshold',
        groupBy: ['hour'],
        count,
        threshold: { kind: 'constant', value: 5 },
        groups: [[8], [9], [10]]
      })
      runRelease(store.db, { queryId: rooms.id, params })
      const spent = () => ledgerSummary(store.db, { datasetId: id }).datasets[0].spentPerUnit
      // P's true loss after the rooms release: 6 predicates at 0.576 each (basic composition, tight for Laplace).
      expect(spent()).toBeGreaterThanOrEqual(6 * PER_PREDICATE - 1e-9)
      if (budget === '5') {
        expect(() => runRelease(store.db, { queryId: hours.id, params })).toThrow(/^Denied: this release requests epsilon 1\.72694/)
        expect(spent()).toBeLessThanOrEqual(5)
      } else {
        runRelease(store.db, { queryId: hours.id, params })
        expect(spent()).toBeGreaterThanOrEqual(9 * PER_PREDICATE - 1e-9)
        expect(spent()).toBeLessThanOrEqual(6)
      }
    }
  })
})

describe('(eps,k)-SP graph of entries written before graphs were recorded', () => {
  it('is read from their saved query: a k = 1 release after a legacy k = 2 charge is refused', () => {
    const id = craftDataset(
      store.db,
      'legacy-hours',
      [{ name: 'h', type: 'integer' }],
      Array.from({ length: 40 }, (_, i) => [i % 24])
    )
    setBudget(store.db, { datasetId: id, epsilon: '100', reason: 'graph test', ...officerAct(store.db, 'olga') })
    const def = (k: number) =>
      ({ kind: 'anomaly-identification', columns: ['h'], binWidths: [1], metric: 'l1', radius: 1, beta: 3, k, records: [[3]] }) as const
    const old = saveQuery(store.db, id, 'old k2', def(2))
    // An older version's charge: its detail names the query, not the graph.
    store.db.transaction(() =>
      appendEntry(store.db, {
        kind: 'charge',
        datasetId: id,
        datasetName: 'legacy-hours',
        notion: 'eps-k-sensitive',
        amountNano: 5e8,
        cells: ['{}'],
        releaseId: null,
        actor: 'analyst',
        description: 'old SP release',
        detail: { queryId: old.id, kind: 'anomaly-identification', mechanism: 'sp', params: { k: 2 } }
      })
    )()
    expect(() =>
      runRelease(store.db, {
        queryId: saveQuery(store.db, id, 'k1', def(1)).id,
        params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 0.5 }
      })
    ).toThrow(
      /^This dataset's \(eps,k\)-sensitive privacy account is on the graph fixed by ledger entry \d+ \(columns h, metric l1, radius 1, max neighbours 3, k 2/
    )
  })
})
