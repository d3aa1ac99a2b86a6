import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { prepareRelease } from '../../../src-main/services/releases/prepare'
import { executePrepared } from '../../../src-main/services/releases/release-service'
import { seededRng } from '../../../src-worker/engine/random'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { main } from '../../../src-main/cli'
import { tempWorkspace } from '../helpers'
import { craftDataset, saveQuery, closeLedgerWorkspace, openLedgerWorkspace } from './fixtures'
import { declarePublic } from '../../../src-main/services/datasets/declare-public'
import { officerAct } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

/** Rooms with distinctive true counts (rows per room). */
const COUNTS: Record<string, number> = { R1: 7919, R2: 8191, R3: 6151, R4: 3571 }

beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-thr-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

function setup() {
  const rows: Array<[string, string]> = []
  for (const [room, n] of Object.entries(COUNTS)) for (let i = 0; i < n; i++) rows.push([room, `p${i % 500}`])
  const ds = craftDataset(
    store.db,
    'badges',
    [
      { name: 'room', type: 'text' },
      { name: 'person', type: 'text' }
    ],
    rows
  )
  const q = (name: string, groups: string[][]) =>
    saveQuery(store.db, ds, name, {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 7000 },
      groups
    })
  return { ds, a: q('R1 R2', [['R1'], ['R2']]), b: q('R3 R4', [['R3'], ['R4']]), c: q('R2 R3', [['R2'], ['R3']]) }
}

const tslm = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.05, alpha: 10 }

