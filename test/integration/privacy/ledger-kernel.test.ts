/**
 * Each test the attack it stops: an analyst with write access to the workspace file (sqlite3 on it, triggers dropped)
 * and no officer passphrase forges state that nobody signed or that the chain does not cover. Admission and `ledger
 * verify` ask one trust kernel (services/trust/kernel.ts), so every forged state below
 * is denied with nothing spent, and verify fails on it.
 *
 * The dataset (six-rooms-fixture.ts): the officer's budget of 5 per person allows one release of the rooms question
 * (6 x 0.576 = 3.45), not two.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import type { ReleaseParams } from '../../../src-main/contract/ledger'
import { main } from '../../../src-main/cli'
import { auditHash } from '../../../src-main/services/chain/audit-chain'
import { entryHash } from '../../../src-main/services/chain/canonical'
import { type EntryRow, appendEntry, hashedFields } from '../../../src-main/services/chain/ledger-chain'
import { datasetRows } from '../../../src-main/services/catalog/catalog'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { runRelease, unlockExPost } from '../../../src-main/services/releases/release-service'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { checkpoint } from '../../../src-main/services/trust/officers'
import { seal } from '../../../src-main/services/trust/officer-crypto'
import { isPublicDataset } from '../../../src-main/services/trust/public-flag'
import { craftDataset } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'
import { tempWorkspace } from '../helpers'
import { sixRoomVisits } from './six-rooms-fixture'

const PARAMS: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 4 }

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-kernel-')
  store = openStore(ws.db)
})
afterEach(() => {
  store.close()
  ws.cleanup()
})

const count = (db: Database.Database, sql: string) => (db.prepare(sql).get() as { n: number }).n
const charges = (db = store.db) => count(db, `SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'`)

/** The attacker's second connection to the file (another process, as sqlite3 would be), triggers dropped. */
function attacker(): Database.Database {
  const db = new Database(ws.db)
  for (const t of db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger'`).pluck().all() as string[]) db.exec(`DROP TRIGGER "${t}"`)
  return db
}

/** Rewrites the ledger consistently: `mutate` the rows, recompute every hash, fix the head and the derived tables. */
function rechain(db: Database.Database, mutate: (rows: EntryRow[]) => EntryRow[]): void {
  const rows = mutate(db.prepare('SELECT * FROM ledger_entries ORDER BY seq').all() as EntryRow[])
  db.transaction(() => {
    db.exec('DELETE FROM ledger_entries; DELETE FROM ledger_cell_charges')
    const ins = db.prepare(
      `INSERT INTO ledger_entries (seq, at, kind, dataset_id, dataset_name, notion, amount_nano, cells, release_id, actor, description, detail, prev_hash, hash, signer, signature)
       VALUES (@seq, @at, @kind, @dataset_id, @dataset_name, @notion, @amount_nano, @cells, @release_id, @actor, @description, @detail, @prev_hash, @hash, @signer, @signature)`
    )
    const cell = db.prepare('INSERT INTO ledger_cell_charges (entry_seq, dataset_id, notion, cell, amount_nano) VALUES (?, ?, ?, ?, ?)')
    let prev = '0'.repeat(64)
    rows.forEach((r, i) => {
      r.seq = i + 1
      r.prev_hash = prev
      r.hash = entryHash(prev, hashedFields(r))
      ins.run({ signer: null, signature: null, ...r })
      if (r.kind === 'charge') for (const c of JSON.parse(r.cells) as string[]) cell.run(r.seq, r.dataset_id, r.notion, c, r.amount_nano)
      if (r.release_id !== null) db.prepare('UPDATE releases SET charge_nano = ? WHERE id = ?').run(r.amount_nano, r.release_id)
      prev = r.hash
    })
    db.prepare('UPDATE ledger_head SET seq = ?, hash = ? WHERE id = 1').run(rows.length, prev)
  })()
}

/** Rewrites the audit log consistently after `mutate` (every hash recomputed). */
function rechainAudit(db: Database.Database, mutate: (rows: Array<Record<string, unknown>>) => Array<Record<string, unknown>>): void {
  const rows = mutate(db.prepare('SELECT * FROM audit_events ORDER BY id').all() as Array<Record<string, unknown>>)
  db.transaction(() => {
    db.exec('DELETE FROM audit_events')
    let prev = '0'.repeat(64)
    for (const a of rows) {
      a.prev_hash = prev
      a.hash = auditHash(prev, a as never)
      db.prepare(
        'INSERT INTO audit_events (id, at, kind, actor, subject, detail, prev_hash, hash, signer, signature) VALUES (@id, @at, @kind, @actor, @subject, @detail, @prev_hash, @hash, @signer, @signature)'
      ).run(a)
      prev = a.hash as string
    }
  })()
}

const release = (queryId: number) => runRelease(store.db, { queryId, params: PARAMS })

describe('item 1: admission counts the hashed entries, checked from the checkpoints to the head', () => {
  it('deleting the derived cell charges does not give the budget back: denied, nothing spent; verify names it', () => {
    const { queryId } = sixRoomVisits(store.db)
    release(queryId)
    expect(() => release(queryId)).toThrow(/^Denied: this release requests epsilon .* but only/)
    const a = attacker()
    a.exec('DELETE FROM ledger_cell_charges')
    a.close()
    // Were admission to read these rows, the whole budget would come back (12 releases of 2.3 against a budget of 5).
    const before = charges()
    expect(() => release(queryId)).toThrow(/^Denied: .*cell charges of entry \d+ were changed or deleted.*Nothing was spent/)
    expect(charges()).toBe(before)
    expect(verifyLedger(store.db).message).toMatch(/the cell charges of entry \d+ were changed or deleted/)
  })

  it('charges cut to a quarter before the last checkpoint (consistently rechained) are not obeyed', () => {
    const { queryId } = sixRoomVisits(store.db)
    release(queryId)
    checkpoint(store.db, officerAct(store.db))
    const a = attacker()
    rechain(a, (rows) => rows.map((r) => (r.kind === 'charge' ? { ...r, amount_nano: Math.floor(r.amount_nano / 4) } : r)))
    a.close()
    // A fresh process (the CLI) reads the file alone: the checkpoint no longer matches the chain.
    store.close()
    store = openStore(ws.db)
    const before = charges()
    expect(() => release(queryId)).toThrow(/^Denied: the workspace's ledger does not verify .*rewritten after checkpoint.*Nothing was spent/)
    expect(charges()).toBe(before)
    expect(verifyLedger(store.db).ok).toBe(false)
  })

  it('charges cut after the last checkpoint: the process that saw them denies; a fresh reading of the file alone cannot tell', () => {
    const { queryId } = sixRoomVisits(store.db)
    release(queryId)
    expect(verifyLedger(store.db).ok).toBe(true)
    const a = attacker()
    rechain(a, (rows) => rows.map((r) => (r.kind === 'charge' ? { ...r, amount_nano: Math.floor(r.amount_nano / 4) } : r)))
    a.close()
    const before = charges()
    expect(() => release(queryId)).toThrow(/^Denied: .*rewritten or cut since this process read it.*Nothing was spent/)
    expect(charges()).toBe(before)
    expect(verifyLedger(store.db).ok).toBe(false)
    // The file alone: consistent, after the last checkpoint (receipts, ledger-receipts.test.ts, catch this).
    const other = openStore(ws.db)
    expect(verifyLedger(other.db).ok).toBe(true)
    other.close()
  })
})

describe('item 2: nothing unsigned counts once an officer exists, whatever the stored epoch says', () => {
  it('checkpoints deleted, epoch raised, an unsigned budget of 100 appended: denied; verify fails', () => {
    const { id, queryId } = sixRoomVisits(store.db)
    release(queryId)
    const a = attacker()
    a.exec('DELETE FROM ledger_checkpoints')
    a.exec('UPDATE ledger_trust_epoch SET unsigned_through_seq = 1000000')
    a.transaction(() =>
      appendEntry(a, {
        kind: 'budget',
        datasetId: id,
        datasetName: 'visits',
        notion: null,
        amountNano: 100e9,
        cells: [],
        releaseId: null,
        actor: 'Test Officer',
        description: 'more',
        detail: { unit: { person: 'person', perPerson: [] } }
      })
    )()
    a.close()
    const before = charges()
    expect(() => release(queryId)).toThrow(/^Denied: .*Nothing was spent/)
    expect(charges()).toBe(before)
    expect(verifyLedger(store.db).ok).toBe(false)
  })

  it('checkpoints deleted, epoch raised, an unsigned "public" entry: the private dataset stays private (no uncharged rows, no threshold table)', () => {
    const { id } = sixRoomVisits(store.db)
    const salaries = craftDataset(store.db, 'salaries', [{ name: 'salary', type: 'integer' }], [[100_000], [210_000], [90_000]])
    const a = attacker()
    a.exec('DELETE FROM ledger_checkpoints')
    a.exec('UPDATE ledger_trust_epoch SET unsigned_through_seq = 1000000')
    a.transaction(() =>
      appendEntry(a, {
        kind: 'public',
        datasetId: salaries,
        datasetName: 'salaries',
        notion: null,
        amountNano: 0,
        cells: [],
        releaseId: null,
        actor: 'Test Officer',
        description: 'public now',
        detail: { act: 'declare-public', columns: ['salary'] }
      })
    )()
    a.close()
    expect(isPublicDataset(store.db, salaries)).toBe(false)
    expect(() => datasetRows(store.db, salaries)).toThrow(/are private and are not shown/)
    expect(() =>
      saveQuery(store.db, id, 'over', {
        kind: 'threshold',
        groupBy: ['room'],
        count: { kind: 'persons', personColumn: 'person', cap: 1 },
        threshold: { kind: 'constant', value: 15 },
        groupsFrom: { datasetId: salaries, on: { room: 'salary' } }
      })
    ).toThrow(/not public/)
    expect(verifyLedger(store.db).ok).toBe(false)
  })
})

describe('item 3: stripping the officer', () => {
  it('no officers, checkpoints or signatures, epoch raised, budget 5 -> 100, both chains rewritten: verify fails (exit 3), releases are denied', async () => {
    const { queryId } = sixRoomVisits(store.db)
    release(queryId)
    store.close()
    const a = attacker()
    a.exec('DELETE FROM officers; DELETE FROM ledger_checkpoints; UPDATE ledger_trust_epoch SET unsigned_through_seq = 1000000')
    rechain(a, (rows) => rows.map((r) => ({ ...r, signer: null, signature: null, amount_nano: r.kind === 'budget' ? 100e9 : r.amount_nano })))
    rechainAudit(a, (rows) => rows.map((r) => ({ ...r, signer: null, signature: null })))
    a.close()
    let err = ''
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) }, cwd: ws.dir }
    // The verification failure's exit code, not 0 with "No signed checkpoint yet".
    expect(await main(['ledger', 'verify', '--db', ws.db], io as never)).toBe(3)
    expect(err).toMatch(/an officer acted in this workspace \(audit event \d+ records the registration of an officer\) but no officer is registered/)
    store = openStore(ws.db)
    const before = charges()
    expect(() => release(queryId)).toThrow(/^Denied: .*Nothing was spent/)
    expect(charges()).toBe(before)
  })
})

