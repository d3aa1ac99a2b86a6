/**
 * Evaluation of continual alarms (ALGORITHMS.md section 7): every closed period not yet evaluated, in order, each
 * exactly once. A period's whole evaluation (its charge, its release, the read of the period's counts, the mechanism,
 * the answer and its `alarm_periods` row) is one IMMEDIATE transaction keyed by (alarm, period), so that
 * - a crash anywhere before the commit leaves nothing (no charge, no answer: the period is evaluated on the next run,
 *   and nothing was shown), and after it everything;
 * - a second evaluator (another process) waits for the write lock and then finds the period done;
 * - a clock set back closes fewer periods, so nothing is redone; a catch-up evaluates every missed period in order.
 * A charged period whose read or mechanism fails is recorded failed with the neutral sentence: the charge stands and
 * the period is not evaluated again (no release fails after its charge on a data-dependent condition, and nothing is
 * retried on one). An alarm that cannot go on (its lifetime cap reached, a budget that denies, its signed act no longer
 * in force) pauses with the reason in words: never a silent stop.
 *
 * Randomness: the caller passes the product's secure generator (`SecureRandom.create()`); `assertSecure` refuses any
 * other, so a seeded generator never reaches a release.
 */
import type Database from 'better-sqlite3'
import type { AlarmEvaluatedEvent, AlarmFiredEvent, AlarmRunEntry, RunDueResult } from '../../contract/alarms'
import type { PrivacyNotion } from '../../contract/ledger'
import { type Rng, SecureRandom, assertSecure } from '../../../src-worker/engine/random'
import { periodRange } from '../../../src-worker/engine/alarms/periods'
import { startInstance, svtStep } from '../../../src-worker/engine/alarms/sparse-vector'
import { MAX_PERIODS_PER_RUN } from '../../contract/schemas/alarms'
import { appendEntry, recordAudit } from '../chain/ledger-chain'
import { canonicalJson } from '../chain/canonical'
import { nanoToDecimal, nanoToDisplay, nanoToNumber } from '../chain/nano-epsilon'
import { type CellKey, WHOLE_DATASET, cellKey } from '../ledger/cells'
import { admission } from '../ledger/admission'
import { storeSealedCosts } from '../trust/sealing'
import { inspectWorkspace } from '../trust/kernel'
import { datasetName } from '../catalog/catalog'
import { publicThreshold } from '../releases/threshold-adapter'
import { thresholdKind } from '../releases/kinds/threshold'
import type { ThresholdQueryDefinition } from '../../contract/datasets'
import type { ReleaseAnswer } from '../../contract/ledger'
import type { SavedQueryRow } from '../releases/inputs'
import {
  type AlarmParams,
  type AlarmRow,
  type InstanceRow,
  LATE_ROWS_TEXT,
  alarmRow,
  alarmSpentNano,
  duePeriods,
  firedLabels,
  paramsOf,
  runningInstance,
  startMs
} from './alarm-store'
import { signedAlarmProblem } from './create'
import { checkLinkedSource } from '../sources/source'
import { readingCheckedFiles } from '../sources/linked-file'
import type { FileVersion } from '../sources/file-version'
import { isUserError } from '../platform/errors'
import { asCaller } from '../platform/caller'
import type { Principal, Role } from '../../contract/accounts'
import { periodDefinition, periodQuery } from './plan'

type Db = Database.Database
type Key = Array<string | number | null>

/** The kind of every release an alarm makes (one per period, or per when-fires instance). */
export const ALARM_RELEASE_KIND = 'alarm-period'

/** What a failed period says, whatever failed (the cause may depend on the data). */
export const NEUTRAL_PERIOD_FAILURE = 'the answer could not be computed from the data; the charge stands and the period is not evaluated again'

export interface EvaluateOptions {
  /** Only this alarm (default: every alarm that is watching). */
  alarmId?: number
  /** At most this many periods per alarm in this run (default MAX_PERIODS_PER_RUN); the rest on the next run. */
  maxPeriods?: number
  /** Called with each public event after its period committed (the services forward them to the event stream). */
  emit?: (e: { name: 'alarm:evaluated'; payload: AlarmEvaluatedEvent } | { name: 'alarm:fired'; payload: AlarmFiredEvent }) => void
  /** Tests only: called inside a period's transaction after its charge, before the read (a crash there rolls all back). */
  afterCharge?: (alarmId: number, period: number) => void
}

