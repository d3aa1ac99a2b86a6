/**
 * Request schemas of the alarms area (ALGORITHMS.md section 7, ARCHITECTURE.md "Alarms"): a continual alarm is a saved
 * threshold question watched per closed period, signed once by the privacy officer with its accounting mode and caps.
 * Each schema gives the request type (`z.infer`, used by contract/alarms.ts) and the doors' check.
 */
import { z } from 'zod'
import { RELEASE_PARAMS, THRESHOLD_RELEASE_MECHANISMS } from '../release-params'
import { LIMITS, rangedNumber, storedId, text } from './common'

export const ALARM_PERIODS = ['hour', 'day', 'week'] as const
/**
 * row-level: a row-level dataset, periods are disjoint cells (watching for ever costs one period's price per row);
 * per-period: the unit is person-period, a per-period budget renews each period inside a lifetime cap;
 * when-fires: the sparse vector technique, one charge covers unlimited quiet periods and up to c fires.
 */
export const ALARM_MODES = ['row-level', 'per-period', 'when-fires'] as const
export const ALARM_STATUSES = ['watching', 'paused', 'ended'] as const

/** The longest grace after a period's end before it is evaluated (7 days, in seconds). */
export const MAX_GRACE_SECONDS = 7 * 86_400
/** The most fires one when-fires instance covers. */
export const MAX_FIRES = 1000
/** The most periods one `run-due` evaluates per alarm (a catch-up continues on the next run). */
export const MAX_PERIODS_PER_RUN = 10_000

const T = RELEASE_PARAMS.threshold

const officerFields = {
  /** The registered officer (name or key id; optional when only one officer is registered). */
  officer: text(LIMITS.name).optional(),
  /** The officer's passphrase (never stored or logged). */
  passphrase: text(LIMITS.passphrase).optional()
}

const epsilonText = () =>
  z.union([rangedNumber({ gt: 0 }), text(64, { nonEmpty: true })], { error: 'must be a number greater than 0, or decimal text such as "2.5"' })

const alarmFields = {
  /** The saved threshold question watched (its version at creation is frozen into the alarm). */
  queryId: storedId(),
  /** Default: the saved question's name and the period ("rooms over capacity, hourly"). */
  name: text(LIMITS.name).optional(),
  /** The timestamp column that places a row in its period. */
  timeColumn: text(LIMITS.column, { nonEmpty: true }),
  period: z.enum(ALARM_PERIODS),
  /** Period 0 begins here (ISO 8601; without a zone = UTC). */
  start: text(LIMITS.date, { nonEmpty: true }),
  /** How long after a period's end it is evaluated, so that late rows are still counted (default 0). */
  graceSeconds: rangedNumber({ integer: true, ge: 0, le: MAX_GRACE_SECONDS }).optional(),
  /**
   * Default: row-level on a row-level dataset, per-period on a person-level one. per-period on a row-level dataset is
   * read as row-level (a row lies in one period only).
   */
  mode: z.enum(ALARM_MODES).optional(),
  /** row-level and per-period: the threshold mechanism of each period's release (default tslm). */
  mechanism: z.enum(THRESHOLD_RELEASE_MECHANISMS).optional(),
  /** Each predicate truly over its threshold in a period is missed with probability at most beta. */
  beta: rangedNumber(T.beta.range),
  /** Predicates within 2 alpha under their threshold may fire. */
  alpha: rangedNumber(T.alpha.range),
  /** when-fires: the fires one instance covers (c; default 1). */
  fires: rangedNumber({ integer: true, ge: 1, le: MAX_FIRES }).optional(),
  /**
   * The most the alarm may charge in its lifetime, per unit (absent: when-fires, one instance; row-level and per-period,
   * no cap of its own: the dataset's budgets bind).
   */
  lifetime: epsilonText().optional()
}

/** What the officer is shown before signing: computed from the definition and the request only (public). */
export const alarmPreviewRequestSchema = z.strictObject(alarmFields)

export const createAlarmRequestSchema = z.strictObject({
  ...alarmFields,
  /** Why the alarm is signed (recorded in the ledger with the officer's act). */
  reason: text(LIMITS.reason, { nonEmpty: true }),
  /**
   * The service: the analyst account the alarm watches for (it lists the alarm as its own, and its periods are charged
   * to that analyst's allotment). Absent: the signing account's (the workbench: nobody's).
   */
  analyst: storedId().optional(),
  ...officerFields
})

export const alarmIdRequestSchema = z.strictObject({ alarmId: storedId() })

export const pauseAlarmRequestSchema = z.strictObject({
  alarmId: storedId(),
  /** Recorded with the pause and shown beside the alarm. */
  reason: text(LIMITS.reason).optional()
})

export const listAlarmsRequestSchema = z.strictObject({ datasetId: storedId().optional() })

export const alarmHistoryRequestSchema = z.strictObject({
  alarmId: storedId(),
  /** Newest first; default 500, at most 10,000. */
  limit: rangedNumber({ integer: true, ge: 1, le: 10_000 }).optional(),
  offset: rangedNumber({ integer: true, ge: 0 }).optional()
})

export const runDueAlarmsRequestSchema = z.strictObject({
  /** Only this alarm (default: every alarm that is watching). */
  alarmId: storedId().optional()
})

export const alarmRequestSchemas = {
  'alarms/preview': alarmPreviewRequestSchema,
  'alarms/create': createAlarmRequestSchema,
  'alarms/list': listAlarmsRequestSchema,
  'alarms/get': alarmIdRequestSchema,
  'alarms/pause': pauseAlarmRequestSchema,
  'alarms/resume': alarmIdRequestSchema,
  'alarms/history': alarmHistoryRequestSchema,
  'alarms/run-due': runDueAlarmsRequestSchema
} as const
