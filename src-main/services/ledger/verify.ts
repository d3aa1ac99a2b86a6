/**
 * `ledger verify`: recompute the hash chain and check everything that refers to it.
 *
 * Detected: an edited entry (its hash no longer matches), a deleted entry (a gap in seq, or a prev_hash that does not
 * match), reordered entries (prev_hash / seq mismatch), a cut tail (the head record names a later entry), edited or
 * deleted cell charges (they no longer match the hashed cell list), a release without its charge. Not detectable from
 * the file alone: a complete rewrite of the chain by someone who also rewrites the head. Against that, keep the head
 * hash that verify prints somewhere else and pass it back (`expectHead`).
 */
import type Database from 'better-sqlite3'
import type { LedgerVerifyResult } from '../../contract/ledger'
import { GENESIS_HASH, entryHash } from './canonical'
import { type EntryRow, hashedFields } from './ledger-store'

interface Problem {
  seq: number
  reason: string
}

export function verifyLedger(db: Database.Database, expectHead?: string): LedgerVerifyResult {
  const problems: Problem[] = []
  const hashes = new Map<string, number>()
  let prevHash = GENESIS_HASH
  let expectedSeq = 1
  let count = 0
  let lastHash = GENESIS_HASH
  const entryIter = db.prepare('SELECT * FROM ledger_entries ORDER BY seq').iterate() as IterableIterator<EntryRow>
  const charges = new Map<number, EntryRow>()
  for (const e of entryIter) {
    count++
    if (e.seq !== expectedSeq) {
      problems.push({ seq: expectedSeq, reason: e.seq > expectedSeq ? `entry ${expectedSeq} is missing (deleted)` : `entry ${e.seq} is out of order` })
      // Do not report every later entry for the same cause: continue the chain from this entry.
      expectedSeq = e.seq
    }
    if (e.prev_hash !== prevHash) {
      problems.push({ seq: e.seq, reason: `entry ${e.seq} does not follow the entry before it (previous hash differs: deleted, inserted or reordered entries)` })
    }
    const recomputed = entryHash(e.prev_hash, hashedFields(e))
    if (recomputed !== e.hash) problems.push({ seq: e.seq, reason: `entry ${e.seq} was changed after it was written (its hash does not match its contents)` })
    hashes.set(e.hash, e.seq)
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
  const cellRows = db.prepare('SELECT entry_seq, dataset_id, notion, cell, amount_nano FROM ledger_cell_charges ORDER BY entry_seq, cell').all() as Array<{
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
  for (const [seq, rows] of bySeq) {
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
  if (expectHead !== undefined && expectHead !== '' && !hashes.has(expectHead.toLowerCase())) {
    problems.push({ seq: 1, reason: 'the head hash you recorded earlier is not in this ledger: it was rewritten' })
  }
  problems.sort((a, b) => a.seq - b.seq)
  const first = problems[0] ?? null
  const headHash = lastHash
  return {
    ok: first === null,
    entries: count,
    headHash,
    firstBroken: first,
    message: first
      ? `Ledger verification FAILED at entry ${first.seq}: ${first.reason}.`
      : `Ledger verified: ${count} ${count === 1 ? 'entry' : 'entries'}, hash chain intact, head ${headHash.slice(0, 16)}.`
  }
}