/**
 * The ledger cell of one period of one alarm: a conjunction on a name no dataset column can be expected to have (the
 * alarm's random uid), valued by the period's start. Periods of one alarm are disjoint cells (a row lies in one period),
 * and the cell holds every record for every other release's cells (they never name it), so it can only over-count.
 */
export function periodCell(a: AlarmRow, p: number): CellKey {
  const [from] = periodRange(startMs(a), a.period, p)
  return cellKey({ [`alarm ${a.uid}`]: new Date(from).toISOString() })
}

/**
 * A linked source must be there with the schema it was linked with before a period is charged (public metadata, as for
 * every release): otherwise the alarm pauses with the source's sentence and nothing is charged. Returns the wrapper that
 * reads a linked file only as the version checked, or the sentence.
 */
function checkedSource(db: Db, datasetId: number): { read: <T>(f: () => T) => T } | { problem: string } {
  let source: object | null
  try {
    source = checkLinkedSource(db, datasetId)
  } catch (e) {
    if (isUserError(e)) return { problem: e.message }
    throw e
  }
  const version = source && 'version' in source ? (source.version as FileVersion | undefined) : undefined
  if (!version) return { read: (f) => f() }
  return { read: (f) => readingCheckedFiles([{ datasetId, version }], f) }
}

/** The saved question as the officer froze it (a later version or a deletion of the saved query changes nothing). */
function frozenQuery(db: Db, a: AlarmRow, def: ThresholdQueryDefinition): SavedQueryRow {
  const q = db.prepare('SELECT name, created_at, version, COALESCE(first_id, id) AS first FROM queries WHERE id = ?').get(a.query_id) as
    { name: string; created_at: string; version: number; first: number } | undefined
  return {
    id: a.query_id,
    datasetId: a.dataset_id,
    name: q?.name ?? a.name,
    kind: 'threshold',
    definition: def,
    createdAt: q?.created_at ?? a.created_at,
    version: q?.version ?? 1,
    firstVersionId: q?.first ?? a.query_id
  }
}

type PeriodOutcome =
  | { kind: 'done'; entry: AlarmRunEntry; events: Array<Parameters<NonNullable<EvaluateOptions['emit']>>[0]> }
  | { kind: 'already' }
  | { kind: 'stopped' }
  | { kind: 'paused'; reason: string }

function pause(db: Db, a: AlarmRow, reason: string): { kind: 'paused'; reason: string } {
  db.prepare(`UPDATE alarms SET status = 'paused', paused_reason = ? WHERE id = ? AND status = 'watching'`).run(reason, a.id)
  recordAudit(db, 'alarm/paused', 'quiet-alarm', `alarm:${a.id}`, { reason })
  return { kind: 'paused', reason }
}

function insertRelease(db: Db, a: AlarmRow, p: AlarmParams, notion: PrivacyNotion, chargeNano: number, extra: Record<string, unknown>): number {
  const name = datasetName(db, a.dataset_id) ?? '(deleted dataset)'
  const q = db.prepare('SELECT name FROM queries WHERE id = ?').get(a.query_id) as { name: string } | undefined
  const info = db
    .prepare(
      `INSERT INTO releases (created_at, dataset_id, dataset_name, query_id, query_name, kind, mechanism, params, notion, charge_nano, guarantee, status)
       VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'charged')`
    )
    .run(
      a.dataset_id,
      name,
      a.query_id,
      q?.name ?? a.name,
      ALARM_RELEASE_KIND,
      a.mode === 'when-fires' ? 'svt' : (p.mechanism ?? 'tslm'),
      canonicalJson({ alarmId: a.id, alarmUid: a.uid, mode: a.mode, beta: p.beta, alpha: p.alpha, fires: p.fires, ...extra }),
      notion,
      chargeNano,
      p.guarantee
    )
  return Number(info.lastInsertRowid)
}

/**
 * Admission and the charge of one alarm release in the caller's transaction: the ledger entry names the alarm (its id,
 * uid, mode) and what it covers. Returns null and the denial (recorded) when the budgets do not allow it.
 */
