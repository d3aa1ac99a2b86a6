/**
 * The stored alarms and what anyone allowed to see them sees (contract/alarms.ts): rows of `alarms`, `alarm_instances`
 * and `alarm_periods` (migration 020) turned into public views. Nothing here reads the dataset, and nothing returned
 * holds a count, a noisy value or an instance's threshold noise.
 */
import type Database from 'better-sqlite3'
import type { AlarmHistory, AlarmMode, AlarmPeriodUnit, AlarmPeriodView, AlarmStatus, AlarmView } from '../../contract/alarms'
import { PERIOD_MS, closedThrough, periodRange } from '../../../src-worker/engine/alarms/periods'
import { UserError } from '../platform/errors'
import { nanoToDecimal, nanoToNumber } from '../chain/nano-epsilon'
import { cellLabel, cellKey } from '../ledger/cells'

type Db = Database.Database

/** The public parameters the officer signed (alarms.params, canonical JSON). */
export interface AlarmParams {
  mechanism: string | null
  beta: number
  alpha: number
  /** when-fires: c */
  fires: number | null
  /** row-level / per-period: each period's charge; when-fires: each instance's */
  chargeNano: number
  chargeExplained: string
  /** when-fires: the split (eps1 + eps2 = the charge) and the shift a = alpha / 2 */
  eps1: number | null
  eps2: number | null
  shift: number | null
  /** the count's sensitivity D (the cap; 1 for rows) */
  sensitivity: number
  /** the unit protected, in words: "row", "person-hour", "person" */
  unit: string
  modeText: string
  guarantee: string
  /** the group-by columns of the frozen definition (labels of fired predicates) */
  groupBy: string[]
}

export interface AlarmRow {
  id: number
  uid: string
  dataset_id: number
  query_id: number
  definition: string
  name: string
  time_column: string
  period: AlarmPeriodUnit
  start_at: string
  grace_seconds: number
  mode: AlarmMode
  params: string
  lifetime_cap_nano: number | null
  status: AlarmStatus
  paused_reason: string | null
  ledger_seq: number
  account_id: number | null
  created_at: string
}

export interface InstanceRow {
  id: number
  alarm_id: number
  ordinal: number
  release_id: number
  first_period: number
  fires_used: number
  state: 'running' | 'spent'
  rho: number
  ended_at: string | null
}

interface PeriodRow {
  alarm_id: number
  period: number
  release_id: number | null
  instance_id: number | null
  fired: string
  charge_nano: number
  status: 'answered' | 'failed'
  evaluated_at: string
  late_rows_note: string
}

/** What every answer of an alarm says of late rows (ALGORITHMS.md section 7). */
export const LATE_ROWS_TEXT =
  'Each period is evaluated once, when its end plus the grace has passed; rows that arrive for a period after it was evaluated are never counted.'

export const paramsOf = (a: AlarmRow): AlarmParams => JSON.parse(a.params) as AlarmParams

export function alarmRow(db: Db, alarmId: number, onlyAccount: number | null = null): AlarmRow {
  const row = db.prepare('SELECT * FROM alarms WHERE id = ?').get(alarmId) as AlarmRow | undefined
  // Another analyst's alarm is "no alarm" to an analyst narrowed to their own.
  if (!row || (onlyAccount !== null && row.account_id !== onlyAccount)) {
    throw new UserError(`There is no alarm with id ${alarmId}; list them with "quiet-alarm alarm list"`, 'not-found')
  }
  return row
}

export const startMs = (a: AlarmRow): number => Date.parse(a.start_at)

/** The spend of an alarm so far: the sum of its releases' charges (public: charges are data-independent). */
export function alarmSpentNano(db: Db, alarmId: number): number {
  const r = db
    .prepare(
      `SELECT COALESCE(SUM(charge_nano), 0) AS n FROM releases
       WHERE id IN (SELECT release_id FROM alarm_periods WHERE alarm_id = @a AND release_id IS NOT NULL
                    UNION SELECT release_id FROM alarm_instances WHERE alarm_id = @a)`
    )
    .get({ a: alarmId }) as { n: number }
  return r.n
}

