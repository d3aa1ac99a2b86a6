/**
 * The budgets in force (issue 15 and after): which budget entries count, read from the ledger's entries, and whether an
 * officer act's entry is what a registered officer signed.
 */
import type Database from 'better-sqlite3'
import type { PrivacyNotion } from '../../contract/ledger'
import { entryHash } from '../chain/canonical'
import { type EntryRow, entrySigningText, hashedFields } from '../chain/ledger-chain'
import { NOTIONS } from '../chain/notions'
import { verifyText } from './officer-crypto'
import { verifiedOfficerRows } from './officers'

type Db = Database.Database

/** The per-unit budget: the latest budget entry that names no notion; null if the officer never set one. */
export function unitBudgetNano(db: Db, datasetId: number): number | null {
  const row = db
    .prepare(`SELECT amount_nano FROM ledger_entries WHERE kind = 'budget' AND dataset_id = ? AND notion IS NULL ORDER BY seq DESC LIMIT 1`)
    .get(datasetId) as { amount_nano: number } | undefined
  return row ? row.amount_nano : null
}

/** A notion's own cap: the latest budget entry for exactly this notion; null if none (then only the per-unit budget applies). */
export function notionCapNano(db: Db, datasetId: number, notion: PrivacyNotion): number | null {
  const row = db
    .prepare(`SELECT amount_nano FROM ledger_entries WHERE kind = 'budget' AND dataset_id = ? AND notion = ? ORDER BY seq DESC LIMIT 1`)
    .get(datasetId, notion) as { amount_nano: number } | undefined
  return row ? row.amount_nano : null
}

/**
 * The budget one unit is held to, and where it comes from: the officer's per-unit budget; without one, the sum of the
 * notions' own budgets (only notions with a budget may spend then, so a unit's loss is at most that sum); else none.
 */
export function perUnitBudget(db: Db, datasetId: number): { nano: number | null; source: 'per-unit' | 'notion-budgets' | 'none' } {
  const unit = unitBudgetNano(db, datasetId)
  if (unit !== null) return { nano: unit, source: 'per-unit' }
  let sum = 0
  let any = false
  for (const n of NOTIONS) {
    const cap = notionCapNano(db, datasetId, n)
    if (cap !== null) {
      sum += cap
      any = true
    }
  }
  return any ? { nano: sum, source: 'notion-budgets' } : { nano: null, source: 'none' }
}

/**
 * The budget that applies to one notion's account alone (kept for callers of the per-notion view): its own cap, else
 * the per-unit budget; null when neither is set (releases under the notion are denied).
 */
export function budgetNano(db: Db, datasetId: number, notion: PrivacyNotion): number | null {
  return notionCapNano(db, datasetId, notion) ?? unitBudgetNano(db, datasetId)
}

function hasTable(db: Db, name: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined
}

/**
 * The budget entries admission reads (the latest per-unit budget, the notion's latest cap, and the latest budget of any
 * kind, whose detail carries the signed unit): the seq of the first one that is not what an officer signed, or null.
 * Review finding: admission read the amount and the unit straight from the rows, so a budget raised in place with the
 * file (every hash after it recomputed) admitted releases until someone ran `ledger verify`. A budget entry counts
 * when its hash matches its fields and it carries a valid signature of a registered officer, or when it is unsigned and
 * predates officer signatures (as `verify` accepts it: up to the trust epoch, never after the first checkpoint).
 * Not caught here (verify catches them): deleted later budgets (a rollback) and an officer registry replaced around the app.
 */
export function forgedBudgetSeq(db: Db, datasetId: number, notion: PrivacyNotion): number | null {
  if (!hasTable(db, 'ledger_trust_epoch') || !hasTable(db, 'officers')) return null // a schema from before officer keys
  const latest = (where: string, ...args: unknown[]) =>
    db.prepare(`SELECT * FROM ledger_entries WHERE kind = 'budget' AND dataset_id = ? ${where} ORDER BY seq DESC LIMIT 1`).get(datasetId, ...args) as
      EntryRow | undefined
  const rows = [latest(''), latest('AND notion IS NULL'), latest('AND notion = ?', notion)].filter((e): e is EntryRow => e !== undefined)
  for (const e of rows) if (!officerSignedEntry(db, e)) return e.seq
  return null
}

/**
 * Whether an officer act's ledger entry (a budget, a public declaration) is what an officer signed: its hash matches its
 * fields and it carries a valid signature of an officer whose registration verifies (an officer row inserted with the
 * file does not: review H10), or it is unsigned and predates officer signatures (as `verify` accepts it: up to the
 * trust epoch, never after the first checkpoint). True on a schema from before officer keys.
 */
export function officerSignedEntry(db: Db, e: EntryRow): boolean {
  if (!hasTable(db, 'ledger_trust_epoch') || !hasTable(db, 'officers')) return true
  const epoch = db.prepare('SELECT unsigned_through_seq AS seq FROM ledger_trust_epoch WHERE id = 1').get() as { seq: number } | undefined
  const firstCheckpoint = db.prepare('SELECT min(ledger_seq) AS seq FROM ledger_checkpoints').get() as { seq: number | null }
  const unsignedThrough = Math.min(epoch?.seq ?? 0, firstCheckpoint.seq ?? Number.MAX_SAFE_INTEGER)
  if (entryHash(e.prev_hash, hashedFields(e)) !== e.hash) return false
  if (e.signer) {
    const o = verifiedOfficerRows(db).find((r) => r.key_id === e.signer)
    return o !== undefined && !!e.signature && verifyText(o.sign_public, entrySigningText(e.seq, e.hash, e.signer), e.signature)
  }
  return e.seq <= unsignedThrough
}

/** The last seq written before privacy units existed (migration 006): entries up to it are row-level accounting. 0 if none. */