function charge(
  db: Db,
  a: AlarmRow,
  p: AlarmParams,
  notion: PrivacyNotion,
  cells: CellKey[],
  description: string,
  extra: Record<string, unknown>
): { releaseId: number } | { denial: string } {
  const name = datasetName(db, a.dataset_id) ?? '(deleted dataset)'
  const adm = admission(db, a.dataset_id, name, notion, cells, p.chargeNano)
  if (!adm.allowed) {
    recordAudit(db, 'release/denied', 'quiet-alarm', `dataset:${a.dataset_id}`, {
      alarmId: a.id,
      notion,
      requested: nanoToDecimal(p.chargeNano),
      remaining: adm.remainingNano === null ? null : nanoToDecimal(adm.remainingNano),
      ...extra
    })
    return { denial: adm.denial ?? 'Denied' }
  }
  const releaseId = insertRelease(db, a, p, notion, p.chargeNano, extra)
  appendEntry(db, {
    kind: 'charge',
    datasetId: a.dataset_id,
    datasetName: name,
    notion,
    amountNano: p.chargeNano,
    cells,
    releaseId,
    actor: `alarm ${a.id}`,
    description,
    detail: {
      kind: ALARM_RELEASE_KIND,
      alarm: { id: a.id, uid: a.uid, mode: a.mode, signedSeq: a.ledger_seq },
      ...extra,
      chargeExplained: p.chargeExplained
    }
  })
  return { releaseId }
}

function answer(db: Db, releaseId: number, value: unknown, exPost: Record<string, unknown>): void {
  db.prepare(
    `UPDATE releases SET status = 'answered', answer = ?, answered_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ? AND status = 'charged'`
  ).run(canonicalJson(value), releaseId)
  storeSealedCosts(db, releaseId, exPost)
}

function fail(db: Db, releaseId: number): void {
  db.prepare(
    `UPDATE releases SET status = 'failed', failure = ?, answered_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ? AND status = 'charged'`
  ).run(NEUTRAL_PERIOD_FAILURE, releaseId)
}

function lateRowsNote(a: AlarmRow, nowMs: number): string {
  return `Evaluated at ${new Date(nowMs).toISOString()} (grace ${a.grace_seconds} s after the period's end). ${LATE_ROWS_TEXT}`
}

function recordPeriod(
  db: Db,
  a: AlarmRow,
  period: number,
  r: { releaseId: number | null; instanceId: number | null; fired: Key[]; chargeNano: number; failed: boolean; note: string },
  nowMs: number
): void {
  db.prepare(
    `INSERT INTO alarm_periods (alarm_id, period, release_id, instance_id, fired, charge_nano, status, evaluated_at, late_rows_note)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
  ).run(
    a.id,
    period,
    r.releaseId,
    r.instanceId,
    canonicalJson(r.fired),
    r.chargeNano,
    r.failed ? 'failed' : 'answered',
    new Date(nowMs).toISOString(),
    r.note
  )
}

/** The cap check every mode makes before a charge: the alarm's charges so far plus this one within its lifetime cap. */
function overCap(db: Db, a: AlarmRow, p: AlarmParams): string | null {
  if (a.lifetime_cap_nano === null) return null
  const spent = alarmSpentNano(db, a.id)
  if (spent + p.chargeNano <= a.lifetime_cap_nano) return null
  return (
    `Paused: the lifetime cap of epsilon ${nanoToDisplay(a.lifetime_cap_nano, 'down')} is reached (charged so far ${nanoToDisplay(spent)}; ` +
    `the next ${a.mode === 'when-fires' ? 'instance' : 'period'} would cost ${nanoToDisplay(p.chargeNano)}). The officer may raise the cap with a new alarm.`
  )
}

/** A period of a row-level or per-period alarm: an ordinary threshold release on the period's rows. */
function evaluateThresholdPeriod(
  db: Db,
  a: AlarmRow,
  p: AlarmParams,
  def: ThresholdQueryDefinition,
  period: number,
  nowMs: number,
  rng: Rng,
  opts: EvaluateOptions
): PeriodOutcome {
  const capped = overCap(db, a, p)
  if (capped !== null) return pause(db, a, capped)
  const [from, to] = periodRange(startMs(a), a.period, period)
  const dsName = datasetName(db, a.dataset_id) ?? '(deleted dataset)'
  const prepared = thresholdKind.prepare(db, periodQuery(frozenQuery(db, a, def), periodDefinition(def, a.time_column, from, to)), dsName, {
    kind: 'threshold',
    mechanism: (p.mechanism ?? 'tslm') as 'tslm',
    beta: p.beta,
    alpha: p.alpha
  })
  // The price is the signed one: the definition is frozen, so a different price means the dataset's unit changed.
  if (prepared.chargeNano !== p.chargeNano) {
    return pause(
      db,
      a,
      `Paused: the price of a period is no longer the signed one (the dataset's privacy unit or bounds changed); the officer must sign the alarm again.`
    )
  }
  const src = checkedSource(db, a.dataset_id)
  if ('problem' in src) return pause(db, a, `Paused: ${src.problem}`)
  const fromIso = new Date(from).toISOString()
  const toIso = new Date(to).toISOString()
  const extra = { period, from: fromIso, to: toIso }
  const charged = charge(db, a, p, prepared.notion, [periodCell(a, period)], `Alarm "${a.name}", ${a.period} ${fromIso}: ${a.mode}`, extra)
  if ('denial' in charged) return pause(db, a, `Paused: ${charged.denial}`)
  opts.afterCharge?.(a.id, period)
  let fired: Key[] = []
  let failed = false
  try {
    const result = src.read(() => prepared.execute(rng))
    const ans = result.answer as Extract<ReleaseAnswer, { kind: 'threshold' }>
    fired = ans.flagged
    answer(db, charged.releaseId, { kind: ALARM_RELEASE_KIND, alarmId: a.id, period, from: fromIso, to: toIso, threshold: ans }, result.exPost)
  } catch {
    // The cause may depend on the data: never shown, never retried.
    fail(db, charged.releaseId)
    failed = true
  }
  const note = lateRowsNote(a, nowMs)
  recordPeriod(db, a, period, { releaseId: charged.releaseId, instanceId: null, fired, chargeNano: p.chargeNano, failed, note }, nowMs)
  return done(a, p, period, fromIso, toIso, fired, p.chargeNano, null, failed)
}

