/**
 * Attack: an analyst with the workspace file, without the officer's passphrase, rewrites the budget entry in force (a
 * larger amount, or a privacy unit matching tables forged to charge less), recomputing every hash after it. `ledger
 * verify` reports it (the officer's signature and checkpoint no longer match), and admission does not wait for verify:
 * it uses a budget entry only if it still carries a valid signature of a registered officer (or
 * predates officer signatures); otherwise the release is denied and nothing is spent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type Database from 'better-sqlite3'
import type { ReleaseParams } from '../../../src-main/contract/ledger'
import { entryHash } from '../../../src-main/services/chain/canonical'
import { type EntryRow, hashedFields } from '../../../src-main/services/chain/ledger-chain'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'
import { sixRoomVisits } from './six-rooms-fixture'

const PARAMS: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 4 }

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-forged-budget-')
  store = openStore(ws.db)
})
afterEach(() => {
  store.close()
  ws.cleanup()
})

const visits = () => sixRoomVisits(store.db)

/** The attacker's tool: edit one entry in place, then recompute every hash from it on (triggers dropped, head fixed). */
function rewriteEntry(db: Database.Database, seq: number, edit: (e: EntryRow) => void): void {
  for (const t of ['ledger_entries_no_update', 'ledger_head_forward_only']) db.exec(`DROP TRIGGER IF EXISTS ${t}`)
  const rows = db.prepare('SELECT * FROM ledger_entries WHERE seq >= ? ORDER BY seq').all(seq) as EntryRow[]
  let prev = rows[0].prev_hash
  db.transaction(() => {
    for (const r of rows) {
      if (r.seq === seq) edit(r)
      r.prev_hash = prev
      r.hash = entryHash(prev, hashedFields(r))
      db.prepare('UPDATE ledger_entries SET amount_nano = ?, detail = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(
        r.amount_nano,
        r.detail,
        r.prev_hash,
        r.hash,
        r.seq
      )
      prev = r.hash
    }
    db.prepare('UPDATE ledger_head SET seq = ?, hash = ? WHERE id = 1').run(rows[rows.length - 1].seq, prev)
  })()
}

const charges = () => (store.db.prepare(`SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'`).get() as { n: number }).n

describe('a budget entry rewritten with the file', () => {
  it("raised in place from 5 to 100: the release past the officer's 5 is denied, nothing spent", () => {
    const { queryId, budgetSeq } = visits()
    expect(runRelease(store.db, { queryId, params: PARAMS }).status).toBe('answered')
    // The officer's 5 leaves 1.55: the second release (3.45) is denied.
    expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(/^Denied: this release requests epsilon 3\.45388/)
    rewriteEntry(store.db, budgetSeq, (e) => (e.amount_nano = 100e9))
    const before = charges()
    expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(
      /^Denied: the budget of dataset "visits" \(ledger entry \d+\) does not carry a valid signature of a registered officer; .*Nothing was spent/
    )
    expect(charges()).toBe(before)
    expect(verifyLedger(store.db).ok).toBe(false)
  })

  it('its signed unit rewritten to match tables forged one value per person: denied, nothing spent', () => {
    const { id, queryId, budgetSeq } = visits()
    for (const t of store.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'dataset_columns'`)
      .pluck()
      .all() as string[]) {
      store.db.exec(`DROP TRIGGER "${t}"`)
    }
    store.db.prepare(`UPDATE dataset_columns SET per_person = 1 WHERE dataset_id = ? AND name = 'room'`).run(id)
    rewriteEntry(store.db, budgetSeq, (e) => {
      const d = JSON.parse(e.detail) as { unit: { person: string; perPerson: string[] } }
      d.unit.perPerson = ['room']
      e.detail = JSON.stringify(d)
    })
    const before = charges()
    expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(/does not carry a valid signature of a registered officer/)
    expect(charges()).toBe(before)
  })

  it("the officer's own budget, untouched, still admits what it allows", () => {
    const { queryId } = visits()
    expect(runRelease(store.db, { queryId, params: PARAMS }).status).toBe('answered')
    expect(verifyLedger(store.db).ok).toBe(true)
  })
})
