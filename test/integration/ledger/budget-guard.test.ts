import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../../src-main/services/store/store'
import type { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { appendEntry } from '../../../src-main/services/chain/ledger-chain'
import { admission } from '../../../src-main/services/ledger/admission'
import { WHOLE_DATASET } from '../../../src-main/services/ledger/cells'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import type { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, craftDataset, openLedgerWorkspace } from './fixtures'
import { officerAct } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-budget-guard-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

/** A dataset with a per-unit budget of 5 and a charge of 4.835431 on the whole dataset under eps-dp. */
async function spentDataset() {
  const datasetId = craftDataset(store.db, 'rooms', [{ name: 'room', type: 'text' }], [['A'], ['B']])
  await h['budgets/set']({ datasetId, epsilon: 5, reason: 'initial budget', ...officerAct(store.db, 'olga') })
  store.db.transaction(() =>
    appendEntry(store.db, {
      kind: 'charge',
      datasetId,
      datasetName: 'rooms',
      notion: 'eps-dp',
      amountNano: 4_835_431_000,
      cells: [WHOLE_DATASET],
      releaseId: null,
      actor: 'analyst',
      description: 'a release',
      detail: {}
    })
  )()
  return datasetId
}

const entries = () => (store.db.prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n

describe('budget guard rails', () => {
  it('refuses a budget below what is already spent, in one sentence, and writes nothing', async () => {
    const datasetId = await spentDataset()
    const before = entries()
    await expect(h['budgets/set']({ datasetId, epsilon: 1, reason: 'tighten', ...officerAct(store.db, 'olga') })).rejects.toThrow(
      /^A budget of epsilon 1 is below what "rooms" has already spent per row \(epsilon 4\.83544\), and a spend cannot be undone: set at least that much, or freeze the dataset \(no further releases\) with a reason\.$/
    )
    // A notion's own cap below that notion's spend likewise.
    await expect(h['budgets/set']({ datasetId, epsilon: 4.8, notion: 'eps-dp', reason: 'tighten', ...officerAct(store.db, 'olga') })).rejects.toThrow(
      /below what "rooms" has already spent under .*epsilon 4\.83544/
    )
    expect(entries()).toBe(before)
    expect(h['ledger/summary']).toBeDefined()
    const s = (await h['ledger/summary']({ datasetId })).datasets[0]
    expect(s.budgetPerUnitExact).toBe('5')
  })

  it('accepts a budget at or above the spend', async () => {
    const datasetId = await spentDataset()
    const r = await h['budgets/set']({ datasetId, epsilon: '4.835431', reason: 'exactly the spend', ...officerAct(store.db, 'olga') })
    expect(r.entry.epsilonExact).toBe('4.835431')
    // A notion cap on an untouched notion may be 0.
    await h['budgets/set']({ datasetId, epsilon: 0, notion: 'eps-k-sensitive', reason: 'not this notion', ...officerAct(store.db, 'olga') })
  })

  it('freeze: the budget becomes exactly the spend, the reason says so, and nothing more can be charged', async () => {
    const datasetId = await spentDataset()
    const r = await h['budgets/set']({ datasetId, epsilon: 0, freeze: true, reason: 'incident under review', ...officerAct(store.db, 'olga') })
    expect(r.entry.epsilonExact).toBe('4.835431')
    expect(r.entry.description).toBe('Frozen, no further releases: incident under review')
    expect(r.account.remainingPerUnitExact).toBe('0')
    const a = admission(store.db, datasetId, 'rooms', 'eps-dp', [WHOLE_DATASET], 1)
    expect(a.allowed).toBe(false)
    expect(verifyLedger(store.db).ok).toBe(true)
    // A freeze still needs its reason.
    await expect(h['budgets/set']({ datasetId, epsilon: 0, freeze: true, reason: '', ...officerAct(store.db, 'olga') })).rejects.toThrow(
      /needs a reason/
    )
  })
})
