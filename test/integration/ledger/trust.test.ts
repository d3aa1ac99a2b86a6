/**
 * The trust rules, written as attacks: an analyst holding the workspace file (and the app)
 * but not the officer's passphrase. Each attempt is refused, or detected by `ledger verify` without an external hash.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_PASSPHRASE } from '../../../src-main/cli/commands/ledger-commands'
import { entryHash } from '../../../src-main/services/chain/canonical'
import { type EntryRow, hashedFields } from '../../../src-main/services/chain/ledger-chain'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { listOfficers, registerOfficer } from '../../../src-main/services/trust/officers'
import { createKeyPair, keyIdOf } from '../../../src-main/services/trust/officer-crypto'
import { runRelease, unlockExPost } from '../../../src-main/services/releases/release-service'
import { type Store, openStore } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'
import { runCli } from '../cli-runner'

const cli = (args: string[], cwd: string, env: Record<string, string> = {}) => runCli(args, { cwd, env })

const OFFICER = 'Privacy Officer (demo)'

/** One demo workspace, built once; each test works on a copy. */
let demoBytes: Buffer
beforeAll(async () => {
  const ws = tempWorkspace('qa-trust-demo-')
  try {
    const r = await cli(['demo', '--db', ws.db], ws.dir)
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain(`its demo passphrase is "${DEMO_PASSPHRASE}"`)
    const s = openStore(ws.db)
    s.db.pragma('wal_checkpoint(TRUNCATE)')
    s.close()
    demoBytes = readFileSync(ws.db)
  } finally {
    ws.cleanup()
  }
}, 120_000)

let cleanup: (() => void) | undefined
let store: Store | undefined
afterEach(() => {
  store?.close()
  store = undefined
  cleanup?.()
  cleanup = undefined
})

function copyOfDemo(): { dir: string; db: string } {
  const ws = tempWorkspace('qa-trust-')
  cleanup = ws.cleanup
  writeFileSync(ws.db, demoBytes)
  return ws
}

const count = (db: Database.Database, sql: string) => (db.prepare(sql).get() as { n: number }).n

/** The attacker's tool: drop the append-only triggers and rewrite the chain consistently (every hash recomputed, head fixed). */
function rewriteChain(db: Database.Database, mutate: (rows: EntryRow[]) => EntryRow[]): void {
  for (const t of [
    'ledger_entries_no_update',
    'ledger_entries_no_delete',
    'ledger_head_forward_only',
    'ledger_cell_charges_no_update',
    'ledger_cell_charges_no_delete',
    'releases_charge_fixed',
    'releases_no_delete',
    'releases_answer_once',
    'release_ex_post_no_delete'
  ]) {
    db.exec(`DROP TRIGGER IF EXISTS ${t}`)
  }
  const rows = mutate(db.prepare('SELECT * FROM ledger_entries ORDER BY seq').all() as EntryRow[])
  let prev = '0'.repeat(64)
  db.transaction(() => {
    db.exec('DELETE FROM ledger_entries')
    const ins = db.prepare(
      `INSERT INTO ledger_entries (seq, at, kind, dataset_id, dataset_name, notion, amount_nano, cells, release_id, actor, description, detail, prev_hash, hash, signer, signature)
       VALUES (@seq, @at, @kind, @dataset_id, @dataset_name, @notion, @amount_nano, @cells, @release_id, @actor, @description, @detail, @prev_hash, @hash, @signer, @signature)`
    )
    for (const r of rows) {
      r.prev_hash = prev
      r.hash = entryHash(prev, hashedFields(r))
      ins.run({ signer: null, signature: null, ...r })
      prev = r.hash
    }
    const last = rows[rows.length - 1]
    db.prepare('UPDATE ledger_head SET seq = ?, hash = ? WHERE id = 1').run(last.seq, last.hash)
  })()
}