function done(
  a: AlarmRow,
  p: AlarmParams,
  period: number,
  from: string,
  to: string,
  fired: Key[],
  chargeNano: number,
  instance: number | null,
  failed: boolean
): PeriodOutcome {
  const labels = firedLabels(p.groupBy, fired)
  const events: Array<Parameters<NonNullable<EvaluateOptions['emit']>>[0]> = [
    { name: 'alarm:evaluated', payload: { alarmId: a.id, period, from, to, fired: labels, accuracy: p.guarantee } }
  ]
  if (labels.length > 0)
    events.push({ name: 'alarm:fired', payload: { alarmId: a.id, alarmName: a.name, period, from, to, fired: labels, accuracy: p.guarantee } })
  return {
    kind: 'done',
    entry: {
      alarmId: a.id,
      period,
      fired: labels,
      charge: nanoToNumber(chargeNano),
      chargeExact: nanoToDecimal(chargeNano),
      instance,
      status: failed ? 'failed' : 'answered'
    },
    events
  }
}

/** Charges and starts the next when-fires instance (rho drawn with the secure generator, stored, never shown). */
function startNextInstance(db: Db, a: AlarmRow, p: AlarmParams, period: number, rng: Rng): InstanceRow | { reason: string } {
  const capped = overCap(db, a, p)
  if (capped !== null) return { reason: capped }
  const last = db.prepare('SELECT COALESCE(MAX(ordinal), 0) AS n FROM alarm_instances WHERE alarm_id = ?').get(a.id) as { n: number }
  const ordinal = last.n + 1
  const extra = { instance: ordinal, firstPeriod: period }
  const charged = charge(
    db,
    a,
    p,
    'eps-dp',
    [WHOLE_DATASET],
    `Alarm "${a.name}": when-fires instance ${ordinal} (unlimited quiet ${a.period}s and up to ${p.fires ?? 1} fires)`,
    extra
  )
  if ('denial' in charged) return { reason: `Paused: ${charged.denial}` }
  const { rho } = startInstance(rng, { eps1: p.eps1!, sensitivity: p.sensitivity })
  const info = db
    .prepare(`INSERT INTO alarm_instances (alarm_id, ordinal, release_id, first_period, fires_used, state, rho) VALUES (?, ?, ?, ?, 0, 'running', ?)`)
    .run(a.id, ordinal, charged.releaseId, period, rho)
  answer(
    db,
    charged.releaseId,
    { kind: ALARM_RELEASE_KIND, alarmId: a.id, instance: ordinal, firstPeriod: period, fires: "in the alarm's history, per period" },
    { spentMax: nanoToNumber(p.chargeNano) }
  )
  return db.prepare('SELECT * FROM alarm_instances WHERE id = ?').get(Number(info.lastInsertRowid)) as InstanceRow
}

