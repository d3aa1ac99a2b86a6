/**
 * `npm run vectors:ledger`: writes the ledger test vectors (test/fixtures/ledger-vectors/*.json) from workspaces the
 * product builds: the demo, and a richer one (two officers, a notion cap, more releases, a denial, an unlock, a
 * checkpoint with a receipt, a charge after the last checkpoint). Each vector is one of them as it is (positive) or
 * changed as a file writer would change it (negative), with the verdict `ledger verify` gives. Before writing a vector
 * the script checks that `ledger verify` gives the same verdict on the workspace rebuilt from the vector's records
 * (vector-workspace.ts) and the verdict the tamper is meant to have; any difference stops it.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import { main } from '../../src-main/cli'
import { DEMO_PASSPHRASE } from '../../src-main/cli/commands/ledger-commands'
import type { LedgerReceipt } from '../../src-main/contract/ledger'
import { auditHash } from '../../src-main/services/chain/audit-chain'
import { canonicalJson, entryHash } from '../../src-main/services/chain/canonical'
import { type EntryRow, hashedFields } from '../../src-main/services/chain/ledger-chain'
import { unitSpend } from '../../src-main/services/ledger/accounts'
import { setBudget } from '../../src-main/services/ledger/budgets'
import { readLedgerRecords } from '../../src-main/services/ledger/ledger-records'
import { verifyLedger } from '../../src-main/services/ledger/verify'
import { isUserError } from '../../src-main/services/platform/errors'
import { runRelease, unlockExPost } from '../../src-main/services/releases/release-service'
import { openStore } from '../../src-main/services/store/store'
import { inspectWorkspace } from '../../src-main/services/trust/kernel'
import { createKeyPair, signText } from '../../src-main/services/trust/officer-crypto'
import { registrationText } from '../../src-main/services/trust/officer-registry'
import { checkpoint, registerOfficer, unlockOfficer } from '../../src-main/services/trust/officers'
import { receiptText } from '../../src-main/services/trust/receipts'
import { checkpointText } from '../../src-main/services/trust/checkpoint-text'
import { type LedgerVector, type VectorVerdict, dropLedgerTriggers, workspaceOfVector } from './vector-workspace'

export const VECTOR_DIR = join(__dirname, '..', 'fixtures', 'ledger-vectors')

const OFFICER_A = 'Privacy Officer (demo)'
const OFFICER_B = 'Zoë Ødegård (second officer)'
const PASS_B = 'second officer passphrase (test vectors only)'

type Db = Database.Database

export interface Bases {
  demo: Buffer
  rich: Buffer
  /** The rich workspace before its later releases and its receipt (an older copy of the file). */
  early: Buffer
  receipt: LedgerReceipt
}

async function cliDemo(path: string, cwd: string): Promise<void> {
  let err = ''
  const io = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) }, cwd }
  const code = await main(['demo', '--db', path, '--without-stream'], io as never)
  if (code !== 0) throw new Error(`demo failed: ${err}`)
}

function bytesOf(path: string): Buffer {
  const s = openStore(path)
  s.db.pragma('wal_checkpoint(TRUNCATE)')
  s.close()
  return readFileSync(path)
}

export async function buildBases(dir: string): Promise<Bases> {
  const demoPath = join(dir, 'demo.sqlite')
  await cliDemo(demoPath, dir)
  const demo = bytesOf(demoPath)
  const richPath = join(dir, 'rich.sqlite')
  writeFileSync(richPath, demo)
  let s = openStore(richPath)
  const a = { officer: OFFICER_A, passphrase: DEMO_PASSPHRASE }
  const b = { officer: OFFICER_B, passphrase: PASS_B }
  registerOfficer(s.db, { name: OFFICER_B, passphrase: PASS_B, by: a })
  // A notion cap, with a reason a JSON library may escape (non-ASCII) and a decimal it may print otherwise.
  setBudget(s.db, { datasetId: 1, notion: 'eps-k-sensitive', epsilon: '6.5', reason: 'Überprüfung „k-sensitive“: cap 6.5 (0.00001 margin)', ...b })
  s.close()
  const early = bytesOf(richPath)
  s = openStore(richPath)
  runRelease(s.db, { queryId: 1, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 2 }, actor: 'analyst' })
  try {
    runRelease(s.db, { queryId: 3, params: { kind: 'anomaly-search' }, actor: 'analyst' })
    throw new Error('the second anomaly search was meant to be denied')
  } catch (e) {
    if (!isUserError(e)) throw e
  }
  unlockExPost(s.db, { releaseId: 1, reason: 'officer review (vectors)', ...a })
  const receipt = checkpoint(s.db, b).receipt
  runRelease(s.db, { queryId: 2, params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 0.5 }, actor: 'analyst' })
  s.close()
  return { demo, rich: bytesOf(richPath), early, receipt }
}

