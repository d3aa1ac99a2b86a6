/**
 * What every release kind provides (in the style of OpenDP's measurements: the privacy map next to the
 * function). A kind's module owns its parameter checks (defaults and ranges from `contract/release-params.ts`), its
 * price (the data-independent charge, computed from the definition, public tables and the ledger only), its guarantee
 * sentence, the run (after the charge, with the secure generator) and the answer's shape.
 *
 * The run is split: `run.read` reads the private data after the charge (SQLite, DuckDB and PostgreSQL are read
 * synchronously), `run.task` names the pure computation (`release:<kind>`, src-worker/tasks/release-compute.ts), and
 * `run.finish` turns its result into the answer. `execute(rng)` runs the three steps with the secure generator: on the
 * release runner's thread in the services (release-runner.ts), inline in the CLI and the tests.
 */
import type Database from 'better-sqlite3'
import type { PrivacyNotion, ReleaseAnswer, ReleaseParams } from '../../../contract/ledger'
import type { ReleaseKind } from '../../../contract/release-kinds'
import { type NumberRange, inRange, rangeText } from '../../../contract/release-params'
import { type Rng, assertSecure } from '../../../../src-worker/engine/random'
import type { ReleaseTaskKind, TaskPayload, TaskResult } from '../../../../src-worker/tasks'
import { RELEASE_COMPUTE } from '../../../../src-worker/tasks/release-compute'
import { UserError } from '../../platform/errors'
import type { CellKey } from '../../ledger/cells'
import { MAX_NANO } from '../../chain/nano-epsilon'
import type { SavedQueryRow } from '../inputs'
import type { FitOptions } from '../fit-suggestion'
import type { SearchQuestion } from '../../../../src-worker/engine/search'

/** What a kind's prepared release says about its accuracy (public: from the definition and the request; accuracy.ts plots it). */
export type AccuracySpec =
  | { kind: 'anomaly-identification'; records: number; steps: number; epsilon: number }
  | { kind: 'anomaly-search'; question: SearchQuestion; maxQueries: number; neededQueries: number; grid: number }

export interface ExecutionResult {
  answer: ReleaseAnswer
  /** Sealed: data-dependent costs, for the privacy officer only. */
  exPost: Record<string, unknown>
}

/** A release's run after the charge: the read and the finish around a pure computation (`task`). */
export interface ReleaseRun<K extends ReleaseTaskKind = ReleaseTaskKind> {
  task: K
  /**
   * After the charge: reads the private data and returns the task's payload (data only, never a generator or a seed).
   * `rng` (secure) draws what the read needs (a keyed-hash key, the rows kept per person).
   */
  read(rng: Rng): TaskPayload<K>
  /** The answer and the sealed costs from the task's result. */
  finish(result: TaskResult<K>): ExecutionResult
}

export type AnyReleaseRun = { [K in ReleaseTaskKind]: ReleaseRun<K> }[ReleaseTaskKind]

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
  /** What the guarantee will not support (public inputs only): shown by the preview before anything is spent. */
  warnings?: string[]
  /** Limits on what a denial may suggest, and suggestions that need the query saved anew (fit-suggestion.ts). */
  fitOptions?: FitOptions
  /** What the accuracy preview plots (accuracy.ts): public, from the definition and the request. */
  accuracy?: AccuracySpec
  /** The run, split into read, computation and finish. */
  run: AnyReleaseRun
  /** The same run inline with `rng` (which must be the secure generator): read, the kind's one computation, finish. */
  execute(rng: Rng): ExecutionResult
}

/** `run` and its inline `execute` for a kind's `PreparedRelease`. */
export function releaseRun<K extends ReleaseTaskKind>(run: ReleaseRun<K>): { run: AnyReleaseRun; execute(rng: Rng): ExecutionResult } {
  const compute = RELEASE_COMPUTE[run.task] as (payload: TaskPayload<K>, rng: Rng) => TaskResult<K>
  return {
    run: run as unknown as AnyReleaseRun,
    execute(rng) {
      assertSecure(rng)
      return run.finish(compute(run.read(rng), rng))
    }
  }
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
