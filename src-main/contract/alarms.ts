/**
 * Contract methods and events of continual alarms (ALGORITHMS.md section 7; ARCHITECTURE.md "Alarms"; UX.md "Alarms").
 *
 * Types only (plus the run-time allow-list): the renderer imports this file.
 *
 * Everything here is public: the alarm's definition and schedule, the officer's act, which predicates fired in which
 * period, charges (data-independent) and accuracy sentences. Never a count, a noisy value, a running instance's noise
 * or an ex-post cost.
 */
import type { z } from 'zod'
import type {
  ALARM_MODES,
  ALARM_PERIODS,
  ALARM_STATUSES,
  alarmHistoryRequestSchema,
  alarmIdRequestSchema,
  alarmPreviewRequestSchema,
  createAlarmRequestSchema,
  listAlarmsRequestSchema,
  pauseAlarmRequestSchema,
  runDueAlarmsRequestSchema
} from './schemas/alarms'

export type AlarmPeriodUnit = (typeof ALARM_PERIODS)[number]
export type AlarmMode = (typeof ALARM_MODES)[number]
export type AlarmStatus = (typeof ALARM_STATUSES)[number]

export type AlarmPreviewRequest = z.infer<typeof alarmPreviewRequestSchema>
export type CreateAlarmRequest = z.infer<typeof createAlarmRequestSchema>
export type AlarmIdRequest = z.infer<typeof alarmIdRequestSchema>
export type PauseAlarmRequest = z.infer<typeof pauseAlarmRequestSchema>
export type ListAlarmsRequest = z.infer<typeof listAlarmsRequestSchema>
export type AlarmHistoryRequest = z.infer<typeof alarmHistoryRequestSchema>
export type RunDueAlarmsRequest = z.infer<typeof runDueAlarmsRequestSchema>

/** The when-fires split the officer signs: eps = eps1 + eps2, least for beta, alpha and c (exact: leastEpsilonSplit). */
export interface AlarmSplit {
  epsilon: number
  epsilonExact: string
  eps1: number
  eps2: number
  /** a = alpha / 2: a predicate fires against its threshold minus a. */
  shift: number
  /** Which bound the split meets: one instance's, or the stream's over every instance the lifetime cap allows. */
  bound: 'per-instance' | 'stream'
  /** The miss bound at this split (<= beta). */
  missBound: number
  instances: number
}

/** What the officer sees before signing (public: the definition, the request and the ledger's budgets only). */
export interface AlarmPreview {
  queryId: number
  queryName: string
  datasetId: number
  datasetName: string
  /** The mode the alarm will run in (row-level datasets: row-level unless when-fires). */
  mode: AlarmMode
  /** The mode in one sentence (UX.md "Alarms"). */
  modeText: string
  /** The unit protected: "row", "person-hour", "person". */
  unit: string
  /** row-level / per-period: each period's charge; when-fires: one instance's charge. */
  charge: number
  chargeExact: string
  chargeExplained: string
  /** when-fires only: the split and its bounds. */
  split: AlarmSplit | null
  /** The lifetime cap per unit (null: none of the alarm's own; the dataset's budgets bind). */
  lifetime: number | null
  lifetimeExact: string | null
  /** The honest figure: what a unit present in every period loses over the lifetime (per-period: the sum of the periods' charges). */
  lifetimeText: string
  /** The accuracy sentence of every evaluated period. */
  guarantee: string
  /** What the guarantee will not support (public inputs only). */
  warnings: string[]
}

/** An alarm as everyone allowed to see it sees it (public fields only). */
export interface AlarmView {
  alarmId: number
  uid: string
  name: string
  datasetId: number
  datasetName: string
  queryId: number
  queryName: string
  timeColumn: string
  period: AlarmPeriodUnit
  /** ISO 8601 (UTC) */
  start: string
  graceSeconds: number
  mode: AlarmMode
  modeText: string
  unit: string
  mechanism: string | null
  beta: number
  alpha: number
  fires: number | null
  status: AlarmStatus
  /** Why it is paused or ended, in words (null while watching). */
  statusReason: string | null
  /** The officer's signed act. */
  ledgerSeq: number
  signedBy: string
  reason: string
  createdAt: string
  /** row-level / per-period: each period's charge; when-fires: each instance's. */
  charge: number
  chargeExact: string
  lifetime: number | null
  lifetimeExact: string | null
  /** Charged so far over the alarm's life (the sum of its releases' charges). */
  spent: number
  spentExact: string
  /** Evaluated periods, and the last one (null: none yet). */
  periodsEvaluated: number
  lastPeriod: number | null
  /** The next period to evaluate and when it closes (end + grace), ISO. */
  nextPeriod: number
  nextDueAt: string
  /** Periods in which a predicate fired. */
  periodsFired: number
  /** when-fires: the running instance's ordinal (1, 2, ...) and fires left in it; null otherwise. */
  instance: { ordinal: number; firesLeft: number } | null
  /** "At this rate the cap lasts until ..." (from the public schedule and past charges; null without a cap). */
  projection: string | null
  /** The accuracy sentence of each evaluated period. */
  guarantee: string
  /** Every answer says this: rows arriving for an evaluated period are never counted. */
  lateRowsText: string
}

