/**
 * `ledger verify`: recompute the hash chain and check everything that refers to it.
 *
 * Detected: an edited entry (its hash no longer matches), a deleted entry (a gap in seq, or a prev_hash that does not
 * match), reordered entries (prev_hash / seq mismatch), a cut tail (the head record names a later entry), edited or
 * deleted cell charges (they no longer match the hashed cell list), a release without its charge. Issue 15: every
 * officer signature (registrations, budgets, public declarations, unlocks), the audit log's own hash chain, and every
 * signed checkpoint (the heads of both chains under an officer's signature): a rewrite before the last checkpoint, even
 * a consistent one with every hash recomputed, no longer matches what the officer signed. Not detectable from the file
 * alone: a rewrite of what came after the last checkpoint, or a rollback to an older file. Against that, keep the head
 * hash that verify prints somewhere else and pass it back (`expectHead`, any prefix of at least 16 hex digits).
 */
import type Database from 'better-sqlite3'
import type { LedgerVerifyResult } from '../../contract/ledger'
import { GENESIS_HASH, entryHash } from '../chain/canonical'
import { type EntryRow, entrySigningText, hashedFields } from '../chain/ledger-chain'
import { datasetName } from '../catalog/catalog'
import { signedUnit, unitDeclaration } from '../trust/privacy-unit'
import { type AuditRow, auditHash, auditSigningText } from '../chain/audit-chain'
import { UserError } from '../platform/errors'
import { keyIdOf, verifyText } from '../trust/officer-crypto'
import { type OfficerRow, officerRows, registrationText } from '../trust/officers'
import { checkpointText } from '../trust/checkpoints'

interface Problem {
  seq: number
  reason: string
}

/** `--head`: a head hash verify printed, or any prefix of it of at least 16 hex digits. */
export function normalizeExpectHead(expectHead: string | undefined): string | undefined {
  if (expectHead === undefined) return undefined
  const h = expectHead.trim().toLowerCase()
  if (h === '') return undefined
  if (!/^[0-9a-f]{16,64}$/.test(h)) {
    throw new UserError('The head hash must be at least 16 hexadecimal digits (0-9, a-f) of a head hash that ledger verify printed')
  }
  return h
}