describe('attacks: officer acts need the officer key', () => {
  it('an analyst raising a budget without the passphrase (or with a made-up officer, or a wrong passphrase) is refused: exit 2, nothing written', async () => {
    const ws = copyOfDemo()
    const before = readFileSync(ws.db)
    const noPass = await cli(
      ['budget', '--db', ws.db, '--dataset', 'occupancy', '--epsilon', '1000', '--reason', 'more please', '--officer', 'Jane Doe (Privacy Officer)'],
      ws.dir
    )
    expect(noPass.code).toBe(2)
    expect(noPass.err).toMatch(
      /officer act: give the privacy officer's passphrase with --passphrase-file F or the environment variable QUIET_ALARM_PASSPHRASE/
    )
    const madeUp = await cli(
      ['budget', '--db', ws.db, '--dataset', 'occupancy', '--epsilon', '1000', '--reason', 'more please', '--officer', 'Jane Doe (Privacy Officer)'],
      ws.dir,
      {
        QUIET_ALARM_PASSPHRASE: 'anything at all'
      }
    )
    expect(madeUp.code).toBe(2)
    expect(madeUp.err).toBe(
      'quiet-alarm: "Jane Doe (Privacy Officer)" is not a registered privacy officer of this workspace (registered: "Privacy Officer (demo)"); nothing was written\n'
    )
    const pf = join(ws.dir, 'guess.txt')
    writeFileSync(pf, 'quiet alarm demo officers\n')
    const wrong = await cli(
      ['budget', '--db', ws.db, '--dataset', 'occupancy', '--epsilon', '1000', '--reason', 'more please', '--passphrase-file', pf],
      ws.dir
    )
    expect(wrong.code).toBe(2)
    expect(wrong.err).toBe(`quiet-alarm: The passphrase of officer "${OFFICER}" is wrong; nothing was written\n`)
    expect(wrong.err).not.toContain('quiet alarm demo officers')
    // Nothing written: the file is byte for byte the same.
    expect(readFileSync(ws.db).equals(before)).toBe(true)
    // The service door refuses the same, whatever the typed name.
    store = openStore(ws.db)
    const { setBudget } = await import('../../../src-main/services/ledger/budgets')
    expect(() => setBudget(store!.db, { datasetId: 1, epsilon: '1000', reason: 'more please', officer: OFFICER })).toThrow(
      /needs the passphrase of officer/
    )
    expect(() => setBudget(store!.db, { datasetId: 1, epsilon: '1000', reason: 'more please', officer: OFFICER, passphrase: 'guess' })).toThrow(
      /is wrong/
    )
    // The officer can.
    writeFileSync(pf, `${DEMO_PASSPHRASE}\n`)
    store.close()
    store = undefined
    const ok = await cli(
      ['budget', '--db', ws.db, '--dataset', 'occupancy', '--epsilon', '12', '--reason', 'second review', '--passphrase-file', pf],
      ws.dir
    )
    expect(ok.code, ok.err).toBe(0)
    expect(ok.out).toMatch(/signed by officer Privacy Officer \(demo\)/)
  })

  it('ledger unlock with a made-up name, or without the passphrase, is refused and shows nothing', async () => {
    const ws = copyOfDemo()
    const before = readFileSync(ws.db)
    const madeUp = await cli(
      ['ledger', 'unlock', '--db', ws.db, '--release', '1', '--reason', 'curious', '--officer', 'Jane Doe (Privacy Officer)'],
      ws.dir,
      {
        QUIET_ALARM_PASSPHRASE: DEMO_PASSPHRASE
      }
    )
    expect(madeUp.code).toBe(2)
    expect(madeUp.out).toBe('')
    const none = await cli(['ledger', 'unlock', '--db', ws.db, '--release', '1', '--reason', 'curious'], ws.dir)
    expect(none.code).toBe(2)
    expect(none.out).toBe('')
    expect(readFileSync(ws.db).equals(before)).toBe(true)
    const ok = await cli(['ledger', 'unlock', '--db', ws.db, '--release', '1', '--reason', 'quarterly review', '--json'], ws.dir, {
      QUIET_ALARM_PASSPHRASE: DEMO_PASSPHRASE
    })
    expect(ok.code, ok.err).toBe(0)
    expect(JSON.parse(ok.out).exPost.spentMax).toBeGreaterThan(0)
    store = openStore(ws.db)
    const ev = store.db.prepare(`SELECT actor, signer, signature FROM audit_events WHERE kind = 'officer/unlock-ex-post'`).all() as Array<{
      actor: string
      signer: string
      signature: string
    }>
    expect(ev).toHaveLength(1)
    expect(ev[0].actor).toBe(OFFICER)
    expect(ev[0].signer).toBe(listOfficers(store.db)[0].keyId)
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('a second officer is added only by a registered officer; an officer inserted around the app is detected', async () => {
    const ws = copyOfDemo()
    store = openStore(ws.db)
    const db = store.db
    expect(() => registerOfficer(db, { name: 'Bob Second', passphrase: 'bob second passphrase' })).toThrow(/needs the passphrase of officer/)
    expect(() => registerOfficer(db, { name: 'Bob Second', passphrase: 'bob second passphrase', by: { passphrase: 'wrong guess' } })).toThrow(
      /is wrong/
    )
    expect(listOfficers(db)).toHaveLength(1)
    const bob = registerOfficer(db, {
      name: 'Bob Second',
      passphrase: 'bob second passphrase',
      by: { officer: OFFICER, passphrase: DEMO_PASSPHRASE }
    })
    expect(bob.addedByName).toBe(OFFICER)
    expect(verifyLedger(db).ok).toBe(true)
    // A release made now is sealed to both officers; Bob opens it with his own passphrase.
    const r = runRelease(db, { queryId: 2, params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 0.5 } })
    expect(
      unlockExPost(db, { releaseId: r.releaseId, reason: 'second officer', officer: 'Bob Second', passphrase: 'bob second passphrase' }).spentMax
    ).toBeGreaterThan(0)
    // The analyst inserts a self-made officer (self-signed, as the first one is): detected.
    const kp = createKeyPair('mallory mallory mallory')
    const { signText } = await import('../../../src-main/services/trust/officer-crypto')
    const { registrationText } = await import('../../../src-main/services/trust/officer-registry')
    const row = {
      key_id: keyIdOf(kp.signPublic, kp.sealPublic),
      name: 'Mallory',
      created_at: new Date().toISOString(),
      sign_public: kp.signPublic,
      seal_public: kp.sealPublic,
      added_by: '',
      wrapped: JSON.stringify(kp.wrapped),
      signature: ''
    }
    row.added_by = row.key_id
    row.signature = signText(kp.signKey, registrationText(row))
    db.prepare(
      'INSERT INTO officers (key_id, name, created_at, sign_public, seal_public, wrapped, added_by, signature) VALUES (@key_id, @name, @created_at, @sign_public, @seal_public, @wrapped, @added_by, @signature)'
    ).run(row)
    const v = verifyLedger(db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(/more than one officer registered itself|officer "Mallory" is not recorded in the audit log/)
  })
})

describe('officer init on the command line', () => {
  it("a second officer needs a registered officer's passphrase; officer list names both; a short passphrase is refused", async () => {
    const ws = copyOfDemo()
    const bobFile = join(ws.dir, 'bob.pass')
    writeFileSync(bobFile, 'bob the second officer\n')
    const alone = await cli(['officer', 'init', '--db', ws.db, '--name', 'Bob', '--passphrase-file', bobFile], ws.dir)
    expect(alone.code).toBe(2)
    expect(alone.err).toBe(
      'quiet-alarm: This is an officer act: give the passphrase of the registered officer who adds the new one with --by-passphrase-file F or the environment variable QUIET_ALARM_BY_PASSPHRASE (or run it in a terminal to be asked); nothing was written\n'
    )
    const short = await cli(['officer', 'init', '--db', ws.db, '--name', 'Bob'], ws.dir, {
      QUIET_ALARM_PASSPHRASE: 'too short',
      QUIET_ALARM_BY_PASSPHRASE: DEMO_PASSPHRASE
    })
    expect(short.code).toBe(2)
    expect(short.err).toBe("quiet-alarm: The new officer's passphrase must have at least 12 characters; nothing was written\n")
    const ok = await cli(['officer', 'init', '--db', ws.db, '--name', 'Bob', '--passphrase-file', bobFile], ws.dir, {
      QUIET_ALARM_BY_PASSPHRASE: DEMO_PASSPHRASE
    })
    expect(ok.code, ok.err).toBe(0)
    expect(ok.out).toMatch(/^Officer "Bob" registered by Privacy Officer \(demo\)\./)
    const list = JSON.parse((await cli(['officer', 'list', '--db', ws.db, '--json'], ws.dir)).out) as {
      officers: Array<{ name: string; addedByName: string }>
    }
    expect(list.officers.map((o) => [o.name, o.addedByName])).toEqual([
      [OFFICER, OFFICER],
      ['Bob', OFFICER]
    ])
    // With two officers an act names its officer.
    const which = await cli(['ledger', 'checkpoint', '--db', ws.db, '--passphrase-file', bobFile], ws.dir)
    expect(which.code).toBe(2)
    expect(which.err).toBe(`quiet-alarm: Say which officer acts (several are registered: "${OFFICER}", "Bob")\n`)
    expect((await cli(['ledger', 'checkpoint', '--db', ws.db, '--officer', 'Bob', '--passphrase-file', bobFile], ws.dir)).code).toBe(0)
    const v = await cli(['ledger', 'verify', '--db', ws.db], ws.dir)
    expect(v.code, v.err).toBe(0)
    expect(v.out).toMatch(/last checkpoint at entry \d+ by Bob/)
  })
})

describe('the doors carry the passphrase and keep none of it', () => {
  it('through the services (as the HTTP API and the desktop call them): refused without the passphrase, signed with it; the passphrase is nowhere in the file', async () => {
    const ws = copyOfDemo()
    const { createServices } = await import('../../../src-main/services')
    const svc = createServices({ mode: 'headless', dbPath: ws.db, poolSize: 1 })
    try {
      expect(await svc.dispatch('officer/list', {})).toMatchObject({ ok: true, value: [{ name: OFFICER }] })
      const refused = await svc.dispatch('budgets/set', {
        datasetId: 1,
        epsilon: '1000',
        reason: 'more please',
        officer: 'Jane Doe (Privacy Officer)'
      })
      expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } })
      expect(await svc.dispatch('officer/unlock-ex-post', { releaseId: 1, reason: 'curious', passphrase: 'guess' })).toMatchObject({
        ok: false,
        error: { message: `The passphrase of officer "${OFFICER}" is wrong; nothing was written` }
      })
      expect(await svc.dispatch('ledger/checkpoint', {})).toMatchObject({ ok: false, error: { code: 'forbidden' } })
      const set = await svc.dispatch('budgets/set', { datasetId: 1, epsilon: '11', reason: 'reviewed', passphrase: DEMO_PASSPHRASE })
      expect(set).toMatchObject({ ok: true, value: { entry: { actor: OFFICER, epsilonExact: '11' } } })
      expect(await svc.dispatch('ledger/checkpoint', { passphrase: DEMO_PASSPHRASE })).toMatchObject({ ok: true, value: { officer: OFFICER } })
      expect(await svc.dispatch('ledger/verify', {})).toMatchObject({
        ok: true,
        value: { ok: true, notCheckpointed: { entries: 0, auditEvents: 0 } }
      })
    } finally {
      await svc.close()
    }
    const s = openStore(ws.db)
    s.db.pragma('wal_checkpoint(TRUNCATE)')
    s.close()
    const bytes = readFileSync(ws.db)
    expect(bytes.includes(Buffer.from(DEMO_PASSPHRASE))).toBe(false)
    expect(bytes.includes(Buffer.from('guess'))).toBe(false)
  })
})