/** One evaluated period (public fields only: which predicates fired, the charge; never a count). */
export interface AlarmPeriodView {
  period: number
  /** [from, to) of the period, ISO. */
  from: string
  to: string
  /** The predicates that fired, as labels ("room = B-104"). */
  fired: string[]
  /** The predicates that fired, as key tuples in group-by order. */
  firedKeys: Array<Array<string | number | null>>
  /** What this period charged (when-fires: the instance's charge on the period that started it, else 0). */
  charge: number
  chargeExact: string
  /** when-fires: the instance that evaluated the period (ordinal); null otherwise. */
  instance: number | null
  /** The release of this period (kind alarm-period); null when the period charged nothing. */
  releaseId: number | null
  /** 'answered', or 'failed' with the neutral sentence (the charge stands). */
  status: 'answered' | 'failed'
  evaluatedAt: string
  /** The accuracy sentence of the period's answer. */
  accuracy: string
  /** Rows that arrive for this period after it was evaluated are not counted; the answer says so. */
  lateRowsNote: string
}

export interface AlarmHistory {
  alarm: AlarmView
  periods: AlarmPeriodView[]
  total: number
}

/** One alarm's periods evaluated by one run. */
export interface AlarmRunEntry {
  alarmId: number
  period: number
  fired: string[]
  charge: number
  chargeExact: string
  instance: number | null
  status: 'answered' | 'failed'
}

export interface RunDueResult {
  /** ISO instant the run took as now. */
  now: string
  evaluated: AlarmRunEntry[]
  /** Alarms that paused in this run, with why (never a silent stop). */
  paused: Array<{ alarmId: number; reason: string }>
  /** Alarms with more due periods than one run evaluates (they continue on the next run). */
  more: number[]
}

/** Event: a period was evaluated (public fields only). */
export interface AlarmEvaluatedEvent {
  alarmId: number
  period: number
  /** [from, to) ISO */
  from: string
  to: string
  /** Names of the predicates that fired (empty: quiet). */
  fired: string[]
  accuracy: string
}

/** Event: predicates fired in a period (public fields only). */
export interface AlarmFiredEvent {
  alarmId: number
  alarmName: string
  period: number
  from: string
  to: string
  fired: string[]
  accuracy: string
}

export interface AlarmEvents {
  'alarm:evaluated': AlarmEvaluatedEvent
  'alarm:fired': AlarmFiredEvent
}

export const alarmEventNames: Record<keyof AlarmEvents, true> = { 'alarm:evaluated': true, 'alarm:fired': true }

export interface AlarmMethods {
  /** Officer and analyst: the charge, split, lifetime figure and sentences an alarm would have (nothing written). */
  'alarms/preview': { req: AlarmPreviewRequest; res: AlarmPreview }
  /** Officer act (signed ledger 'alarm' entry with a reason): the alarm starts watching. */
  'alarms/create': { req: CreateAlarmRequest; res: AlarmView }
  'alarms/list': { req: ListAlarmsRequest; res: AlarmView[] }
  'alarms/get': { req: AlarmIdRequest; res: AlarmView }
  'alarms/pause': { req: PauseAlarmRequest; res: AlarmView }
  'alarms/resume': { req: AlarmIdRequest; res: AlarmView }
  'alarms/history': { req: AlarmHistoryRequest; res: AlarmHistory }
  /** Evaluates every closed period not yet evaluated, in order, each once (the service runs it on its own clock). */
  'alarms/run-due': { req: RunDueAlarmsRequest; res: RunDueResult }
}

export const alarmsMethodNames: Record<keyof AlarmMethods, true> = {
  'alarms/preview': true,
  'alarms/create': true,
  'alarms/list': true,
  'alarms/get': true,
  'alarms/pause': true,
  'alarms/resume': true,
  'alarms/history': true,
  'alarms/run-due': true
}