// ---------------------------------------------------------------------------------------------------------------
// A file writer's tools

const entries = (db: Db) => db.prepare('SELECT * FROM ledger_entries ORDER BY seq').all() as EntryRow[]
const lastSeq = (db: Db) => (db.prepare('SELECT max(seq) AS n FROM ledger_entries').get() as { n: number }).n

/** Rewrite the whole chain from the mutated rows: every hash recomputed, the head moved, signatures kept as they are. */
function rewriteChain(db: Db, mutate: (rows: EntryRow[]) => EntryRow[]): void {
  const rows = mutate(entries(db))
  let prev = '0'.repeat(64)
  db.exec('DELETE FROM ledger_entries; DELETE FROM ledger_cell_charges')
  const ins = db.prepare(
    `INSERT INTO ledger_entries (seq, at, kind, dataset_id, dataset_name, notion, amount_nano, cells, release_id, actor, description, detail, prev_hash, hash, signer, signature)
     VALUES (@seq, @at, @kind, @dataset_id, @dataset_name, @notion, @amount_nano, @cells, @release_id, @actor, @description, @detail, @prev_hash, @hash, @signer, @signature)`
  )
  const cell = db.prepare('INSERT INTO ledger_cell_charges (entry_seq, dataset_id, notion, cell, amount_nano) VALUES (?, ?, ?, ?, ?)')
  for (const r of rows) {
    r.prev_hash = prev
    r.hash = entryHash(prev, hashedFields(r))
    ins.run({ signer: null, signature: null, ...r })
    if (r.kind === 'charge') for (const c of JSON.parse(r.cells) as string[]) cell.run(r.seq, r.dataset_id, r.notion, c, r.amount_nano)
    prev = r.hash
  }
  const last = rows[rows.length - 1]
  db.prepare('UPDATE ledger_head SET seq = ?, hash = ? WHERE id = 1').run(last.seq, last.hash)
}

/** Halve a charge (its release row too, as a consistent writer would), the chain rewritten. */
function halveCharge(db: Db, seq: number): void {
  rewriteChain(db, (rows) =>
    rows.map((r) => {
      if (r.seq !== seq) return r
      const amount = Math.floor(r.amount_nano / 2)
      db.prepare('UPDATE releases SET charge_nano = ? WHERE id = ?').run(amount, r.release_id)
      return { ...r, amount_nano: amount }
    })
  )
}

interface AuditRowAll {
  id: number
  at: string
  kind: string
  actor: string
  subject: string | null
  detail: string
  prev_hash: string | null
  hash: string | null
  signer: string | null
  signature: string | null
}
const auditRows = (db: Db) => db.prepare('SELECT * FROM audit_events ORDER BY id').all() as AuditRowAll[]
const auditHead = (db: Db) =>
  db.prepare('SELECT id, hash FROM audit_events WHERE hash IS NOT NULL ORDER BY id DESC LIMIT 1').get() as { id: number; hash: string }

/** Append an audit event with its hash computed (a writer who knows the formula). */
function appendAuditEvent(db: Db, ev: { kind: string; actor: string; subject: string | null; detail: Record<string, unknown> }): void {
  const head = auditHead(db)
  const row: AuditRowAll = {
    id: head.id + 1,
    at: new Date().toISOString(),
    kind: ev.kind,
    actor: ev.actor,
    subject: ev.subject,
    detail: canonicalJson(ev.detail),
    prev_hash: head.hash,
    hash: null,
    signer: null,
    signature: null
  }
  row.hash = auditHash(head.hash, row)
  db.prepare(
    'INSERT INTO audit_events (id, at, kind, actor, subject, detail, prev_hash, hash, signer, signature) VALUES (@id, @at, @kind, @actor, @subject, @detail, @prev_hash, @hash, @signer, @signature)'
  ).run(row)
}