/** A period of a when-fires alarm: the period's queries against the running instance, renewing it within the cap. */
function evaluateSvtPeriod(
  db: Db,
  a: AlarmRow,
  p: AlarmParams,
  def: ThresholdQueryDefinition,
  period: number,
  nowMs: number,
  rng: Rng,
  opts: EvaluateOptions
): PeriodOutcome {
  const [from, to] = periodRange(startMs(a), a.period, period)
  const fromIso = new Date(from).toISOString()
  const toIso = new Date(to).toISOString()
  const src = checkedSource(db, a.dataset_id)
  if ('problem' in src) return pause(db, a, `Paused: ${src.problem}`)
  let chargedHere = 0
  let inst = runningInstance(db, a.id)
  if (inst === null) {
    const started = startNextInstance(db, a, p, period, rng)
    if ('reason' in started) return pause(db, a, started.reason)
    inst = started
    chargedHere += p.chargeNano
  }
  const firstInstance = inst
  opts.afterCharge?.(a.id, period)
  const params = { eps1: p.eps1!, eps2: p.eps2!, c: p.fires ?? 1, sensitivity: p.sensitivity, shift: p.shift!, monotone: true }
  let counts: Float64Array
  let thresholds: Float64Array
  let keys: Key[]
  try {
    const pub = publicThreshold(db, a.dataset_id, periodDefinition(def, a.time_column, from, to))
    const truth = src.read(() => pub.evaluate(rng))
    counts = truth.counts
    thresholds = truth.thresholds
    keys = pub.keys
  } catch {
    const note = `${lateRowsNote(a, nowMs)} ${NEUTRAL_PERIOD_FAILURE}.`
    recordPeriod(
      db,
      a,
      period,
      { releaseId: firstInstance.release_id, instanceId: firstInstance.id, fired: [], chargeNano: chargedHere, failed: true, note },
      nowMs
    )
    return done(a, p, period, fromIso, toIso, [], chargedHere, firstInstance.ordinal, true)
  }
  const fired: Key[] = []
  let offset = 0
  let pausedReason: string | null = null
  for (;;) {
    const step = svtStep(rng, { rho: inst.rho, firesLeft: params.c - inst.fires_used }, counts.subarray(offset), thresholds.subarray(offset), params)
    for (const j of step.fired) fired.push(keys[offset + j])
    const used = params.c - step.firesLeft
    offset += step.next
    if (step.firesLeft > 0) {
      db.prepare('UPDATE alarm_instances SET fires_used = ? WHERE id = ?').run(used, inst.id)
      break
    }
    db.prepare(`UPDATE alarm_instances SET fires_used = ?, state = 'spent', ended_at = ? WHERE id = ?`).run(
      used,
      new Date(nowMs).toISOString(),
      inst.id
    )
    // The c-th fire ends the instance: the next one is charged now, within the cap, for the rest of this period and on.
    const next = startNextInstance(db, a, p, period, rng)
    if ('reason' in next) {
      pausedReason = next.reason
      break
    }
    inst = next
    chargedHere += p.chargeNano
    if (offset >= counts.length) break
  }
  let note = lateRowsNote(a, nowMs)
  if (pausedReason !== null && offset < counts.length) {
    note += ` The instance's last fire came at predicate ${offset} of ${counts.length}; the ${counts.length - offset} predicates after it were not evaluated in this ${a.period}.`
  }
  recordPeriod(
    db,
    a,
    period,
    { releaseId: firstInstance.release_id, instanceId: firstInstance.id, fired, chargeNano: chargedHere, failed: false, note },
    nowMs
  )
  if (pausedReason !== null) pause(db, a, pausedReason)
  return done(a, p, period, fromIso, toIso, fired, chargedHere, firstInstance.ordinal, false)
}

