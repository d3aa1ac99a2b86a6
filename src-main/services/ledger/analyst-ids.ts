/**
 * The ids an analyst account of the service reads (ALGORITHMS.md section 5, "Analysts of one service": ids reveal
 * nothing of others' activity). Release ids and ledger sequence numbers are global counters: the gap between two of
 * one's own tells how many releases others made in between, and an entry's hash chains every entry before it. So an
 * analyst reads, in their place:
 * - a release's id as its ordinal among their own releases (1, 2, 3, ...), and asks for it by that number;
 * - a ledger entry's `seq` (and a release's `ledgerSeq`, a budget change's `seq`) as its ordinal among the entries they
 *   may read (their own charges and the officer's acts that concern every analyst or them: ledger-views.ts
 *   `visibleToAccount`), which another analyst's releases never add to;
 * - no hashes (`hash`, `prevHash`, the summary's `headHash` are empty): the officer and `ledger verify` keep them.
 * The officer, the custodian and the workbench read the stored ids.
 */
import type Database from 'better-sqlite3'
import type { LedgerEntry, LedgerSummary, ReleaseRecord } from '../../contract/ledger'
import { UserError } from '../platform/errors'
import { VISIBLE_TO_ACCOUNT } from './ledger-views'

type Db = Database.Database

export interface AnalystIds {
  /** An entry's place among the entries the account reads (0: not one of them). */
  seq(seq: number): number
  /** A release's place among the account's own releases (0: not one of theirs). */
  release(releaseId: number): number
  /** The stored id of the account's `ordinal`-th release; "no release" when they have none by that number. */
  storedRelease(ordinal: number): number
}

function ordinals(ids: number[]): (id: number) => number {
  const at = new Map(ids.map((id, i) => [id, i + 1]))
  return (id) => at.get(id) ?? 0
}

export function analystIds(db: Db, accountId: number): AnalystIds {
  const seqs = (
    db.prepare(`SELECT seq FROM ledger_entries WHERE ${VISIBLE_TO_ACCOUNT} ORDER BY seq`).all({ account: accountId }) as Array<{ seq: number }>
  ).map((r) => r.seq)
  const releases = (
    db
      .prepare(
        `SELECT r.id AS id FROM releases r JOIN ledger_entries e ON e.release_id = r.id AND e.kind = 'charge'
          WHERE json_extract(e.detail, '$.account.id') = ? ORDER BY r.id`
      )
      .all(accountId) as Array<{ id: number }>
  ).map((r) => r.id)
  return {
    seq: ordinals(seqs),
    release: ordinals(releases),
    storedRelease(ordinal) {
      const id = Number.isInteger(ordinal) && ordinal >= 1 ? releases[ordinal - 1] : undefined
      if (id === undefined) throw new UserError(`There is no release with id ${ordinal}`, 'not-found')
      return id
    }
  }
}

export function analystRelease(r: ReleaseRecord, ids: AnalystIds): ReleaseRecord {
  return { ...r, releaseId: ids.release(r.releaseId), ledgerSeq: ids.seq(r.ledgerSeq) }
}

export function analystEntry(e: LedgerEntry, ids: AnalystIds): LedgerEntry {
  return { ...e, seq: ids.seq(e.seq), releaseId: e.releaseId === null ? null : ids.release(e.releaseId), prevHash: '', hash: '' }
}

export function analystSummary(s: LedgerSummary, ids: AnalystIds, visibleEntries: number): LedgerSummary {
  return {
    ...s,
    entries: visibleEntries,
    headHash: '',
    datasets: s.datasets.map((d) => ({ ...d, budgetChanges: d.budgetChanges.map((b) => ({ ...b, seq: ids.seq(b.seq) })) }))
  }
}