/** Append an unsigned budget entry of 1000 epsilon, hashed and with the head moved. */
function appendUnsignedBudget(db: Db): void {
  const head = db.prepare('SELECT seq, hash FROM ledger_head WHERE id = 1').get() as { seq: number; hash: string }
  const first = entries(db).find((e) => e.kind === 'budget' && e.dataset_id === 1 && e.notion === null)!
  const row: EntryRow = {
    ...first,
    seq: head.seq + 1,
    at: new Date().toISOString(),
    amount_nano: 1000 * 1e9,
    description: 'more, please',
    prev_hash: head.hash,
    hash: '',
    signer: null,
    signature: null
  }
  row.hash = entryHash(head.hash, hashedFields(row))
  db.prepare(
    `INSERT INTO ledger_entries (seq, at, kind, dataset_id, dataset_name, notion, amount_nano, cells, release_id, actor, description, detail, prev_hash, hash, signer, signature)
     VALUES (@seq, @at, @kind, @dataset_id, @dataset_name, @notion, @amount_nano, @cells, @release_id, @actor, @description, @detail, @prev_hash, @hash, @signer, @signature)`
  ).run(row)
  db.prepare('UPDATE ledger_head SET seq = ?, hash = ? WHERE id = 1').run(row.seq, row.hash)
}

/** A base64 signature with one bit of its first byte flipped. */
function flipped(signature: string): string {
  const b = Buffer.from(signature, 'base64')
  b[0] ^= 1
  return b.toString('base64')
}

const officerId = (db: Db, name: string) => (db.prepare('SELECT key_id FROM officers WHERE name = ?').get(name) as { key_id: string }).key_id
const signedEntrySeq = (db: Db, signerName: string) =>
  (
    db.prepare(`SELECT seq FROM ledger_entries WHERE signer = ? AND kind = 'budget' ORDER BY seq DESC LIMIT 1`).get(officerId(db, signerName)) as {
      seq: number
    }
  ).seq
const eventId = (db: Db, kind: string) =>
  (db.prepare('SELECT id FROM audit_events WHERE kind = ? ORDER BY id LIMIT 1').get(kind) as { id: number }).id

/** A new officer row (keys made here) signed by `signer`, or by itself. */
function insertOfficer(db: Db, name: string, signer: ((text: string) => string) | null, addedBy: string | null): void {
  const kp = createKeyPair('a third officer passphrase')
  const row = {
    key_id: kp.keyId,
    name,
    created_at: new Date().toISOString(),
    sign_public: kp.signPublic,
    seal_public: kp.sealPublic,
    wrapped: JSON.stringify(kp.wrapped),
    added_by: addedBy ?? kp.keyId,
    signature: ''
  }
  row.signature = signer === null ? signText(kp.signKey, registrationText(row)) : signer(registrationText(row))
  db.prepare(
    'INSERT INTO officers (key_id, name, created_at, sign_public, seal_public, wrapped, added_by, signature) VALUES (@key_id, @name, @created_at, @sign_public, @seal_public, @wrapped, @added_by, @signature)'
  ).run(row)
}

// ---------------------------------------------------------------------------------------------------------------
// The vectors

type Receipt = 'none' | 'rich' | 'forged' | 'foreign'

interface Tamper {
  name: string
  rules: string[]
  description: string
  base: 'demo' | 'rich' | 'early'
  receipt?: Receipt
  /** The verdict intended: ok, or the position of the first problem ('end': after the last entry), or 'refused'. */
  expect: true | number | 'end' | 'refused'
  mutate?: (db: Db) => void
}