describe('threshold releases', () => {
  it('charge predicate-wise: disjoint predicates cost the max, overlapping ones the sum on the shared cells', async () => {
    const { ds, a, b, c } = setup()
    await h['budgets/set']({ datasetId: ds, epsilon: '1', reason: 'test', ...officerAct(store.db, 'olga') })
    const spent = async () => (await h['ledger/summary']({ datasetId: ds })).datasets[0].accounts.find((x) => x.notion === 'predicate-wise-dp')!
    const r1 = await h['releases/run']({ queryId: a, params: tslm })
    const one = r1.epsilon // ln(10)/10 = 0.2303
    expect(Math.abs(one - Math.log(10) / 10)).toBeLessThan(2e-9)
    await h['releases/run']({ queryId: b, params: tslm })
    expect((await spent()).spentExact).toBe(r1.epsilonExact) // max, not the sum
    await h['releases/run']({ queryId: c, params: tslm })
    const acc = await spent()
    expect(acc.spent).toBeCloseTo(2 * one, 9) // R2 and R3 carry two charges each
    expect(acc.cells.find((x) => x.label === 'room = R1')!.total).toBeCloseTo(one, 9)
    expect(acc.cells.find((x) => x.label === 'room = R2')!.total).toBeCloseTo(2 * one, 9)
    // R2 and R3 now hold 2 charges of 0.2303 each; 4 fit a budget of 1 (0.921), the 5th (1.151) is denied.
    await h['releases/run']({ queryId: c, params: tslm })
    await h['releases/run']({ queryId: c, params: tslm })
    const before = (await h['ledger/entries']({})).total
    await expect(h['releases/run']({ queryId: c, params: tslm })).rejects.toThrow(
      /Denied: this release requests epsilon 0\.230259 .*only 0\.0789659 of the 1 budget.*remains for the cells it touches; the difference is 0\.151293/
    )
    expect((await h['ledger/entries']({})).total).toBe(before)
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('a cell named by an equality filter on a number overlaps the same cell named by a group-by (no under-count)', async () => {
    // Query A groups by floor (an integer column); query B groups by room with the filter floor = 3 (typed as a number).
    // The floor-3 records are in both, so their spend is the sum of the two charges.
    const rows: Array<[number, string]> = []
    for (const [floor, room, n] of [
      [2, 'A', 40],
      [3, 'B', 50],
      [3, 'C', 60]
    ] as Array<[number, string, number]>)
      for (let i = 0; i < n; i++) rows.push([floor, room])
    const ds = craftDataset(
      store.db,
      'rooms',
      [
        { name: 'floor', type: 'integer' },
        { name: 'room', type: 'text' }
      ],
      rows
    )
    const byFloor = saveQuery(store.db, ds, 'per floor', {
      kind: 'threshold',
      groupBy: ['floor'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 45 },
      groups: [[2], [3]]
    })
    const floor3Rooms = saveQuery(store.db, ds, 'floor 3 rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'rows' },
      filter: [{ column: 'floor', op: '=', value: 3 }],
      threshold: { kind: 'constant', value: 55 },
      groups: [['B'], ['C']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    const r1 = await h['releases/run']({ queryId: byFloor, params: tslm })
    await h['releases/run']({ queryId: floor3Rooms, params: tslm })
    const acc = (await h['ledger/summary']({ datasetId: ds })).datasets[0].accounts.find((x) => x.notion === 'predicate-wise-dp')!
    expect(acc.spent).toBeCloseTo(2 * r1.epsilon, 9)
  })

  it("shows each predicate's decision against its public threshold, never the true counts, and refuses a seeded generator", async () => {
    const { ds, a, b } = setup()
    await h['budgets/set']({ datasetId: ds, epsilon: '10', reason: 'test', ...officerAct(store.db, 'olga') })
    const p = prepareRelease(store.db, a, tslm)
    expect(() => executePrepared(p, seededRng(3))).toThrow(/secure generator/)
    const ra = await h['releases/run']({ queryId: a, params: { ...tslm, alpha: 1 } })
    const rb = await h['releases/run']({ queryId: b, params: { ...tslm, alpha: 1 } })
    expect(ra.answer).toMatchObject({ kind: 'threshold', predicates: 2, groupBy: ['room'] })
    // Counts 7919 and 8191 are far above 7000 (alpha 1): flagged except with negligible probability; R3, R4 far below.
    expect(ra.answer!.kind === 'threshold' && ra.answer!.flagged).toEqual([['R1'], ['R2']])
    expect(rb.answer!.kind === 'threshold' && rb.answer!.flagged).toEqual([])
    expect(ra.guarantee).toMatch(/missed with probability at most 5%/)
    // Every predicate asked, with its label, its (public) threshold and its released decision, consistent with `flagged`.
    expect(ra.answer).toMatchObject({
      decisions: [
        { key: ['R1'], label: 'room=R1', threshold: 7000, flagged: true },
        { key: ['R2'], label: 'room=R2', threshold: 7000, flagged: true }
      ],
      thresholdText: 'the constant 7000',
      countText: 'row count'
    })
    expect(rb.answer).toMatchObject({
      decisions: [
        { key: ['R3'], flagged: false },
        { key: ['R4'], flagged: false }
      ]
    })
    for (const r of [ra, rb]) {
      if (r.answer?.kind !== 'threshold') throw new Error('not a threshold answer')
      expect(r.answer.decisions!.filter((d) => d.flagged).map((d) => d.key)).toEqual(r.answer.flagged)
      for (const d of r.answer.decisions!) {
        // Public fields only: the group as the question wrote it (shown), its key, label, threshold and verdict.
        expect(Object.keys(d).sort()).toEqual(['flagged', 'key', 'label', 'shown', 'threshold'])
        expect(d.shown).toEqual(d.key)
      }
    }
    const all = JSON.stringify([ra, rb, await h['releases/list']({}), await h['ledger/entries']({}), await h['ledger/summary']({})])
    for (const n of Object.values(COUNTS)) expect(all).not.toContain(String(n))
    expect(all).not.toMatch(/"count"|noisy|perPredicate|spentMax/)
    const unlocked = await h['officer/unlock-ex-post']({ releaseId: ra.releaseId, ...officerAct(store.db, 'olga'), reason: 'audit' })
    expect(unlocked.perPredicate).toHaveLength(2)
  })

  it('releases column and reference thresholds with the decisions, and no true count reaches any output', async () => {
    const day1 = Date.UTC(2024, 2, 11, 9)
    const day2 = Date.UTC(2024, 2, 12, 9)
    // True counts on the released day (2024-03-12) are distinctive; day 1 is the reference period.
    const released: Record<string, number> = { R1: 1297, R2: 619, R3: 211 }
    const reference: Record<string, number> = { R1: 1000, R2: 3000, R3: 0 }
    const rows: Array<[string, number]> = []
    for (const [room, n] of Object.entries(released)) for (let i = 0; i < n; i++) rows.push([room, day2 + i * 1000])
    for (const [room, n] of Object.entries(reference)) for (let i = 0; i < n; i++) rows.push([room, day1 + i * 1000])
    const ds = craftDataset(
      store.db,
      'visits',
      [
        { name: 'room', type: 'text' },
        { name: 'at', type: 'timestamp' }
      ],
      rows
    )
    // R4 has a capacity but no visits: a predicate with count 0 (the predicate set is the threshold table's rows).
    const caps = craftDataset(
      store.db,
      'capacities',
      [
        { name: 'room_id', type: 'text' },
        { name: 'capacity', type: 'integer' }
      ],
      [
        ['R1', 1200],
        ['R2', 800],
        ['R3', 100],
        ['R4', 50]
      ]
    )
    declarePublic(store.db, { datasetId: caps, reason: 'capacities are posted at the doors', ...officerAct(store.db, 'olga') })
    const period = { column: 'at', from: '2024-03-12', to: '2024-03-13' }
    const byColumn = saveQuery(store.db, ds, 'over capacity', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'rows' },
      period,
      threshold: { kind: 'column', datasetId: caps, column: 'capacity', on: { room: 'room_id' } }
    })
    const byReference = saveQuery(store.db, ds, 'busier than usual', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'rows' },
      period,
      threshold: { kind: 'reference', factor: 0.5, aggregate: 'max', bucket: 'day', column: 'at', from: '2024-03-11', to: '2024-03-12' },
      groups: [['R1'], ['R2'], ['R3']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '20', reason: 'test', ...officerAct(store.db, 'olga') })
    // alpha 1, beta 0.05: Laplace scale alpha / ln(10) = 0.43; every count is at least 80 away from its threshold, so
    // a wrong decision has probability below e^(-80 / 0.43) per predicate: the expected decisions are exact.
    const params = { ...tslm, alpha: 1 }
    const rc = await h['releases/run']({ queryId: byColumn, params })
    const rr = await h['releases/run']({ queryId: byReference, params })
    expect(rc.answer).toMatchObject({
      kind: 'threshold',
      predicates: 4,
      flagged: [['R1'], ['R3']],
      thresholdText: 'column "capacity" of public dataset "capacities"',
      decisions: [
        { key: ['R1'], label: 'room=R1', threshold: 1200, flagged: true },
        { key: ['R2'], label: 'room=R2', threshold: 800, flagged: false },
        { key: ['R3'], label: 'room=R3', threshold: 100, flagged: true },
        { key: ['R4'], label: 'room=R4', threshold: 50, flagged: false }
      ]
    })
    // Reference: 0.5 x the day-1 count. Those thresholds are computed from the dataset's own counts, so their values are
    // not released (null). One person moves count and threshold together, so count - 0.5 x ref moves by at most
    // 1 x max(1, 0.5) = 1: the same charge as the column threshold's.
    expect(rr.answer).toMatchObject({
      kind: 'threshold',
      predicates: 3,
      flagged: [['R1'], ['R3']],
      thresholdText: '0.5 × the max per day of the row count from 2024-03-11 to 2024-03-12',
      decisions: [
        { key: ['R1'], threshold: null, flagged: true },
        { key: ['R2'], threshold: null, flagged: false },
        { key: ['R3'], threshold: null, flagged: true }
      ]
    })
    expect(rr.epsilon / rc.epsilon).toBeCloseTo(1, 9)
    const outputs = [
      JSON.stringify([rc, rr, await h['releases/list']({}), await h['releases/get']({ releaseId: rr.releaseId })]),
      JSON.stringify([await h['ledger/entries']({}), await h['ledger/summary']({})]),
      ...(store.db.prepare('SELECT answer FROM releases').all() as Array<{ answer: string }>).map((r) => r.answer)
    ]
    store.close()
    for (const args of [
      ['ledger', '--db', ws.db, '--json'],
      ['release', '--db', ws.db, '--query', String(byColumn), '--beta', '0.05', '--alpha', '1', '--json']
    ]) {
      let out = ''
      let err = ''
      const code = await main(args, {
        stdout: { write: (x: string) => ((out += x), true) },
        stderr: { write: (x: string) => ((err += x), true) },
        cwd: ws.dir
      } as never)
      expect(code, err).toBe(0)
      outputs.push(out + err)
    }
    const cli = JSON.parse(outputs[outputs.length - 1]) as { release: { answer: { decisions: unknown[] } } }
    expect(cli.release.answer.decisions).toHaveLength(4)
    const all = outputs.join('\n')
    // The released-day counts appear nowhere as a number (hashes and timestamps are not numbers on their own).
    for (const n of [...Object.values(released), 1000, 3000, 500, 1500]) expect(all).not.toMatch(new RegExp(`(?<![\\w.])${n}(?![\\w.])`))
    expect(all).not.toMatch(/"count"|noisy|perPredicate|spentMax/)
    store = openStore(ws.db)
  })
})
