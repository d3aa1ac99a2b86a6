/**
 * A maxGroups bound over a long text group list: the bound joins the public predicates as literal rows whose text
 * values are bound parameters, and SQLite takes at most 32,766 of them in a statement. A release over more must
 * not be charged and then fail in the engine (the analyst would lose the epsilon for nothing): the count of bound
 * values depends only on the public list, so it is refused before the charge, with nothing spent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { QueryDefinition } from '../../../src-main/contract/datasets'
import type { ReleaseParams } from '../../../src-main/contract/ledger'
import { recordPrivacyUnit } from '../../../src-main/services/catalog/unit-record'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { MAX_BOUND_KEY_VALUES } from '../../../src-main/services/releases/kinds/threshold'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { officerAct } from '../officer-fixture'
import { craftDataset } from './fixtures'
import { tempWorkspace } from '../helpers'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeAll(() => {
  ws = tempWorkspace('qa-bound-params-')
  store = openStore(ws.db)
})
afterAll(() => {
  store.close()
  ws.cleanup()
})

/** Every room 0..rooms-1 visited (so that every listed group can match and is bound), each person in 3 rooms. */
function roomsDataset(name: string, rooms: number): number {
  const rows: Array<[string, string]> = []
  for (let p = 0; p * 3 < rooms + 3; p++) for (let r = 0; r < 3; r++) rows.push([`p${p}`, `room-${(3 * p + r) % rooms}`])
  const id = craftDataset(
    store.db,
    name,
    [
      { name: 'person', type: 'text' },
      { name: 'room', type: 'text' }
    ],
    rows
  )
  store.db.transaction(() => recordPrivacyUnit(store.db, id, 'person', []))()
  setBudget(store.db, { datasetId: id, epsilon: '1000', reason: 'bound parameters test', ...officerAct(store.db) })
  return id
}

const spent = () => (store.db.prepare("SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'").get() as { n: number }).n

function definition(groups: number): QueryDefinition {
  return {
    kind: 'threshold',
    groupBy: ['room'],
    count: { kind: 'persons', personColumn: 'person', cap: 1, maxGroups: 2 },
    threshold: { kind: 'constant', value: 5 },
    groups: Array.from({ length: groups }, (_, i) => [`room-${i}`])
  }
}
const params: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 2 }

describe('a maxGroups bound over more text key values than one statement can bind', () => {
  it("is refused before the charge: nothing spent, one sentence (33,000 rooms: past SQLite's 32,766 variables)", () => {
    expect(MAX_BOUND_KEY_VALUES).toBeLessThan(32_766)
    const id = roomsDataset('long-list', 33_000)
    const q = saveQuery(store.db, id, 'every room', definition(33_000)).id
    const before = spent()
    expect(() => runRelease(store.db, { queryId: q, params })).toThrow(
      /^Query "every room" bounds groups per person \(maxGroups\) over 33,000 groups with 33,000 text or decimal key values, more than one statement can compare \(30,000\); split it into smaller group lists; nothing was spent\.$/
    )
    expect(spent()).toBe(before)
  })

  it('a list within the limit is answered (the bound runs in the engine)', () => {
    const id = roomsDataset('short-list', 10)
    const q = saveQuery(store.db, id, 'ten rooms', definition(10)).id
    const before = spent()
    const r = runRelease(store.db, { queryId: q, params })
    expect(r.answer?.kind).toBe('threshold')
    expect(spent()).toBe(before + 1)
  })
})