export function verifyLedger(db: Database.Database, expectHead?: string): LedgerVerifyResult {
  const expect = normalizeExpectHead(expectHead)
  const problems: Problem[] = []
  const hashes = new Map<string, number>()
  let prevHash = GENESIS_HASH
  let expectedSeq = 1
  let count = 0
  let lastHash = GENESIS_HASH
  const entryIter = db.prepare('SELECT * FROM ledger_entries ORDER BY seq').iterate() as IterableIterator<EntryRow>
  const charges = new Map<number, EntryRow>()
  const entryBySeq = new Map<number, EntryRow>()
  for (const e of entryIter) {
    count++
    if (e.seq !== expectedSeq) {
      problems.push({
        seq: expectedSeq,
        reason: e.seq > expectedSeq ? `entry ${expectedSeq} is missing (deleted)` : `entry ${e.seq} is out of order`
      })
      // Do not report every later entry for the same cause: the chain continues from this entry (expectedSeq = e.seq + 1 below).
    }
    if (e.prev_hash !== prevHash) {
      problems.push({
        seq: e.seq,
        reason: `entry ${e.seq} does not follow the entry before it (previous hash differs: deleted, inserted or reordered entries)`
      })
    }
    const recomputed = entryHash(e.prev_hash, hashedFields(e))
    if (recomputed !== e.hash)
      problems.push({ seq: e.seq, reason: `entry ${e.seq} was changed after it was written (its hash does not match its contents)` })
    hashes.set(e.hash, e.seq)
    entryBySeq.set(e.seq, e)
    if (e.kind === 'charge') charges.set(e.seq, e)
    prevHash = e.hash
    lastHash = e.hash
    expectedSeq = e.seq + 1
  }
  // The head must name the last entry (a cut tail leaves the head pointing past the end).
  const head = db.prepare('SELECT seq, hash FROM ledger_head WHERE id = 1').get() as { seq: number; hash: string } | undefined
  const lastSeq = expectedSeq - 1
  if (head === undefined) {
    if (count > 0) problems.push({ seq: 1, reason: 'the ledger head record is missing' })
  } else if (head.seq !== lastSeq || head.hash !== lastHash) {
    problems.push({
      seq: Math.min(head.seq, lastSeq + 1),
      reason:
        head.seq > lastSeq
          ? `entries ${lastSeq + 1}..${head.seq} are missing (the ledger was cut short)`
          : `the ledger head names entry ${head.seq} but the ledger ends at entry ${lastSeq}`
    })
  }
  // Cell charges must be exactly the hashed cell lists.
  const cellRows = db
    .prepare('SELECT entry_seq, dataset_id, notion, cell, amount_nano FROM ledger_cell_charges ORDER BY entry_seq, cell')
    .all() as Array<{
    entry_seq: number
    dataset_id: number
    notion: string
    cell: string
    amount_nano: number
  }>
  const bySeq = new Map<number, typeof cellRows>()
  for (const r of cellRows) {
    let l = bySeq.get(r.entry_seq)
    if (!l) bySeq.set(r.entry_seq, (l = []))
    l.push(r)
  }
  for (const seq of bySeq.keys()) {
    if (!charges.has(seq)) problems.push({ seq, reason: `cell charges refer to entry ${seq}, which is not a charge in the ledger` })
  }
  for (const [seq, e] of charges) {
    const expected = JSON.parse(e.cells) as string[]
    const rows = bySeq.get(seq) ?? []
    const ok =
      rows.length === expected.length &&
      rows.every((r, i) => r.cell === expected[i] && r.amount_nano === e.amount_nano && r.dataset_id === e.dataset_id && r.notion === e.notion)
    if (!ok) problems.push({ seq, reason: `the cell charges of entry ${seq} were changed or deleted` })
  }
  // Every release has its charge, with the same amount.
  const releases = db.prepare('SELECT id, dataset_id, notion, charge_nano FROM releases ORDER BY id').all() as Array<{
    id: number
    dataset_id: number
    notion: string
    charge_nano: number
  }>
  const chargeByRelease = new Map<number, EntryRow>()
  for (const e of charges.values()) if (e.release_id !== null) chargeByRelease.set(e.release_id, e)
  for (const r of releases) {
    const e = chargeByRelease.get(r.id)
    if (!e) problems.push({ seq: lastSeq + 1, reason: `release ${r.id} has no charge in the ledger` })
    else if (e.amount_nano !== r.charge_nano || e.notion !== r.notion || e.dataset_id !== r.dataset_id) {
      problems.push({ seq: e.seq, reason: `release ${r.id} does not match its charge (entry ${e.seq})` })
    }
  }
  // Each dataset's privacy unit (person column, columns declared one value per person) must still be the one its
  // latest budget signed: the tables are plain rows, and a forged declaration would make charges smaller.
  const datasets = db
    .prepare(`SELECT DISTINCT dataset_id AS id, dataset_name AS name FROM ledger_entries WHERE kind = 'budget' AND dataset_id IS NOT NULL`)
    .all() as Array<{
    id: number
    name: string
  }>
  for (const d of datasets) {
    const signed = signedUnit(db, d.id)
    if (typeof signed !== 'object' || datasetName(db, d.id) === null) continue
    const now = unitDeclaration(db, d.id)
    if (now.person !== signed.declaration.person || now.perPerson.join('\u0000') !== signed.declaration.perPerson.join('\u0000')) {
      problems.push({
        seq: signed.seq,
        reason: `the privacy unit of dataset "${d.name}" (person column, columns with one value per person) was changed outside the app after the budget of entry ${signed.seq} signed it`
      })
    }
  }
  // A head that names no entry proves nothing by itself (a mistyped or foreign hash looks the same as a cut tail): it is
  // reported as that, never as a broken entry.
  const headNotFound = expect !== undefined && ![...hashes.keys()].some((h) => h.startsWith(expect))
  const trust = verifyTrust(db, entryBySeq, lastSeq)
  problems.push(...trust.problems)
  problems.sort((a, b) => a.seq - b.seq)
  const first = problems[0] ?? null
  const headHash = lastHash
  const cp = trust.lastCheckpoint
  const trustText = !trust.enabled
    ? ''
    : cp === null
      ? ` No signed checkpoint yet: ${count === 1 ? 'the entry is' : `all ${count} entries are`} not yet checkpointed (an officer act or "ledger checkpoint" signs the head).`
      : ` ${trust.signedActs} officer ${trust.signedActs === 1 ? 'act' : 'acts'} signed; last checkpoint at entry ${cp.ledgerSeq} by ${cp.officer} (${cp.at})` +
        (trust.notCheckpointed.entries + trust.notCheckpointed.auditEvents === 0
          ? '; nothing after it.'
          : `; not yet checkpointed: ${trust.notCheckpointed.entries} ${trust.notCheckpointed.entries === 1 ? 'entry' : 'entries'} and ${trust.notCheckpointed.auditEvents} audit ${trust.notCheckpointed.auditEvents === 1 ? 'event' : 'events'} after it.`)
  const headText = headNotFound ? headNotFoundText(expect ?? '') : ''
  return {
    ok: first === null && !headNotFound,
    entries: count,
    headHash,
    firstBroken: first,
    ...(expect === undefined ? {} : { headFound: !headNotFound }),
    message: first
      ? `Ledger verification FAILED at entry ${first.seq}: ${first.reason}.${headText ? ` ${headText}` : ''}`
      : headNotFound
        ? `${headText} The chain itself is intact: ${count} ${count === 1 ? 'entry' : 'entries'}, head ${headHash.slice(0, 16)}.${trustText}`
        : `Ledger verified: ${count} ${count === 1 ? 'entry' : 'entries'}, hash chain intact, head ${headHash.slice(0, 16)}.${trustText}`,
    signedActs: trust.signedActs,
    checkpoints: trust.checkpoints,
    lastCheckpoint: cp,
    notCheckpointed: trust.notCheckpointed,
    officers: trust.officers
  }
}