describe('item 4: sealed ex-post costs are bound into the chain', () => {
  it('costs resealed to the officer with a smaller value: the unlock refuses them and verify fails', () => {
    const { queryId } = sixRoomVisits(store.db)
    const r = release(queryId)
    const cred = officerAct(store.db)
    const honest = unlockExPost(store.db, { releaseId: r.releaseId, reason: 'before', ...cred })
    expect(honest.spentMax).toBeGreaterThan(1e-3)
    // Anyone holding the officers' public keys can seal a value to them.
    const o = store.db.prepare('SELECT key_id AS keyId, seal_public AS sealPublic FROM officers').all() as Array<{
      keyId: string
      sealPublic: string
    }>
    const forged = JSON.stringify(seal(JSON.stringify({ spentMax: 1e-6 }), `release:${r.releaseId}`, o))
    const a = attacker()
    a.prepare('UPDATE release_ex_post SET sealed = ? WHERE release_id = ?').run(forged, r.releaseId)
    a.close()
    expect(() => unlockExPost(store.db, { releaseId: r.releaseId, reason: 'after', ...cred })).toThrow(
      /stored costs are not opened: the sealed costs of release \d+ were changed after they were written/
    )
    expect(verifyLedger(store.db).message).toMatch(/the sealed costs of release \d+ were changed after they were written/)
  })

  it('a forged blob sealed to the officer, its binding event deleted from the audit tail, the seal epoch row raised: the unlock refuses, verify fails', () => {
    const { queryId } = sixRoomVisits(store.db)
    const r = release(queryId)
    const o = store.db.prepare('SELECT key_id AS keyId, seal_public AS sealPublic FROM officers').all() as Array<{
      keyId: string
      sealPublic: string
    }>
    const forged = JSON.stringify(seal(JSON.stringify({ spentMax: 1e-6, perPredicate: [], queries: 1 }), `release:${r.releaseId}`, o))
    const a = attacker()
    a.transaction(() => {
      a.prepare('UPDATE release_ex_post SET sealed = ? WHERE release_id = ?').run(forged, r.releaseId)
      // The binding event is after the last checkpoint: deleting it needs no rechain.
      a.prepare(`DELETE FROM audit_events WHERE kind = 'release/sealed-costs' AND subject = ?`).run(`release:${r.releaseId}`)
      a.exec('UPDATE ledger_seal_epoch SET sealed_through_release_id = 99')
    })()
    a.close()
    const cred = officerAct(store.db)
    expect(() => unlockExPost(store.db, { releaseId: r.releaseId, reason: 'audit', ...cred })).toThrow(
      /stored costs are not opened: the sealed costs of release \d+ are not bound into the audit log/
    )
    const v = verifyLedger(store.db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(/the sealed costs of release \d+ are not bound into the audit log/)
  })

  it('an answered release whose sealed costs and binding event were both deleted, seal epoch row raised: verify names it', () => {
    const { queryId } = sixRoomVisits(store.db)
    const r = release(queryId)
    const a = attacker()
    a.transaction(() => {
      a.prepare('DELETE FROM release_ex_post WHERE release_id = ?').run(r.releaseId)
      a.prepare(`DELETE FROM audit_events WHERE kind = 'release/sealed-costs' AND subject = ?`).run(`release:${r.releaseId}`)
      a.exec('UPDATE ledger_seal_epoch SET sealed_through_release_id = 99')
    })()
    a.close()
    const v = verifyLedger(store.db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(new RegExp(`release ${r.releaseId} was answered but its sealed costs and the audit event binding them are gone`))
    expect(() => release(queryId)).toThrow(/^Denied/)
  })

  it('costs written in clear for a release after officer keys: refused and reported', () => {
    const { queryId } = sixRoomVisits(store.db)
    const r = release(queryId)
    const a = attacker()
    a.prepare('DELETE FROM release_ex_post WHERE release_id = ?').run(r.releaseId)
    a.prepare('INSERT INTO release_ex_post (release_id, sealed) VALUES (?, ?)').run(r.releaseId, JSON.stringify({ spentMax: 1e-6 }))
    // ... and the binding event removed with the audit log rechained, so nothing names the blob.
    rechainAudit(a, (rows) => rows.filter((x) => x.kind !== 'release/sealed-costs'))
    a.close()
    const cred = officerAct(store.db)
    expect(() => unlockExPost(store.db, { releaseId: r.releaseId, reason: 'after', ...cred })).toThrow(/stored costs are not opened/)
    expect(verifyLedger(store.db).ok).toBe(false)
  })
})
