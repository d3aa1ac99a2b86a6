/**
 * Which releases are in flight is a services context's own state: a context sees its own release as running from its
 * charge until its answer is stored, and another context (same thread, same workspace, or another workspace) never sees
 * it, so its charged row reads as interrupted there, not as its own run.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ReleaseRecord } from '../../../src-main/contract/ledger'
import type { Releases } from '../../../src-main/services/platform/handler-types'
import { STORED_VIEW, getRelease, inlineReleases } from '../../../src-main/services/releases/release-service'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { officerAct } from '../officer-fixture'
import { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, craftDataset, openLedgerWorkspace, saveQuery } from './fixtures'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof openLedgerWorkspace>['h']

beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-release-contexts-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

async function question(): Promise<number> {
  const rows: Array<[string]> = Array.from({ length: 40 }, (_, i) => [`R${i % 4}`])
  const ds = craftDataset(store.db, 'rooms', [{ name: 'room', type: 'text' }], rows)
  await h['budgets/set']({ datasetId: ds, epsilon: '100', reason: 'test budget', ...officerAct(store.db, 'olga') })
  return saveQuery(store.db, ds, 'busy rooms', {
    kind: 'threshold',
    groupBy: ['room'],
    count: { kind: 'rows' },
    threshold: { kind: 'constant', value: 5 },
    groups: [['R0'], ['R1']]
  })
}

describe('releases in flight, per services context', () => {
  it("a context sees its own release running; another context's view on the same workspace does not", async () => {
    const queryId = await question()
    const seen: Array<{ own: boolean; other: boolean; stored: boolean; otherStatus: string }> = []
    const other: Releases = inlineReleases(store.db)
    const own: Releases = inlineReleases(store.db, {
      afterCharge: (id) =>
        seen.push({
          own: own.view.running(store.db, id),
          other: other.view.running(store.db, id),
          stored: STORED_VIEW.running(store.db, id),
          otherStatus: getRelease(store.db, id, { view: other.view }).statusText
        })
    })
    const r: ReleaseRecord = await own.run({ queryId, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 5 } })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ own: true, other: false, stored: false })
    expect(seen[0].otherStatus).toMatch(/interrupted/)
    // Once answered, no context holds it.
    expect(own.view.running(store.db, r.releaseId)).toBe(false)
    expect(r.status).toBe('answered')
  })

  it("a context on another workspace never reads this workspace's release as running, even with the same release id", async () => {
    const queryId = await question()
    const ws2 = tempWorkspace('qa-release-contexts-b-')
    const store2 = openStore(ws2.db)
    try {
      const elsewhere = inlineReleases(store2.db)
      let inOther: boolean | null = null
      let inOwn: boolean | null = null
      const own = inlineReleases(store.db, {
        afterCharge: (id) => {
          inOwn = own.view.running(store.db, id)
          inOther = elsewhere.view.running(store2.db, id) || elsewhere.view.running(store.db, id)
        }
      })
      await own.run({ queryId, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 5 } })
      expect(inOwn).toBe(true)
      expect(inOther).toBe(false)
    } finally {
      closeLedgerWorkspace(store2, ws2)
    }
  })
})
