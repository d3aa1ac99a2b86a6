/**
 * Attack: an analyst with the workspace file, without the officer's passphrase, appends a ledger entry of
 * kind 'public' for a private dataset (the chain extended correctly, no signature, or signed by a key inserted in
 * `officers`). "Public" was read as "some 'public' entry exists", never checked against a signature at use: the dataset
 * became browsable (datasets/rows), a group list or threshold table for releases, and a sweepable workload whose
 * simulations report results against its true counts, uncharged. On a linked PostgreSQL relation (rows not in the file)
 * that last door reads private rows without a charge. `ledger verify` reports the entry, but nothing else looked.
 * A dataset is public only by a 'public' entry that is what an officer signed (the rule admission applies to budgets).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { datasetRows, getDataset } from '../../../src-main/services/catalog/catalog'
import { declarePublic } from '../../../src-main/services/datasets/declare-public'
import { isPublicDataset } from '../../../src-main/services/trust/public-flag'
import { appendEntry } from '../../../src-main/services/chain/ledger-chain'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { craftDataset } from '../ledger/fixtures'
import { tempWorkspace } from '../helpers'
import { officerAct } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-forged-public-')
  store = openStore(ws.db)
})
afterEach(() => {
  store.close()
  ws.cleanup()
})

function privateVisits(): number {
  officerAct(store.db)
  return craftDataset(
    store.db,
    'visits',
    [
      { name: 'person', type: 'text' },
      { name: 'room', type: 'text' }
    ],
    [
      ['alice', 'R1'],
      ['bob', 'R2']
    ]
  )
}

describe('a public declaration forged with the file', () => {
  it('an unsigned "public" entry appended after the officer exists does not make a private dataset public', () => {
    const id = privateVisits()
    store.db.transaction(() =>
      appendEntry(store.db, {
        kind: 'public',
        datasetId: id,
        datasetName: 'visits',
        notion: null,
        amountNano: 0,
        cells: [],
        releaseId: null,
        actor: 'Test Officer',
        description: 'public after all',
        detail: { act: 'declare-public', columns: ['person', 'room'] }
      })
    )()
    expect(verifyLedger(store.db).ok).toBe(false)
    expect(isPublicDataset(store.db, id)).toBe(false)
    expect(getDataset(store.db, id).info.public).toBe(false)
    expect(() => datasetRows(store.db, id)).toThrow(/are private and are not shown/)
  })

  it("the officer's own declaration still makes it public", () => {
    const id = privateVisits()
    declarePublic(store.db, { datasetId: id, reason: 'published list', ...officerAct(store.db) })
    expect(isPublicDataset(store.db, id)).toBe(true)
    expect(getDataset(store.db, id).info.public).toBe(true)
    expect(datasetRows(store.db, id).rows.length).toBe(2)
    expect(verifyLedger(store.db).ok).toBe(true)
  })
})