export const TAMPERS: Tamper[] = [
  {
    name: 'demo-intact',
    rules: ['C1', 'C2', 'C3', 'C4', 'C5', 'R3', 'S2', 'S4', 'K1', 'K2', 'K3'],
    description: 'the demo workspace as written',
    base: 'demo',
    expect: true
  },
  {
    name: 'rich-intact',
    rules: ['C1', 'C2', 'C3', 'C4', 'C5', 'R3', 'R6', 'S1', 'S2', 'S4', 'K1', 'K2', 'K3', 'K4'],
    description: 'two officers, a notion cap with a non-ASCII reason, four charges (one after the last checkpoint), a denial, an unlock',
    base: 'rich',
    expect: true
  },
  {
    name: 'rich-receipt-intact',
    rules: ['Q1', 'Q2', 'Q3'],
    description: 'the rich workspace checked against the receipt its officer kept',
    base: 'rich',
    receipt: 'rich',
    expect: true
  },
  {
    name: 'tail-rewritten-after-last-checkpoint',
    rules: ['K4'],
    description:
      'the charge after the last checkpoint halved, chain and head rewritten: not detectable from the file alone (nor against the receipt, which ends before it)',
    base: 'rich',
    receipt: 'rich',
    expect: true,
    mutate: (db) => halveCharge(db, lastSeq(db))
  },
  {
    name: 'edited-charge',
    rules: ['C3'],
    description: 'a charge halved in place (its hash not recomputed)',
    base: 'rich',
    expect: 8,
    mutate: (db) => {
      db.prepare('UPDATE ledger_entries SET amount_nano = amount_nano / 2 WHERE seq = 8').run()
      db.prepare('UPDATE ledger_cell_charges SET amount_nano = amount_nano / 2 WHERE entry_seq = 8').run()
      db.prepare('UPDATE releases SET charge_nano = charge_nano / 2 WHERE id = (SELECT release_id FROM ledger_entries WHERE seq = 8)').run()
    }
  },
  {
    name: 'halved-charge-rehashed',
    rules: ['C3', 'S2', 'K2'],
    description: 'a checkpointed charge halved with every later hash recomputed and the head moved; checkpoints left as signed',
    base: 'rich',
    expect: 6,
    mutate: (db) => halveCharge(db, 5)
  },
  {
    name: 'halved-charge-rehashed-checkpoint-heads-rewritten',
    rules: ['K1'],
    description: "the same, and every checkpoint's stored ledger head rewritten to the new hashes (their signatures no longer hold)",
    base: 'rich',
    expect: 6,
    mutate: (db) => {
      halveCharge(db, 5)
      const hashAt = db.prepare('SELECT hash FROM ledger_entries WHERE seq = ?').pluck()
      for (const c of db.prepare('SELECT id, ledger_seq FROM ledger_checkpoints WHERE ledger_seq > 0').all() as Array<{
        id: number
        ledger_seq: number
      }>)
        db.prepare('UPDATE ledger_checkpoints SET ledger_hash = ? WHERE id = ?').run(hashAt.get(c.ledger_seq), c.id)
    }
  },
  {
    name: 'reordered-entries',
    rules: ['C2', 'C3'],
    description: 'entries 4 and 5 exchange their places (seq), hashes kept',
    base: 'rich',
    expect: 4,
    mutate: (db) => {
      db.exec(
        'UPDATE ledger_entries SET seq = -4 WHERE seq = 4; UPDATE ledger_entries SET seq = 4 WHERE seq = 5; UPDATE ledger_entries SET seq = 5 WHERE seq = -4'
      )
      db.exec(
        'UPDATE ledger_cell_charges SET entry_seq = -4 WHERE entry_seq = 4; UPDATE ledger_cell_charges SET entry_seq = 4 WHERE entry_seq = 5; UPDATE ledger_cell_charges SET entry_seq = 5 WHERE entry_seq = -4'
      )
    }
  },
  {
    name: 'dropped-entry',
    rules: ['C1', 'C2'],
    description: 'entry 5 deleted',
    base: 'rich',
    expect: 5,
    mutate: (db) => {
      db.exec('DELETE FROM ledger_entries WHERE seq = 5; DELETE FROM ledger_cell_charges WHERE entry_seq = 5')
      db.exec('DELETE FROM release_ex_post WHERE release_id = 2; DELETE FROM releases WHERE id = 2')
    }
  },
  {
    name: 'cut-tail',
    rules: ['C4'],
    description: 'the last entry deleted, the head record left naming it',
    base: 'rich',
    expect: 9,
    mutate: (db) => {
      const seq = lastSeq(db)
      const rel = db.prepare('SELECT release_id FROM ledger_entries WHERE seq = ?').pluck().get(seq) as number
      db.prepare('DELETE FROM ledger_entries WHERE seq = ?').run(seq)
      db.prepare('DELETE FROM ledger_cell_charges WHERE entry_seq = ?').run(seq)
      db.prepare('DELETE FROM releases WHERE id = ?').run(rel)
    }
  },
  {
    name: 'head-edited',
    rules: ['C4'],
    description: "the head record's hash changed",
    base: 'rich',
    expect: 9,
    mutate: (db) => db.exec(`UPDATE ledger_head SET hash = '${'ab'.repeat(32)}' WHERE id = 1`)
  },
  {
    name: 'forged-entry-signature',
    rules: ['S2'],
    description: "one bit of the second officer's budget signature flipped",
    base: 'rich',
    expect: 7,
    mutate: (db) => {
      const seq = signedEntrySeq(db, OFFICER_B)
      const sig = db.prepare('SELECT signature FROM ledger_entries WHERE seq = ?').pluck().get(seq) as string
      db.prepare('UPDATE ledger_entries SET signature = ? WHERE seq = ?').run(flipped(sig), seq)
    }
  },
  {
    name: 'wrong-key-id',
    rules: ['S2', 'K2'],
    description: "the second officer's budget made to name the first officer's key id, chain rewritten",
    base: 'rich',
    expect: 7,
    mutate: (db) => {
      const seq = signedEntrySeq(db, OFFICER_B)
      const a = officerId(db, OFFICER_A)
      rewriteChain(db, (rows) => rows.map((r) => (r.seq === seq ? { ...r, signer: a } : r)))
    }
  },
  {
    name: 'signer-changed-in-place',
    rules: ['C3'],
    description: "the budget's signer changed without recomputing its hash (signer is hashed on signed entries)",
    base: 'rich',
    expect: 7,
    mutate: (db) => {
      const seq = signedEntrySeq(db, OFFICER_B)
      db.prepare('UPDATE ledger_entries SET signer = ? WHERE seq = ?').run(officerId(db, OFFICER_A), seq)
    }
  },
  {
    name: 'unsigned-officer-act',
    rules: ['S3'],
    description: 'an unsigned budget of 1000 appended, hashed and with the head moved',
    base: 'rich',
    expect: 10,
    mutate: appendUnsignedBudget
  },
  {
    name: 'signature-stripped',
    rules: ['S3'],
    description: "the second officer's budget with signer and signature removed, chain rewritten",
    base: 'rich',
    expect: 7,
    mutate: (db) => {
      const seq = signedEntrySeq(db, OFFICER_B)
      rewriteChain(db, (rows) => rows.map((r) => (r.seq === seq ? { ...r, signer: null, signature: null } : r)))
    }
  },
  {
    name: 'trust-epoch-raised',
    rules: ['S1', 'S3'],
    description: 'the trust epoch raised to 1000 and an unsigned budget appended: the epoch in force is capped by the first checkpoint',
    base: 'rich',
    expect: 10,
    mutate: (db) => {
      db.exec('UPDATE ledger_trust_epoch SET unsigned_through_seq = 1000')
      appendUnsignedBudget(db)
    }
  },
  {
    name: 'trust-epoch-missing',
    rules: ['S1'],
    description: 'the trust epoch record deleted',
    base: 'rich',
    expect: 1,
    mutate: (db) => db.exec('DELETE FROM ledger_trust_epoch')
  },
  {
    name: 'edited-audit-event',
    rules: ['C5'],
    description: "the denial's audit event edited (its hash not recomputed)",
    base: 'rich',
    expect: 'end',
    mutate: (db) => {
      const id = eventId(db, 'release/denied')
      const d = JSON.parse(db.prepare('SELECT detail FROM audit_events WHERE id = ?').pluck().get(id) as string) as Record<string, unknown>
      db.prepare('UPDATE audit_events SET detail = ? WHERE id = ?').run(canonicalJson({ ...d, note: 'nothing was asked' }), id)
    }
  },
  {
    name: 'deleted-audit-event',
    rules: ['C5'],
    description: "the denial's audit event deleted",
    base: 'rich',
    expect: 'end',
    mutate: (db) => db.prepare('DELETE FROM audit_events WHERE id = ?').run(eventId(db, 'release/denied'))
  },
  {
    name: 'audit-chain-rewritten',
    rules: ['C5', 'S4', 'K2'],
    description: "the denial's audit event deleted and every later event re-hashed (ids renumbered): checkpoints and signatures no longer hold",
    base: 'rich',
    expect: 'end',
    mutate: (db) => {
      const gone = eventId(db, 'release/denied')
      const rows = auditRows(db).filter((a) => a.id !== gone)
      db.exec('DELETE FROM audit_events')
      let prev = '0'.repeat(64)
      const ins = db.prepare(
        'INSERT INTO audit_events (id, at, kind, actor, subject, detail, prev_hash, hash, signer, signature) VALUES (@id, @at, @kind, @actor, @subject, @detail, @prev_hash, @hash, @signer, @signature)'
      )
      rows.forEach((a, i) => {
        const r = { ...a, id: i + 1, prev_hash: prev }
        r.hash = auditHash(prev, r)
        ins.run(r)
        prev = r.hash
      })
    }
  },
  {
    name: 'audit-event-outside-chain',
    rules: ['C5'],
    description: 'an audit event inserted without a hash',
    base: 'rich',
    expect: 'end',
    mutate: (db) =>
      db
        .prepare(`INSERT INTO audit_events (id, at, kind, actor, subject, detail) VALUES (?, ?, 'budget/set', 'someone', 'dataset:1', '{}')`)
        .run(auditHead(db).id + 1, new Date().toISOString())
  },
  {
    name: 'forged-audit-signature',
    rules: ['S4'],
    description: "one bit of the unlock event's signature flipped",
    base: 'rich',
    expect: 'end',
    mutate: (db) => {
      const id = eventId(db, 'officer/unlock-ex-post')
      const sig = db.prepare('SELECT signature FROM audit_events WHERE id = ?').pluck().get(id) as string
      db.prepare('UPDATE audit_events SET signature = ? WHERE id = ?').run(flipped(sig), id)
    }
  },
  {
    name: 'unsigned-officer-event',
    rules: ['S5'],
    description: 'an unlock event appended without a signature (hashed into the chain)',
    base: 'rich',
    expect: 'end',
    mutate: (db) =>
      appendAuditEvent(db, { kind: 'officer/unlock-ex-post', actor: OFFICER_A, subject: 'release:2', detail: { found: true, reason: 'curious' } })
  },
  {
    name: 'registration-changed',
    rules: ['R3'],
    description: "the second officer's name changed in the registry",
    base: 'rich',
    expect: 1,
    mutate: (db) => db.prepare('UPDATE officers SET name = ? WHERE name = ?').run('Mallory', OFFICER_B)
  },
  {
    name: 'key-id-mismatch',
    rules: ['R1'],
    description: "the second officer's sealing key replaced by the first officer's",
    base: 'rich',
    expect: 1,
    mutate: (db) =>
      db.prepare('UPDATE officers SET seal_public = (SELECT seal_public FROM officers WHERE name = ?) WHERE name = ?').run(OFFICER_A, OFFICER_B)
  },
  {
    name: 'second-self-registration',
    rules: ['R2', 'R6'],
    description: 'a third officer that registered itself',
    base: 'rich',
    expect: 1,
    mutate: (db) => insertOfficer(db, 'Self-made Officer', null, null)
  },
  {
    name: 'officer-added-around-the-app',
    rules: ['R6'],
    description: 'a third officer added with a valid signature of the first officer, but no registration event',
    base: 'rich',
    expect: 1,
    mutate: (db) => {
      const a = unlockOfficer(db, { officer: OFFICER_A, passphrase: DEMO_PASSPHRASE })
      insertOfficer(db, 'Quiet Officer', (t) => a.sign(t), a.keyId)
    }
  },
  {
    name: 'registry-stripped',
    rules: ['R7'],
    description: 'every officer deleted from the registry',
    base: 'rich',
    expect: 1,
    mutate: (db) => db.exec('DELETE FROM officers')
  },
  {
    name: 'checkpoint-edited',
    rules: ['K1'],
    description: "a middle checkpoint's audit head changed",
    base: 'rich',
    expect: 3,
    mutate: (db) => db.exec(`UPDATE ledger_checkpoints SET audit_hash = '${'cd'.repeat(32)}' WHERE ledger_seq = 3`)
  },
  {
    name: 'checkpoint-deleted',
    rules: ['K1'],
    description: 'a middle checkpoint deleted: the next one signed its signature',
    base: 'rich',
    expect: 3,
    mutate: (db) => db.exec('DELETE FROM ledger_checkpoints WHERE ledger_seq = 2')
  },
  {
    name: 'last-checkpoints-deleted',
    rules: ['K3'],
    description: 'the last two checkpoints deleted: the unlock (a signed event) is covered by none',
    base: 'rich',
    expect: 'end',
    mutate: (db) => db.exec('DELETE FROM ledger_checkpoints WHERE id IN (SELECT id FROM ledger_checkpoints ORDER BY id DESC LIMIT 2)')
  },
  {
    name: 'checkpoint-by-unregistered-key',
    rules: ['K1'],
    description: 'a checkpoint of the current heads appended, signed by a key that is not a registered officer',
    base: 'rich',
    expect: 9,
    mutate: (db) => {
      const kp = createKeyPair('an outsider passphrase')
      const lh = db.prepare('SELECT seq, hash FROM ledger_head WHERE id = 1').get() as { seq: number; hash: string }
      const ah = auditHead(db)
      const prev = db.prepare('SELECT signature FROM ledger_checkpoints ORDER BY id DESC LIMIT 1').pluck().get() as string
      const c = {
        at: new Date().toISOString(),
        ledgerSeq: lh.seq,
        ledgerHash: lh.hash,
        auditId: ah.id,
        auditHash: ah.hash,
        keyId: kp.keyId,
        prevSignature: prev
      }
      db.prepare(
        'INSERT INTO ledger_checkpoints (at, ledger_seq, ledger_hash, audit_id, audit_hash, signer, signature) VALUES (?, ?, ?, ?, ?, ?, ?)'
      ).run(c.at, c.ledgerSeq, c.ledgerHash, c.auditId, c.auditHash, c.keyId, signText(kp.signKey, checkpointText(c)))
    }
  },
  {
    name: 'forged-receipt',
    rules: ['Q1'],
    description: "the receipt's ledger head changed: the receipt is refused",
    base: 'rich',
    receipt: 'forged',
    expect: 'refused'
  },
  {
    name: 'foreign-receipt',
    rules: ['Q2'],
    description: 'a receipt of the same heads signed by a key that is not an officer of the workspace',
    base: 'rich',
    receipt: 'foreign',
    expect: 1
  },
  {
    name: 'rollback-against-receipt',
    rules: ['Q3'],
    description: "an older copy of the workspace (before the receipt's entries) checked against the receipt",
    base: 'early',
    receipt: 'rich',
    expect: 8
  }
]