/** One period in one IMMEDIATE transaction: evaluated once, or found done by another evaluator, or the alarm pauses. */
function evaluatePeriod(db: Db, alarmId: number, period: number, nowMs: number, rng: Rng, opts: EvaluateOptions): PeriodOutcome {
  // In the service, an alarm's charges are its account's: admitted on that account's allotment and recorded with it,
  // whoever runs the evaluation (the service's clock, the custodian).
  const owner = ownerOf(db, alarmId)
  return owner === null
    ? evaluatePeriodTx(db, alarmId, period, nowMs, rng, opts)
    : asCaller(owner, () => evaluatePeriodTx(db, alarmId, period, nowMs, rng, opts))
}

function ownerOf(db: Db, alarmId: number): Principal | null {
  const r = db.prepare('SELECT a.id, a.name, a.role FROM alarms l JOIN accounts a ON a.id = l.account_id WHERE l.id = ?').get(alarmId) as
    { id: number; name: string; role: Role } | undefined
  return r === undefined ? null : { accountId: r.id, name: r.name, roles: [r.role] }
}

function evaluatePeriodTx(db: Db, alarmId: number, period: number, nowMs: number, rng: Rng, opts: EvaluateOptions): PeriodOutcome {
  return db
    .transaction((): PeriodOutcome => {
      const a = alarmRow(db, alarmId)
      if (a.status !== 'watching') return { kind: 'stopped' }
      const last = (db.prepare('SELECT MAX(period) AS p FROM alarm_periods WHERE alarm_id = ?').get(a.id) as { p: number | null }).p
      const next = last === null ? 0 : last + 1
      if (period < next) return { kind: 'already' }
      if (period > next) throw new Error(`alarm ${a.id}: period ${period} asked before period ${next}`)
      const problem = signedAlarmProblem(a, inspectWorkspace(db))
      if (problem !== null) return pause(db, a, `Paused: ${problem}; the officer must sign the alarm again.`)
      const p = paramsOf(a)
      const def = JSON.parse(a.definition) as ThresholdQueryDefinition
      return a.mode === 'when-fires'
        ? evaluateSvtPeriod(db, a, p, def, period, nowMs, rng, opts)
        : evaluateThresholdPeriod(db, a, p, def, period, nowMs, rng, opts)
    })
    .immediate()
}

/**
 * Evaluates the due periods of the watching alarms at `now` with `rng`, which must be the product's secure generator
 * (a release never uses a seeded one). Each alarm's periods in order, each in its own transaction.
 */
export function evaluateDueAlarms(db: Db, now: Date, rng: Rng, options: EvaluateOptions = {}): RunDueResult {
  assertSecure(rng)
  const nowMs = now.getTime()
  if (!Number.isSafeInteger(nowMs)) throw new RangeError('now must be a valid time')
  const max = options.maxPeriods ?? MAX_PERIODS_PER_RUN
  const ids =
    options.alarmId !== undefined
      ? [alarmRow(db, options.alarmId).id]
      : (db.prepare(`SELECT id FROM alarms WHERE status = 'watching' ORDER BY id`).all() as Array<{ id: number }>).map((r) => r.id)
  const result: RunDueResult = { now: now.toISOString(), evaluated: [], paused: [], more: [] }
  for (const id of ids) {
    const a = alarmRow(db, id)
    if (a.status !== 'watching') continue
    const due = duePeriods(db, a, nowMs, max + 1)
    if (due === null) continue
    const through = Math.min(due.through, due.from + max - 1)
    if (due.through > through) result.more.push(id)
    for (let period = due.from; period <= through; period++) {
      const out = evaluatePeriod(db, id, period, nowMs, rng, options)
      if (out.kind === 'done') {
        result.evaluated.push(out.entry)
        for (const e of out.events) options.emit?.(e)
      }
      const after = alarmRow(db, id)
      if (after.status !== 'watching') {
        if (after.paused_reason !== null && (out.kind === 'paused' || out.kind === 'done'))
          result.paused.push({ alarmId: id, reason: after.paused_reason })
        break
      }
      if (out.kind === 'stopped') break
    }
  }
  return result
}

/** `evaluateDueAlarms` with a fresh secure generator: what the doors call (the CLI's run-due, the service's clock). */
export function runDueAlarms(db: Db, now: Date, options: EvaluateOptions = {}): RunDueResult {
  return evaluateDueAlarms(db, now, SecureRandom.create(), options)
}
