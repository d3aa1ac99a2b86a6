/**
 * Migration 007 on a workspace from before officer keys: its entries keep their hashes, its audit events are
 * chained, its unsigned budget stays valid (written before officer keys existed), and from then on every budget needs an
 * officer. A workspace without an officer discards ex-post costs rather than storing them in clear.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type Store, openStore } from '../../../src-main/services/store/store'
import { migrations } from '../../../src-main/services/store/migrations'
import { appendEntry } from '../../../src-main/services/chain/ledger-chain'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { runRelease, unlockExPost } from '../../../src-main/services/releases/release-service'
import { tempWorkspace } from '../helpers'
import { craftDataset } from './fixtures'
import { officerAct } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace> | undefined
let store: Store | undefined
afterEach(() => {
  store?.close()
  store = undefined
  ws?.cleanup()
  ws = undefined
})

describe('migration 007: officer keys on an older workspace', () => {
  it('keeps the old chain and its unsigned budget, chains the old audit events, and needs an officer from then on', () => {
    ws = tempWorkspace('qa-officer-migration-')
    const old = openStore(ws.db, { migrations: migrations.filter((m) => m.version <= 6) })
    const id = craftDataset(old.db, 'visits', [{ name: 'x', type: 'integer' }], [[1], [2], [3]])
    old.db.transaction(() =>
      appendEntry(old.db, {
        kind: 'budget',
        datasetId: id,
        datasetName: 'visits',
        notion: null,
        amountNano: 50e9,
        cells: [],
        releaseId: null,
        actor: 'olga',
        description: 'old budget',
        detail: {}
      })
    )()
    for (const k of ['release/denied', 'officer/unlock-ex-post']) {
      old.db
        .prepare('INSERT INTO audit_events (at, kind, actor, subject, detail) VALUES (?, ?, ?, ?, ?)')
        .run(new Date(0).toISOString(), k, 'olga', 'dataset:1', '{}')
    }
    const oldHash = (old.db.prepare('SELECT hash FROM ledger_head').get() as { hash: string }).hash
    old.close()

    store = openStore(ws.db)
    const db = store.db
    expect((db.prepare('SELECT hash FROM ledger_head').get() as { hash: string }).hash).toBe(oldHash)
    expect(db.prepare('SELECT count(*) AS n FROM audit_events WHERE hash IS NULL').get()).toEqual({ n: 0 })
    let v = verifyLedger(db)
    expect(v.ok, v.message).toBe(true)
    expect(v.message).toMatch(/No signed checkpoint yet: the entry is not yet checkpointed/)

    // Before any officer: a release's ex-post costs are discarded, never stored in clear.
    const q = saveQuery(db, id, 'odd', {
      kind: 'anomaly-identification',
      columns: ['x'],
      binWidths: [1],
      metric: 'l1',
      radius: 1,
      beta: 5,
      k: 2,
      records: [[2]]
    })
    const r = runRelease(db, { queryId: q.id, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 1 } })
    const stored = (db.prepare('SELECT sealed FROM release_ex_post WHERE release_id = ?').get(r.releaseId) as { sealed: string }).sealed
    expect(JSON.parse(stored)).toEqual({ v: 1, recipients: [], discarded: 'no privacy officer was registered to seal to' })
    // A new budget needs an officer.
    expect(() => setBudget(db, { datasetId: id, epsilon: '60', reason: 'raise it' })).toThrow(/No privacy officer is registered in this workspace/)
    setBudget(db, { datasetId: id, epsilon: '60', reason: 'raise it', ...officerAct(db, 'olga') })
    expect(() => unlockExPost(db, { releaseId: r.releaseId, reason: 'review', ...officerAct(db, 'olga') })).toThrow(
      /costs were not kept: no privacy officer was registered to seal to when it ran/
    )
    v = verifyLedger(db)
    expect(v.ok, v.message).toBe(true)
    expect(v.notCheckpointed).toEqual({ entries: 0, auditEvents: 0 })
    // The old unsigned budget is accepted only because it predates officer keys: an unsigned budget written now is not.
    db.transaction(() =>
      appendEntry(db, {
        kind: 'budget',
        datasetId: id,
        datasetName: 'visits',
        notion: null,
        amountNano: 900e9,
        cells: [],
        releaseId: null,
        actor: 'olga',
        description: 'sneaked in',
        detail: {}
      })
    )()
    v = verifyLedger(db)
    expect(v.ok).toBe(false)
    expect(v.firstBroken?.reason).toMatch(/is an officer act \(budget\) without an officer's signature/)
  })
})