function receiptFor(kind: Receipt, bases: Bases): LedgerReceipt | undefined {
  const r = bases.receipt
  if (kind === 'none') return undefined
  if (kind === 'rich') return r
  if (kind === 'forged') return { ...r, ledgerHash: createHash('sha256').update('another head').digest('hex') }
  const kp = createKeyPair('a foreign officer passphrase')
  const officer = { name: r.officer.name, keyId: kp.keyId, signPublic: kp.signPublic, sealPublic: kp.sealPublic }
  return { ...r, officer, signature: signText(kp.signKey, receiptText(r, kp.keyId)) }
}

function verdictOf(db: Db, receipt: LedgerReceipt | undefined): VectorVerdict {
  try {
    const v = verifyLedger(db, undefined, receipt)
    return { ok: v.ok, firstBrokenSeq: v.firstBroken?.seq ?? null }
  } catch (e) {
    if (isUserError(e) && receipt !== undefined) return { ok: 'refused', firstBrokenSeq: null }
    throw e
  }
}

function spendOf(db: Db): LedgerVector['spend'] {
  const f = inspectWorkspace(db, { fresh: true })
  const ids = db.prepare('SELECT id FROM datasets ORDER BY id').pluck().all() as number[]
  return ids.map((id) => {
    const s = unitSpend(db, id, f)
    return { datasetId: id, spentPerUnitNano: s.spentNano, byNotion: s.byNotion }
  })
}

