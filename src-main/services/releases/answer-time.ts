/**
 * A served dataset's public answer time (ALGORITHMS.md section 5, "Timing"): in the service, a release's answer, its
 * events and every time field about it appear at charge + the answer time, whatever the run took, so how long the data
 * read lasted (how many rows a filter matched) shows in nothing the analyst observes. The answer time is an officer
 * act with a reason, signed into the audit chain (so `ledger verify` covers it and admission refuses a workspace where
 * it was written around the app). A run that overruns it is the residual: it is answered at the next multiple of the
 * answer time, and recorded for the officer (an audit event `release/overrun`, counted by `overrunCount`).
 *
 * Without an answer time the step is the cadence (release-service.ts `answerTime`): the run time shows in whole ticks.
 */
import type Database from 'better-sqlite3'
import { UserError } from '../platform/errors'
import { recordAudit } from '../chain/ledger-chain'
import { datasetName } from '../catalog/catalog'
import { unlockOfficer } from '../trust/officers'
import { refuseUnlessVerifies, writeCheckpoint } from '../trust/checkpoints'

type Db = Database.Database

export const ANSWER_TIME_EVENT = 'officer/answer-time'
export const OVERRUN_EVENT = 'release/overrun'
/** The longest answer time an officer may set (ms): ten minutes. */
export const MAX_ANSWER_TIME_MS = 600_000
/** Answer times are whole multiples of this (as every step is: release-service.ts ANSWER_STEP_UNIT_MS). */
const ANSWER_STEP_UNIT_MS = 50

export interface SetAnswerTimeInput {
  datasetId: number
  /** Milliseconds, a whole multiple of 50 from 50 to MAX_ANSWER_TIME_MS. */
  ms: number
  reason: string
  officer?: string
  passphrase?: string
}

/** The officer sets (or changes) a dataset's public answer time: a signed audit event and a checkpoint, in one transaction. */
export function setAnswerTime(db: Db, input: SetAnswerTimeInput): { datasetId: number; ms: number } {
  const name = datasetName(db, input.datasetId)
  if (name === null) throw new UserError(`There is no dataset with id ${input.datasetId}; list them with "quiet-alarm datasets"`, 'not-found')
  const ms = input.ms
  if (!Number.isInteger(ms) || ms < ANSWER_STEP_UNIT_MS || ms > MAX_ANSWER_TIME_MS || ms % ANSWER_STEP_UNIT_MS !== 0) {
    throw new UserError(`The answer time must be a whole number of milliseconds from 50 to ${MAX_ANSWER_TIME_MS} in steps of 50 (got ${String(ms)})`)
  }
  const reason = typeof input.reason === 'string' ? input.reason.trim() : ''
  if (reason.length < 3) throw new UserError('An answer time needs a reason (a few words saying why); it is recorded')
  if (reason.length > 500) throw new UserError('The reason is too long (at most 500 characters)')
  const key = unlockOfficer(db, { officer: input.officer, passphrase: input.passphrase })
  db.transaction(() => {
    refuseUnlessVerifies(db)
    recordAudit(db, ANSWER_TIME_EVENT, key.name, `dataset:${input.datasetId}`, { ms, reason, datasetName: name }, key)
    writeCheckpoint(db, key)
  }).immediate()
  return { datasetId: input.datasetId, ms }
}

/** The dataset's answer time in force (ms): the latest signed act for it; null when the officer set none. */
export function answerTimeOf(db: Db, datasetId: number): number | null {
  const row = db
    .prepare(`SELECT detail FROM audit_events WHERE kind = ? AND subject = ? AND signer IS NOT NULL ORDER BY id DESC LIMIT 1`)
    .get(ANSWER_TIME_EVENT, `dataset:${datasetId}`) as { detail: string } | undefined
  if (!row) return null
  const ms = (JSON.parse(row.detail) as { ms?: unknown }).ms
  return typeof ms === 'number' && Number.isInteger(ms) && ms > 0 ? ms : null
}

/** The step a release's answer time is counted in: the answer time rounded up to whole cadences, or the cadence. */
export function answerStep(answerTimeMs: number | null, cadenceMs: number): number {
  return answerTimeMs === null ? cadenceMs : Math.ceil(answerTimeMs / cadenceMs) * cadenceMs
}

/** Records that a release overran its dataset's answer time (answered `steps` answer times after its charge). */
export function recordOverrun(db: Db, releaseId: number, datasetId: number, answerTimeMs: number, steps: number): void {
  db.transaction(() => recordAudit(db, OVERRUN_EVENT, 'release runner', `dataset:${datasetId}`, { releaseId, answerTimeMs, steps }))()
}

/** How many releases overran their dataset's answer time (one dataset, or all). */
export function overrunCount(db: Db, datasetId?: number): number {
  const r = db
    .prepare(`SELECT count(*) AS n FROM audit_events WHERE kind = @kind AND (@subject IS NULL OR subject = @subject)`)
    .get({ kind: OVERRUN_EVENT, subject: datasetId === undefined ? null : `dataset:${datasetId}` }) as { n: number }
  return r.n
}