export function runningInstance(db: Db, alarmId: number): InstanceRow | null {
  return (
    (db.prepare(`SELECT * FROM alarm_instances WHERE alarm_id = ? AND state = 'running' ORDER BY ordinal DESC LIMIT 1`).get(alarmId) as
      InstanceRow | undefined) ?? null
  )
}

/** The fired predicates' labels ("room = B-104"), from their key tuples and the group-by columns. */
export function firedLabels(groupBy: string[], keys: Array<Array<string | number | null>>): string[] {
  return keys.map((k) => cellLabel(cellKey(Object.fromEntries(groupBy.map((c, i) => [c, k[i] ?? null])))))
}

const PERIOD_WORD: Record<AlarmPeriodUnit, string> = { hour: 'hour', day: 'day', week: 'week' }

/** When the lifetime cap runs out at this rate, from the public schedule and past charges only (never counts). */
function projection(a: AlarmRow, p: AlarmParams, spentNano: number, evaluated: number, nowMs: number): string | null {
  if (a.lifetime_cap_nano === null) return null
  const left = a.lifetime_cap_nano - spentNano
  if (left < p.chargeNano) return `The lifetime cap (epsilon ${nanoToDecimal(a.lifetime_cap_nano)}) leaves less than one more charge.`
  if (a.mode === 'when-fires') {
    const more = Math.floor(left / p.chargeNano)
    return `The lifetime cap allows ${more} more instance${more === 1 ? '' : 's'} (${more * (p.fires ?? 1)} more fires at most); quiet periods cost nothing.`
  }
  const periods = Math.floor(left / p.chargeNano)
  const from = Math.max(nowMs, startMs(a) + evaluated * PERIOD_MS[a.period])
  const until = new Date(from + periods * PERIOD_MS[a.period]).toISOString()
  return `At one charge per ${PERIOD_WORD[a.period]}, the lifetime cap lasts ${periods} more period${periods === 1 ? '' : 's'}, until about ${until}.`
}

export function alarmView(db: Db, a: AlarmRow, nowMs = Date.now()): AlarmView {
  const p = paramsOf(a)
  const ds = db.prepare('SELECT name FROM datasets WHERE id = ?').get(a.dataset_id) as { name: string } | undefined
  const q = db.prepare('SELECT name FROM queries WHERE id = ?').get(a.query_id) as { name: string } | undefined
  const act = db.prepare('SELECT actor, description FROM ledger_entries WHERE seq = ?').get(a.ledger_seq) as
    { actor: string; description: string } | undefined
  const stats = db
    .prepare(
      `SELECT COUNT(*) AS n, MAX(period) AS last, SUM(CASE WHEN fired <> '[]' THEN 1 ELSE 0 END) AS fired FROM alarm_periods WHERE alarm_id = ?`
    )
    .get(a.id) as { n: number; last: number | null; fired: number | null }
  const spent = alarmSpentNano(db, a.id)
  const next = stats.last === null ? 0 : stats.last + 1
  const [, nextEnd] = periodRange(startMs(a), a.period, next)
  const inst = a.mode === 'when-fires' ? runningInstance(db, a.id) : null
  return {
    alarmId: a.id,
    uid: a.uid,
    name: a.name,
    datasetId: a.dataset_id,
    datasetName: ds?.name ?? '(deleted dataset)',
    queryId: a.query_id,
    queryName: q?.name ?? '(deleted query)',
    timeColumn: a.time_column,
    period: a.period,
    start: a.start_at,
    graceSeconds: a.grace_seconds,
    mode: a.mode,
    modeText: p.modeText,
    unit: p.unit,
    mechanism: p.mechanism,
    beta: p.beta,
    alpha: p.alpha,
    fires: p.fires,
    status: a.status,
    statusReason: a.status === 'watching' ? null : a.paused_reason,
    ledgerSeq: a.ledger_seq,
    signedBy: act?.actor ?? '',
    reason: act?.description ?? '',
    createdAt: a.created_at,
    charge: nanoToNumber(p.chargeNano),
    chargeExact: nanoToDecimal(p.chargeNano),
    lifetime: a.lifetime_cap_nano === null ? null : nanoToNumber(a.lifetime_cap_nano),
    lifetimeExact: a.lifetime_cap_nano === null ? null : nanoToDecimal(a.lifetime_cap_nano),
    spent: nanoToNumber(spent),
    spentExact: nanoToDecimal(spent),
    periodsEvaluated: stats.n,
    lastPeriod: stats.last,
    nextPeriod: next,
    nextDueAt: new Date(nextEnd + a.grace_seconds * 1000).toISOString(),
    periodsFired: stats.fired ?? 0,
    instance: inst === null ? null : { ordinal: inst.ordinal, firesLeft: (p.fires ?? 1) - inst.fires_used },
    projection: projection(a, p, spent, stats.n, nowMs),
    guarantee: p.guarantee,
    lateRowsText: LATE_ROWS_TEXT
  }
}