function headNotFoundText(expect: string): string {
  return (
    `The head ${expect.slice(0, 16)}… is not in this ledger: check that you copied it from this workspace's verify;` +
    ' if you did, entries after it were cut or rewritten.'
  )
}

interface TrustResult {
  enabled: boolean
  problems: Problem[]
  signedActs: number
  checkpoints: number
  lastCheckpoint: { ledgerSeq: number; auditId: number; officer: string; at: string } | null
  notCheckpointed: { entries: number; auditEvents: number }
  officers: Array<{ name: string; keyId: string }>
}

/**
 * Issue 15: officer registrations, signatures of officer acts, the audit chain and the signed checkpoints. A checkpoint
 * binds the ledger's and the audit log's heads with an officer's signature, so any rewrite of what came before it (even
 * a consistent one with every hash recomputed) no longer matches what the officer signed.
 */
function verifyTrust(db: Database.Database, entryBySeq: Map<number, EntryRow>, lastSeq: number): TrustResult {
  const result: TrustResult = {
    enabled: false,
    problems: [],
    signedActs: 0,
    checkpoints: 0,
    lastCheckpoint: null,
    notCheckpointed: { entries: lastSeq, auditEvents: 0 },
    officers: []
  }
  if (db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'officers'`).get() === undefined) return result
  result.enabled = true
  const P = (seq: number, reason: string) => result.problems.push({ seq, reason })
  // Officers: a key id that matches its keys, a registration signed by an officer registered before (the first one by
  // itself, and only the first), recorded in the audit log.
  const officers = officerRows(db)
  const byId = new Map<string, OfficerRow>()
  let selfSigned = 0
  for (const o of officers) {
    if (keyIdOf(o.sign_public, o.seal_public) !== o.key_id) P(1, `officer "${o.name}" has a key id that does not match its keys`)
    const adder = o.added_by === o.key_id ? o : byId.get(o.added_by)
    if (o.added_by === o.key_id) selfSigned++
    if (!adder) P(1, `officer "${o.name}" was added by a key that is not a registered officer`)
    else if (!verifyText(adder.sign_public, registrationText(o), o.signature))
      P(1, `the registration of officer "${o.name}" does not carry a valid officer signature`)
    byId.set(o.key_id, o)
    result.officers.push({ name: o.name, keyId: o.key_id })
  }
  if (selfSigned > 1) P(1, 'more than one officer registered itself (only the first officer may; later ones are added by a registered officer)')
  const nameOf = (keyId: string) => byId.get(keyId)?.name ?? `unknown key ${keyId.slice(0, 16)}`
  // Signed ledger entries; officer acts written after officer keys existed must be signed.
  const epoch = db.prepare('SELECT unsigned_through_seq AS seq FROM ledger_trust_epoch WHERE id = 1').get() as { seq: number } | undefined
  // Unsigned officer acts are accepted only up to the ledger's length when officer keys arrived, and never after the
  // first checkpoint (which an officer signed after that): raising the stored epoch does not admit a later unsigned act.
  const firstCheckpoint = db.prepare('SELECT min(ledger_seq) AS seq FROM ledger_checkpoints').get() as { seq: number | null }
  const unsignedThrough = Math.min(epoch?.seq ?? 0, firstCheckpoint.seq ?? Number.MAX_SAFE_INTEGER)
  if (epoch === undefined) P(1, 'the record of when officer signatures began is missing')
  for (const e of entryBySeq.values()) {
    if (e.signer) {
      const o = byId.get(e.signer)
      if (!o) P(e.seq, `entry ${e.seq} is signed by a key that is not a registered officer`)
      else if (!e.signature || !verifyText(o.sign_public, entrySigningText(e.seq, e.hash, e.signer), e.signature)) {
        P(e.seq, `entry ${e.seq} (${e.kind}) does not carry a valid signature of officer "${o.name}"`)
      } else result.signedActs++
    } else if ((e.kind === 'budget' || e.kind === 'public') && e.seq > unsignedThrough) {
      P(e.seq, `entry ${e.seq} is an officer act (${e.kind}) without an officer's signature`)
    }
  }
  // The audit chain.
  const auditBy = new Map<number, AuditRow>()
  let prev = GENESIS_HASH
  let lastAudit = 0
  const registered = new Set<string>()
  for (const a of db.prepare('SELECT * FROM audit_events ORDER BY id').iterate() as IterableIterator<AuditRow>) {
    auditBy.set(a.id, a)
    lastAudit = a.id
    if (a.hash === null) {
      P(lastSeq + 1, `audit event ${a.id} (${a.kind}) is not in the audit chain (it was inserted around the app)`)
      continue
    }
    if (a.prev_hash !== prev)
      P(lastSeq + 1, `audit event ${a.id} does not follow the event before it (audit events were deleted, inserted or reordered)`)
    if (auditHash(a.prev_hash ?? '', a) !== a.hash) P(lastSeq + 1, `audit event ${a.id} (${a.kind}) was changed after it was written`)
    if (a.signer) {
      const o = byId.get(a.signer)
      if (!o || !a.signature || !verifyText(o.sign_public, auditSigningText(a.id, a.hash, a.signer), a.signature)) {
        P(lastSeq + 1, `audit event ${a.id} (${a.kind}) does not carry a valid officer signature`)
      } else result.signedActs++
    } else if (a.kind.startsWith('officer/') && a.kind !== 'officer/declare-public') {
      // Unlocks and registrations are officer acts; older unsigned ones can only predate officer keys.
      if (officers.length > 0 && a.at >= officers[0].created_at)
        P(lastSeq + 1, `audit event ${a.id} (${a.kind}) is an officer act without an officer's signature`)
    }
    if (a.kind === 'officer/registered' && a.subject?.startsWith('officer:')) registered.add(a.subject.slice('officer:'.length))
    prev = a.hash
  }
  for (const o of officers)
    if (!registered.has(o.key_id)) P(1, `officer "${o.name}" is not recorded in the audit log (an officer added around the app)`)
  // Checkpoints: each signed by a registered officer, each still matching both chains.
  const cps = db.prepare('SELECT * FROM ledger_checkpoints ORDER BY id').all() as Array<{
    id: number
    at: string
    ledger_seq: number
    ledger_hash: string
    audit_id: number
    audit_hash: string
    signer: string
    signature: string
  }>
  let best: (typeof cps)[number] | null = null
  let prevSignature: string | null = null
  let coveredSeq = 0
  let coveredAudit = 0
  for (const c of cps) {
    const o = byId.get(c.signer)
    const text = checkpointText({
      at: c.at,
      ledgerSeq: c.ledger_seq,
      ledgerHash: c.ledger_hash,
      auditId: c.audit_id,
      auditHash: c.audit_hash,
      keyId: c.signer,
      prevSignature
    })
    prevSignature = c.signature
    if (!o || !verifyText(o.sign_public, text, c.signature)) {
      P(
        Math.max(1, c.ledger_seq),
        `checkpoint ${c.id} does not carry a valid officer signature (it was changed, or a checkpoint before it was deleted)`
      )
      continue
    }
    coveredSeq = Math.max(coveredSeq, c.ledger_seq)
    coveredAudit = Math.max(coveredAudit, c.audit_id)
    result.checkpoints++
    const who = `checkpoint ${c.id} (signed by officer "${o.name}" at ${c.at})`
    if (c.ledger_seq > 0) {
      const e = entryBySeq.get(c.ledger_seq)
      if (!e) P(c.ledger_seq, `entry ${c.ledger_seq}, covered by ${who}, is missing: the ledger was cut short`)
      else if (e.hash !== c.ledger_hash)
        P(c.ledger_seq, `the ledger up to entry ${c.ledger_seq} was rewritten after ${who}: its head no longer matches what the officer signed`)
    }
    if (c.audit_id > 0) {
      const a = auditBy.get(c.audit_id)
      if (!a) P(lastSeq + 1, `audit event ${c.audit_id}, covered by ${who}, is missing: audit events were deleted`)
      else if (a.hash !== c.audit_hash)
        P(lastSeq + 1, `the audit log up to event ${c.audit_id} was rewritten after ${who} (events deleted or changed)`)
    }
    if (best === null || c.ledger_seq > best.ledger_seq || (c.ledger_seq === best.ledger_seq && c.audit_id >= best.audit_id)) best = c
  }
  // Every officer act writes a checkpoint in its own transaction: a signed act that no checkpoint covers means the
  // checkpoints after it were deleted.
  for (const e of entryBySeq.values()) {
    if (e.signer && e.seq > coveredSeq) P(e.seq, `entry ${e.seq} is an officer act that no checkpoint covers (checkpoints were deleted)`)
  }
  for (const a of auditBy.values()) {
    if (a.signer && a.id > coveredAudit)
      P(lastSeq + 1, `audit event ${a.id} (${a.kind}) is an officer act that no checkpoint covers (checkpoints were deleted)`)
  }
  if (best !== null) {
    result.lastCheckpoint = { ledgerSeq: best.ledger_seq, auditId: best.audit_id, officer: nameOf(best.signer), at: best.at }
    result.notCheckpointed = {
      entries: Math.max(0, lastSeq - best.ledger_seq),
      auditEvents: [...auditBy.keys()].filter((id) => id > best!.audit_id).length
    }
  } else result.notCheckpointed = { entries: lastSeq, auditEvents: auditBy.size }
  void lastAudit
  return result
}