describe('attacks: sealed means encrypted', () => {
  it('SELECT sealed FROM release_ex_post holds ciphertext only; the officer opens it', async () => {
    const ws = copyOfDemo()
    store = openStore(ws.db)
    const db = store.db
    const rows = db.prepare('SELECT release_id, sealed FROM release_ex_post ORDER BY release_id').all() as Array<{
      release_id: number
      sealed: string
    }>
    expect(rows.length).toBeGreaterThanOrEqual(2)
    const keyId = listOfficers(db)[0].keyId
    let checked = 0
    for (const r of rows) {
      const s = JSON.parse(r.sealed) as Record<string, unknown>
      expect(Object.keys(s).sort()).toEqual(['data', 'iv', 'recipients', 'tag', 'v'])
      expect((s.recipients as Array<{ keyId: string }>).map((x) => x.keyId)).toEqual([keyId])
      expect(r.sealed).not.toMatch(/spentMax|perPredicate|queries|predicate|epsilon/)
      const opened = unlockExPost(db, { releaseId: r.release_id, reason: 'test of the sealing', passphrase: DEMO_PASSPHRASE })
      // None of the opened decimal numbers appears in the stored text (base64 has no '.', and the JSON field names are gone).
      const decimals = [opened.spentMax, ...(opened.perPredicate ?? []).map((p) => p.epsilon)].filter((n) => !Number.isInteger(n))
      checked += decimals.length
      for (const n of decimals) expect(r.sealed).not.toContain(String(n))
      if (opened.queries !== undefined) expect(r.sealed).not.toContain(`"queries":${opened.queries}`)
    }
    expect(checked).toBeGreaterThan(0)
    // And the whole file: no ex-post field name in clear anywhere.
    db.pragma('wal_checkpoint(TRUNCATE)')
    const bytes = readFileSync(ws.db).toString('latin1')
    expect(bytes).not.toContain('"spentMax"')
    expect(bytes).not.toContain('"perPredicate"')
    expect(() => unlockExPost(db, { releaseId: 999, reason: 'no such release', passphrase: DEMO_PASSPHRASE })).toThrow(/no release with id 999/)
  })
})