function periodView(a: AlarmRow, p: AlarmParams, r: PeriodRow, ordinals: Map<number, number>): AlarmPeriodView {
  const [from, to] = periodRange(startMs(a), a.period, r.period)
  const keys = JSON.parse(r.fired) as Array<Array<string | number | null>>
  return {
    period: r.period,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    fired: firedLabels(p.groupBy, keys),
    firedKeys: keys,
    charge: nanoToNumber(r.charge_nano),
    chargeExact: nanoToDecimal(r.charge_nano),
    instance: r.instance_id === null ? null : (ordinals.get(r.instance_id) ?? null),
    releaseId: r.release_id,
    status: r.status,
    evaluatedAt: r.evaluated_at,
    accuracy: p.guarantee,
    lateRowsNote: r.late_rows_note
  }
}

export function listAlarms(db: Db, datasetId: number | null, onlyAccount: number | null): AlarmView[] {
  const rows = db
    .prepare(`SELECT * FROM alarms WHERE (@d IS NULL OR dataset_id = @d) AND (@acc IS NULL OR account_id = @acc) ORDER BY id`)
    .all({ d: datasetId, acc: onlyAccount }) as AlarmRow[]
  const now = Date.now()
  return rows.map((r) => alarmView(db, r, now))
}

export function alarmHistory(db: Db, alarmId: number, opts: { limit?: number; offset?: number; onlyAccount?: number | null } = {}): AlarmHistory {
  const a = alarmRow(db, alarmId, opts.onlyAccount ?? null)
  const p = paramsOf(a)
  const rows = db
    .prepare('SELECT * FROM alarm_periods WHERE alarm_id = ? ORDER BY period DESC LIMIT ? OFFSET ?')
    .all(a.id, opts.limit ?? 500, opts.offset ?? 0) as PeriodRow[]
  const ordinals = new Map(
    (db.prepare('SELECT id, ordinal FROM alarm_instances WHERE alarm_id = ?').all(a.id) as Array<{ id: number; ordinal: number }>).map((r) => [
      r.id,
      r.ordinal
    ])
  )
  const total = (db.prepare('SELECT COUNT(*) AS n FROM alarm_periods WHERE alarm_id = ?').get(a.id) as { n: number }).n
  return { alarm: alarmView(db, a), periods: rows.map((r) => periodView(a, p, r, ordinals)), total }
}

/** The periods closed at `nowMs` and not yet evaluated, in order (a clock set back closes fewer: nothing is redone). */
export function duePeriods(db: Db, a: AlarmRow, nowMs: number, max: number): { from: number; through: number } | null {
  const through = closedThrough(startMs(a), a.period, a.grace_seconds * 1000, nowMs)
  const last = (db.prepare('SELECT MAX(period) AS p FROM alarm_periods WHERE alarm_id = ?').get(a.id) as { p: number | null }).p
  const from = last === null ? 0 : last + 1
  if (through < from) return null
  return { from, through: Math.min(through, from + max - 1) }
}