/** The vector of one tamper: the workspace changed, judged, read as records, and judged again rebuilt from them. */
export function makeVector(t: Tamper, bases: Bases, dir: string): LedgerVector {
  const path = join(dir, `${t.name}.sqlite`)
  writeFileSync(path, bases[t.base])
  const store = openStore(path)
  let vector: LedgerVector
  try {
    const db = store.db
    if (t.mutate) {
      dropLedgerTriggers(db)
      db.pragma('foreign_keys = OFF')
      db.transaction(() => t.mutate!(db))()
    }
    const receipt = receiptFor(t.receipt ?? 'none', bases)
    const expected = verdictOf(db, receipt)
    const wrapped = Object.fromEntries(
      (db.prepare('SELECT key_id, wrapped FROM officers').all() as Array<{ key_id: string; wrapped: string }>).map((o) => [o.key_id, o.wrapped])
    )
    const sealedCosts = db.prepare('SELECT release_id AS releaseId, sealed FROM release_ex_post ORDER BY release_id').all() as Array<{
      releaseId: number
      sealed: string
    }>
    vector = {
      v: 1,
      name: t.name,
      rules: t.rules,
      description: t.description,
      expected,
      ...(receipt === undefined ? {} : { receipt }),
      records: readLedgerRecords(db),
      spend: spendOf(db),
      workspace: { wrapped, sealedCosts }
    }
  } finally {
    store.close()
  }
  const intended: VectorVerdict =
    t.expect === true
      ? { ok: true, firstBrokenSeq: null }
      : t.expect === 'refused'
        ? { ok: 'refused', firstBrokenSeq: null }
        : { ok: false, firstBrokenSeq: t.expect === 'end' ? vector.records.entries.length + 1 : t.expect }
  if (JSON.stringify(vector.expected) !== JSON.stringify(intended))
    throw new Error(
      `vector ${t.name}: ledger verify says ${JSON.stringify(vector.expected)}, the tamper was meant to give ${JSON.stringify(intended)}`
    )
  const rebuilt = workspaceOfVector(join(dir, `${t.name}-rebuilt.sqlite`), vector)
  try {
    const again = verdictOf(rebuilt.db, vector.receipt)
    if (JSON.stringify(again) !== JSON.stringify(vector.expected))
      throw new Error(
        `vector ${t.name}: rebuilt from its records, ledger verify says ${JSON.stringify(again)}, not ${JSON.stringify(vector.expected)}`
      )
  } finally {
    rebuilt.close()
  }
  return vector
}

export async function writeVectors(only?: string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'qa-vectors-'))
  try {
    const bases = await buildBases(dir)
    mkdirSync(VECTOR_DIR, { recursive: true })
    if (only === undefined) for (const f of readdirSync(VECTOR_DIR)) if (f.endsWith('.json')) rmSync(join(VECTOR_DIR, f))
    const written: string[] = []
    for (const t of TAMPERS) {
      if (only !== undefined && !only.includes(t.name)) continue
      const v = makeVector(t, bases, dir)
      writeFileSync(join(VECTOR_DIR, `${t.name}.json`), JSON.stringify(v, null, 1) + '\n')
      written.push(t.name)
    }
    return written
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1]?.endsWith('ledger-vectors.ts')) {
  const only = process.argv.slice(2)
  writeVectors(only.length > 0 ? only : undefined).then(
    (names) => process.stdout.write(`${names.length} vectors written to ${VECTOR_DIR}\n`),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
      process.exitCode = 1
    }
  )
}