describe('attacks: consistent rewrites before a checkpoint are detected by verify alone', () => {
  const checkpointed = async () => {
    const ws = copyOfDemo()
    store = openStore(ws.db)
    const v = verifyLedger(store.db)
    expect(v.ok).toBe(true)
    expect(v.lastCheckpoint?.ledgerSeq).toBe(v.entries)
    expect(v.notCheckpointed).toEqual({ entries: 0, auditEvents: 0 })
    return store.db
  }

  it('halving every charge after the last signed act (cell charges and releases rewritten to match, every hash recomputed, head fixed)', async () => {
    const db = await checkpointed()
    // Charges after the last signed entry: no entry signature covers their rewrite, so only the checkpoint can tell.
    const signed = (db.prepare('SELECT MAX(seq) AS s FROM ledger_entries WHERE signature IS NOT NULL').get() as { s: number | null }).s ?? 0
    const halved = db.prepare(`SELECT seq, release_id FROM ledger_entries WHERE kind = 'charge' AND seq > ?`).all(signed) as Array<{
      seq: number
      release_id: number | null
    }>
    expect(halved.length).toBeGreaterThan(0)
    const seqs = new Set(halved.map((h) => h.seq))
    rewriteChain(db, (rows) => rows.map((r) => (seqs.has(r.seq) ? { ...r, amount_nano: Math.floor(r.amount_nano / 2) } : r)))
    db.prepare('UPDATE ledger_cell_charges SET amount_nano = amount_nano / 2 WHERE entry_seq > ?').run(signed)
    for (const h of halved) if (h.release_id !== null) db.prepare('UPDATE releases SET charge_nano = charge_nano / 2 WHERE id = ?').run(h.release_id)
    const v = verifyLedger(db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(/the ledger up to entry \d+ was rewritten after checkpoint \d+ \(signed by officer "Privacy Officer \(demo\)"/)
    // Without the checkpoints the rewrite is consistent: the chain itself verifies.
    expect(v.message).not.toMatch(/its hash does not match|does not follow/)
  })

  it('raising a budget in place', async () => {
    const db = await checkpointed()
    rewriteChain(db, (rows) => rows.map((r) => (r.kind === 'budget' && r.seq === 1 ? { ...r, amount_nano: 1000e9 } : r)))
    const v = verifyLedger(db)
    expect(v.ok).toBe(false)
    expect(v.firstBroken?.seq).toBe(1)
    expect(v.firstBroken?.reason).toBe('entry 1 (budget) does not carry a valid signature of officer "Privacy Officer (demo)"')
  })

  it('raising a budget by removing its signature (posing as an entry older than officer keys)', async () => {
    const db = await checkpointed()
    rewriteChain(db, (rows) =>
      rows.map((r) => (r.kind === 'budget' && r.seq === 1 ? { ...r, amount_nano: 1000e9, signer: null, signature: null } : r))
    )
    const v = verifyLedger(db)
    expect(v.ok).toBe(false)
    expect(v.firstBroken?.reason).toBe("entry 1 is an officer act (budget) without an officer's signature")
  })

  it('an unsigned budget appended after the last checkpoint, with the trust epoch raised to admit it', async () => {
    const db = await checkpointed()
    const { appendEntry } = await import('../../../src-main/services/chain/ledger-chain')
    db.exec('DROP TRIGGER ledger_trust_epoch_fixed')
    db.exec('UPDATE ledger_trust_epoch SET unsigned_through_seq = 1000000')
    db.transaction(() =>
      appendEntry(db, {
        kind: 'budget',
        datasetId: 1,
        datasetName: 'occupancy',
        notion: null,
        amountNano: 1000e9,
        cells: [],
        releaseId: null,
        actor: OFFICER,
        description: 'more',
        detail: {}
      })
    )()
    const v = verifyLedger(db)
    expect(v.ok).toBe(false)
    expect(v.firstBroken?.reason).toMatch(/is an officer act \(budget\) without an officer's signature/)
  })

  it('cutting the tail (entries, releases and sealed costs deleted, head fixed)', async () => {
    const db = await checkpointed()
    const n = count(db, 'SELECT count(*) AS n FROM ledger_entries')
    const lastRelease = count(db, 'SELECT max(release_id) AS n FROM ledger_entries')
    rewriteChain(db, (rows) => rows.slice(0, n - 1))
    db.prepare('DELETE FROM ledger_cell_charges WHERE entry_seq >= ?').run(n)
    db.prepare('DELETE FROM release_ex_post WHERE release_id = ?').run(lastRelease)
    db.prepare('DELETE FROM releases WHERE id = ?').run(lastRelease)
    const v = verifyLedger(db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(
      new RegExp(
        `entry ${n}, covered by checkpoint \\d+ \\(signed by officer "Privacy Officer \\(demo\\)" at .*\\), is missing: the ledger was cut short`
      )
    )
  })

  it('deleting the checkpoints, all of them or one before the last, before rewriting', async () => {
    const db = await checkpointed()
    db.exec('DROP TRIGGER ledger_checkpoints_no_delete')
    const ids = (db.prepare('SELECT id FROM ledger_checkpoints ORDER BY id').all() as Array<{ id: number }>).map((r) => r.id)
    expect(ids.length).toBeGreaterThanOrEqual(3)
    db.prepare('DELETE FROM ledger_checkpoints WHERE id = ?').run(ids[1])
    let v = verifyLedger(db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(
      new RegExp(`checkpoint ${ids[2]} does not carry a valid officer signature \\(it was changed, or a checkpoint before it was deleted\\)`)
    )
    db.exec('DELETE FROM ledger_checkpoints')
    rewriteChain(db, (rows) => rows.map((r) => (r.kind === 'charge' ? { ...r, amount_nano: Math.floor(r.amount_nano / 2) } : r)))
    v = verifyLedger(db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(/is an officer act that no checkpoint covers \(checkpoints were deleted\)|does not carry a valid signature of officer/)
  })

  it('deleting audit events (denials, an unlock)', async () => {
    const db = await checkpointed()
    // Denials and an unlock, then a checkpoint covering them.
    for (let i = 0; i < 3; i++)
      expect(() => runRelease(db, { queryId: 2, params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 1000 } })).toThrow(/Denied/)
    unlockExPost(db, { releaseId: 1, reason: 'review', passphrase: DEMO_PASSPHRASE })
    expect(verifyLedger(db).ok).toBe(true)
    const before = count(db, `SELECT count(*) AS n FROM audit_events WHERE kind = 'release/denied'`)
    expect(before).toBe(3)
    db.exec('DROP TRIGGER audit_events_no_delete')
    db.exec(`DELETE FROM audit_events WHERE kind = 'release/denied'`)
    let v = verifyLedger(db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(/audit event \d+ does not follow the event before it \(audit events were deleted, inserted or reordered\)/)
    // Deleting the unlock too, and re-chaining the rest consistently, still breaks what the checkpoint signed.
    db.exec(`DELETE FROM audit_events WHERE kind = 'officer/unlock-ex-post'`)
    db.exec('DROP TRIGGER audit_events_no_update')
    const { auditHash } = await import('../../../src-main/services/chain/audit-chain')
    let prev = '0'.repeat(64)
    for (const a of db.prepare('SELECT * FROM audit_events ORDER BY id').all() as Array<
      Parameters<typeof auditHash>[1] & { id: number; hash: string }
    >) {
      const h = auditHash(prev, a)
      db.prepare('UPDATE audit_events SET prev_hash = ?, hash = ? WHERE id = ?').run(prev, h, a.id)
      prev = h
    }
    v = verifyLedger(db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(
      /audit event \d+, covered by checkpoint \d+ .*is missing: audit events were deleted|the audit log up to event \d+ was rewritten after checkpoint/
    )
  })

  it('after the last checkpoint: reported as not yet checkpointed; a rewrite there needs the head kept elsewhere (any 16-hex prefix)', async () => {
    const db = await checkpointed()
    const kept = verifyLedger(db).headHash
    runRelease(db, { queryId: 2, params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 0.5 } })
    expect(() => runRelease(db, { queryId: 2, params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 1000 } })).toThrow(/Denied/)
    let v = verifyLedger(db)
    expect(v.ok).toBe(true)
    // The release's entry; its sealed costs' binding event and the denial in the audit log.
    expect(v.notCheckpointed).toEqual({ entries: 1, auditEvents: 2 })
    expect(v.message).toMatch(/not yet checkpointed: 1 entry and 2 audit events after it\./)
    // The kept head (16 hex digits, as verify prints it) still names an entry of this ledger.
    expect(verifyLedger(db, kept.slice(0, 16)).ok).toBe(true)
    expect(() => verifyLedger(db, kept.slice(0, 15))).toThrow(/at least 16 hexadecimal digits/)
    const keptAfter = v.headHash
    // Rewriting the uncheckpointed tail (halving the new charge) is not detected from the file alone...
    const n = v.entries
    rewriteChain(db, (rows) => rows.map((r) => (r.seq === n ? { ...r, amount_nano: Math.floor(r.amount_nano / 2) } : r)))
    db.prepare('UPDATE ledger_cell_charges SET amount_nano = amount_nano / 2 WHERE entry_seq = ?').run(n)
    db.prepare('UPDATE releases SET charge_nano = charge_nano / 2 WHERE id = (SELECT release_id FROM ledger_entries WHERE seq = ?)').run(n)
    // (This process read the head before: it notices. Another process, reading the file alone, cannot.)
    expect(verifyLedger(db).message).toMatch(/rewritten or cut since this process read it/)
    const path = store!.path
    store!.close()
    store = openStore(path)
    v = verifyLedger(store.db)
    expect(v.ok).toBe(true)
    // ... but with the head kept elsewhere after the charge was written (its first 16 hex digits suffice) it is.
    expect(verifyLedger(store.db, kept).ok).toBe(true)
    const withHead = verifyLedger(store.db, keptAfter.slice(0, 16))
    expect(withHead.ok).toBe(false)
    expect(withHead.headFound).toBe(false)
    expect(withHead.firstBroken).toBeNull()
    expect(withHead.message).toMatch(
      /^The head [0-9a-f]{16}… is not in this ledger: check that you copied it .* if you did, entries after it were cut or rewritten\./
    )
  })

  it('a mistyped head is reported as not in this ledger, never as a broken entry (no false tamper alarm)', async () => {
    const db = await checkpointed()
    const head = verifyLedger(db).headHash
    const typo = (head[0] === 'a' ? 'b' : 'a') + head.slice(1, 20)
    const v = verifyLedger(db, typo)
    expect(v.ok).toBe(false)
    expect(v.headFound).toBe(false)
    expect(v.firstBroken).toBeNull()
    expect(v.message).not.toMatch(/FAILED|rewritten at|broken/i)
    expect(v.message).toMatch(/is not in this ledger: check that you copied it/)
    expect(v.message).toMatch(/The chain itself is intact: \d+ entries/)
    expect(verifyLedger(db, head)).toMatchObject({ ok: true, headFound: true })
    expect(verifyLedger(db).headFound).toBeUndefined()
  })
})
