import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { ledgerHandlers } from '../../../src-main/services/ledger/ledger-handlers'
import type { ServiceContext } from '../../../src-main/services/handler-types'
import { prepareRelease } from '../../../src-main/services/releases/prepare'
import { executePrepared } from '../../../src-main/services/releases/release-service'
import { seededRng } from '../../../src-worker/engine/random'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { tempWorkspace } from '../helpers'
import { craftDataset, saveQuery } from './fixtures'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

/** Rooms with distinctive true counts (rows per room). */
const COUNTS: Record<string, number> = { R1: 7919, R2: 8191, R3: 6151, R4: 3571 }

beforeEach(() => {
  ws = tempWorkspace('qa-thr-')
  store = openStore(ws.db)
  h = ledgerHandlers({ store } as unknown as ServiceContext)
})
afterEach(() => {
  try {
    store.close()
  } catch {
    /* closed */
  }
  ws.cleanup()
})

function setup() {
  const rows: Array<[string, string]> = []
  for (const [room, n] of Object.entries(COUNTS)) for (let i = 0; i < n; i++) rows.push([room, `p${i % 500}`])
  const ds = craftDataset(store.db, 'badges', [
    { name: 'room', type: 'text' },
    { name: 'person', type: 'text' }
  ], rows)
  const q = (name: string, groups: string[][]) =>
    saveQuery(store.db, ds, name, { kind: 'threshold', groupBy: ['room'], count: { kind: 'rows' }, threshold: { kind: 'constant', value: 7000 }, groups })
  return { ds, a: q('R1 R2', [['R1'], ['R2']]), b: q('R3 R4', [['R3'], ['R4']]), c: q('R2 R3', [['R2'], ['R3']]) }
}

const tslm = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.05, alpha: 10 }

describe('threshold releases', () => {
  it('charge predicate-wise: disjoint predicates cost the max, overlapping ones the sum on the shared cells', async () => {
    const { ds, a, b, c } = setup()
    await h['budgets/set']({ datasetId: ds, epsilon: '1', reason: 'test', officer: 'olga' })
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
    await expect(h['releases/run']({ queryId: c, params: tslm })).rejects.toThrow(/Denied: this release requests epsilon 0\.2303 .*only 0\.07896 of the 1 budget.*remains for the cells it touches; the difference is 0\.1513/)
    expect((await h['ledger/entries']({})).total).toBe(before)
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('shows flagged predicates only, never the true counts, and refuses a seeded generator', async () => {
    const { ds, a, b } = setup()
    await h['budgets/set']({ datasetId: ds, epsilon: '10', reason: 'test', officer: 'olga' })
    const p = prepareRelease(store.db, a, tslm)
    expect(() => executePrepared(p, seededRng(3))).toThrow(/secure generator/)
    const ra = await h['releases/run']({ queryId: a, params: { ...tslm, alpha: 1 } })
    const rb = await h['releases/run']({ queryId: b, params: { ...tslm, alpha: 1 } })
    expect(ra.answer).toMatchObject({ kind: 'threshold', predicates: 2, groupBy: ['room'] })
    // Counts 7919 and 8191 are far above 7000 (alpha 1): flagged except with negligible probability; R3, R4 far below.
    expect(ra.answer!.kind === 'threshold' && ra.answer!.flagged).toEqual([['R1'], ['R2']])
    expect(rb.answer!.kind === 'threshold' && rb.answer!.flagged).toEqual([])
    expect(ra.guarantee).toMatch(/missed with probability at most 5%/)
    const all = JSON.stringify([ra, rb, await h['releases/list']({}), await h['ledger/entries']({}), await h['ledger/summary']({})])
    for (const n of Object.values(COUNTS)) expect(all).not.toContain(String(n))
    const unlocked = await h['officer/unlock-ex-post']({ releaseId: ra.releaseId, officer: 'olga', reason: 'audit' })
    expect(unlocked.perPredicate).toHaveLength(2)
  })
})
