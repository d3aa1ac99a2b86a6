/**
 * What every release kind provides (issue 18; in the style of OpenDP's measurements: the privacy map next to the
 * function). A kind's module owns its parameter checks (defaults and ranges from `contract/release-params.ts`), its
 * price (the data-independent charge, computed from the definition, public tables and the ledger only), its guarantee
 * sentence, the run (`execute`, after the charge, with the secure generator) and the answer's shape.
 */
import type Database from 'better-sqlite3'
import type { PrivacyNotion, ReleaseAnswer, ReleaseKind, ReleaseParams } from '../../../contract/ledger'
import { type NumberRange, inRange, rangeText } from '../../../contract/release-params'
import type { Rng } from '../../../../src-worker/engine/random'
import { UserError } from '../../errors'
import type { CellKey } from '../../ledger/cells'
import { MAX_NANO } from '../../ledger/units'
import type { SavedQueryRow } from '../inputs'

export interface ExecutionResult {
  answer: ReleaseAnswer
  /** Sealed: data-dependent costs, for the privacy officer only. */
  exPost: Record<string, unknown>
}

export interface PreparedRelease {
  query: SavedQueryRow
  datasetName: string
  kind: ReleaseKind
  notion: PrivacyNotion
  mechanism: string
  chargeNano: number
  chargeExplained: string
  cells: CellKey[]
  guarantee: string
  /** The request's parameters as recorded (no data). */
  publicParams: Record<string, unknown>
  /** A one-line description for the ledger. */
  description: string
  /** Checks of the ledger that must hold at the charge: run again inside the charge's transaction (throws to refuse). */
  recheck?: () => void
  execute(rng: Rng): ExecutionResult
}

/** One release kind: validates a request for a saved query of its kind and prices it, before anything is read. */
export interface ReleaseKindModule<P extends ReleaseParams = ReleaseParams> {
  kind: P['kind']
  prepare(db: Database.Database, query: SavedQueryRow, datasetName: string, params: P): PreparedRelease
}

/** `x` checked against its range (from the contract), or one sentence naming the parameter. */
export function checked(x: unknown, name: string, range: NumberRange): number {
  if (!inRange(x, range)) throw new UserError(`${name} must be ${rangeText(range)} (got ${String(x)})`)
  return x
}

export function checkedProduct(a: number, b: number): number {
  const p = a * b
  if (!Number.isSafeInteger(p) || p > MAX_NANO) throw new UserError('The charge is too large to be recorded; ask for less accuracy')
  return p
}
