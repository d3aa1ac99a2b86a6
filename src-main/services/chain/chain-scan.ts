/**
 * Reading the two hash chains back, row by row, and saying where they break: an entry whose hash does not match its
 * fields (edited), a gap in seq (deleted), a previous hash that is not the entry before's (deleted, inserted or
 * reordered), an audit event outside the chain. The scans are fed in order and can be fed again with the rows appended
 * since (trust/kernel.ts keeps one per connection), so that the same checks serve `ledger verify` (a fresh scan of
 * everything) and admission (the rows appended since its last scan).
 */
import { type AuditRow, auditHash } from './audit-chain'
import { GENESIS_HASH, entryHash } from './canonical'
import { type EntryRow, hashedFields } from './ledger-chain'

/** Where a chain breaks: the entry (seq) it is reported at, and one clause saying what is wrong. */
export interface ChainProblem {
  seq: number
  reason: string
}

/** The ledger's chain as read so far: every entry by seq, and where it breaks. */
export class LedgerChainScan {
  readonly bySeq = new Map<number, EntryRow>()
  readonly problems: ChainProblem[] = []
  /** Entries whose hash does not match their fields (edited in place). */
  readonly edited = new Set<number>()
  count = 0
  lastSeq = 0
  lastHash = GENESIS_HASH
  private expectedSeq = 1

  /** The next entry, in seq order. */
  add(e: EntryRow): void {
    this.count++
    if (e.seq !== this.expectedSeq) {
      this.problems.push({
        seq: this.expectedSeq,
        reason: e.seq > this.expectedSeq ? `entry ${this.expectedSeq} is missing (deleted)` : `entry ${e.seq} is out of order`
      })
      // Not every later entry for the same cause: the chain continues from this entry.
    }
    if (e.prev_hash !== this.lastHash) {
      this.problems.push({
        seq: e.seq,
        reason: `entry ${e.seq} does not follow the entry before it (previous hash differs: deleted, inserted or reordered entries)`
      })
    }
    if (entryHash(e.prev_hash, hashedFields(e)) !== e.hash) {
      this.edited.add(e.seq)
      this.problems.push({ seq: e.seq, reason: `entry ${e.seq} was changed after it was written (its hash does not match its contents)` })
    }
    this.bySeq.set(e.seq, e)
    this.lastHash = e.hash
    this.lastSeq = e.seq
    this.expectedSeq = e.seq + 1
  }

  /** The head record must name the last entry (a cut tail leaves it pointing past the end). */
  headProblem(head: { seq: number; hash: string } | undefined): ChainProblem | null {
    if (head === undefined) return this.count > 0 ? { seq: 1, reason: 'the ledger head record is missing' } : null
    if (head.seq === this.lastSeq && head.hash === this.lastHash) return null
    return {
      seq: Math.min(head.seq, this.lastSeq + 1),
      reason:
        head.seq > this.lastSeq
          ? `entries ${this.lastSeq + 1}..${head.seq} are missing (the ledger was cut short)`
          : `the ledger head names entry ${head.seq} but the ledger ends at entry ${this.lastSeq}`
    }
  }
}

/** Where the audit chain breaks, reported after the ledger's entries (`afterSeq`: the ledger's last seq + 1). */
export class AuditChainScan {
  readonly byId = new Map<number, AuditRow>()
  readonly problems: Array<{ id: number; reason: string }> = []
  /** Event ids in order (ascending). */
  readonly ids: number[] = []
  lastId = 0
  private prev = GENESIS_HASH

  add(a: AuditRow): void {
    this.byId.set(a.id, a)
    this.ids.push(a.id)
    this.lastId = a.id
    if (a.hash === null) {
      this.problems.push({ id: a.id, reason: `audit event ${a.id} (${a.kind}) is not in the audit chain (it was inserted around the app)` })
      return
    }
    if (a.prev_hash !== this.prev)
      this.problems.push({
        id: a.id,
        reason: `audit event ${a.id} does not follow the event before it (audit events were deleted, inserted or reordered)`
      })
    if (auditHash(a.prev_hash ?? '', a) !== a.hash)
      this.problems.push({ id: a.id, reason: `audit event ${a.id} (${a.kind}) was changed after it was written` })
    this.prev = a.hash
  }

  /** How many events come after `id`. */
  countAfter(id: number): number {
    let lo = 0
    let hi = this.ids.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.ids[mid] <= id) lo = mid + 1
      else hi = mid
    }
    return this.ids.length - lo
  }
}
