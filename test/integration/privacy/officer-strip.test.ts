/**
 * The attack: a thorough strip of the officer. From a workspace with an officer and a signed budget of 5, the file
 * writer removes the officers, checkpoints, signatures and the officer's audit events, raises the budget to 100 and
 * rewrites both chains and the trust epoch. The file alone cannot tell this from a workspace that never had an officer,
 * so `ledger verify` and `ledger` must not present the budget as an officer's: they say that no officer is registered
 * and that the acts in force are unsigned, and never print "by <officer>" for an unsigned act.
 */
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { auditHash, type AuditRow } from '../../../src-main/services/chain/audit-chain'
import { GENESIS_HASH, canonicalJson, entryHash } from '../../../src-main/services/chain/canonical'
import { type EntryRow, hashedFields } from '../../../src-main/services/chain/ledger-chain'
import { entriesText, summaryText } from '../../../src-main/services/ledger/ledger-text'
import { ledgerSummary, listEntries } from '../../../src-main/services/ledger/ledger-views'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { sealedHash } from '../../../src-main/services/trust/kernel'
import { tempWorkspace } from '../helpers'
import { sixRoomVisits } from './six-rooms-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-strip-')
  store = openStore(ws.db)
})
afterEach(() => {
  store.close()
  ws.cleanup()
})

function strip(path: string): void {
  const db = new Database(path)
  for (const t of db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger'`).pluck().all() as string[]) db.exec(`DROP TRIGGER "${t}"`)
  db.transaction(() => {
    db.exec('DELETE FROM officers; DELETE FROM ledger_checkpoints; UPDATE dataset_sources SET signer = NULL, signature = NULL')
    const discarded = canonicalJson({ v: 1, recipients: [], discarded: 'no privacy officer was registered to seal to' })
    db.prepare('UPDATE release_ex_post SET sealed = ?').run(discarded)
    const rows = db.prepare('SELECT * FROM ledger_entries ORDER BY seq').all() as EntryRow[]
    let prev = GENESIS_HASH
    for (const r of rows) {
      r.signer = null
      if (r.kind === 'budget') r.amount_nano = 100e9
      r.prev_hash = prev
      r.hash = entryHash(prev, hashedFields(r))
      prev = r.hash
      db.prepare('UPDATE ledger_entries SET amount_nano = ?, prev_hash = ?, hash = ?, signer = NULL, signature = NULL WHERE seq = ?').run(
        r.amount_nano,
        r.prev_hash,
        r.hash,
        r.seq
      )
    }
    db.prepare('UPDATE ledger_head SET seq = ?, hash = ? WHERE id = 1').run(rows[rows.length - 1].seq, prev)
    const events = db.prepare('SELECT * FROM audit_events ORDER BY id').all() as AuditRow[]
    db.exec('DELETE FROM audit_events')
    let ap = GENESIS_HASH
    let id = 0
    for (const a of events) {
      if (a.kind.startsWith('officer/')) continue
      if (a.kind === 'release/sealed-costs') a.detail = canonicalJson({ ...(JSON.parse(a.detail) as object), sha256: sealedHash(discarded) })
      const row = { ...a, id: ++id, signer: null, signature: null, prev_hash: ap }
      row.hash = auditHash(ap, row)
      ap = row.hash
      db.prepare(
        'INSERT INTO audit_events (id, at, kind, actor, subject, detail, prev_hash, hash, signer, signature) VALUES (@id, @at, @kind, @actor, @subject, @detail, @prev_hash, @hash, @signer, @signature)'
      ).run(row)
    }
    db.exec('UPDATE ledger_trust_epoch SET unsigned_through_seq = 1000000')
  })()
  db.close()
}

describe('a thorough strip of the officer', () => {
  it('verify and the ledger say no officer is registered and the budget in force is unsigned, never "by <officer>"', () => {
    const { queryId } = sixRoomVisits(store.db)
    runRelease(store.db, { queryId, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 4 } })
    store.close()
    strip(ws.db)
    store = openStore(ws.db)
    const v = verifyLedger(store.db)
    expect(v.message).toMatch(/NO OFFICER IS REGISTERED: 1 budget and public act in force is unsigned/)
    expect(v.unsignedActsInForce).toBe(1)
    const summary = summaryText(ledgerSummary(store.db, {}))
    expect(summary).toMatch(/NO OFFICER IS REGISTERED/)
    expect(summary).toMatch(/set to 100 \(unsigned, recorded as "[^"]+"\)/)
    expect(summary).not.toMatch(/set to 100 by /)
    const entries = listEntries(store.db, {})
    const text = entriesText(entries.entries, entries.total)
    expect(text).toMatch(/budget of "[^"]+" set \(unsigned, recorded as/)
    expect(text).not.toMatch(/ set by /)
  })
})
