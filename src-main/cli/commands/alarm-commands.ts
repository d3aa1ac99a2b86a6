/**
 * `alarm create|preview|list|show|pause|resume|run-due|history`: continual alarms (ALGORITHMS.md section 7). Creating is
 * an officer act (signed; the passphrase is read as for every officer act). `alarm run-due` evaluates every closed
 * period not yet evaluated, each once: run it from a cron job or a systemd timer in the workbench.
 */
import type { AlarmPeriodView, AlarmView, CreateAlarmRequest, RunDueResult } from '../../contract/alarms'
import { ALARM_MODES, ALARM_PERIODS, MAX_FIRES, MAX_GRACE_SECONDS } from '../../contract/schemas/alarms'
import { THRESHOLD_RELEASE_MECHANISMS } from '../../contract/release-params'
import { checkRequest } from '../../services'
import {
  type Store,
  alarmHistory,
  alarmRow,
  alarmView,
  createAlarm,
  listAlarms,
  parseInstant,
  pauseAlarm,
  planAlarm,
  resumeAlarm,
  runDueAlarms
} from '../../services/local'
import { type CliCommand, type CliValues, UsageError, choice, optNumber, optString, reqNumber, reqString } from '../command'
import { OFFICER_OPTIONS, readPassphrase } from '../passphrase'
import { openWorkspace } from '../workspace'

/** A grace as seconds, or with a unit: 90, 90s, 15m, 2h, 1d. */
export function parseGrace(raw: string): number {
  const m = /^\s*(\d+)\s*([smhd]?)\s*$/.exec(raw)
  const n = m ? Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'] : NaN
  if (!Number.isSafeInteger(n) || n > MAX_GRACE_SECONDS) {
    throw new UsageError(`--grace must be a duration of at most 7 days: seconds (90) or with a unit (90s, 15m, 2h, 1d) (got "${raw}")`)
  }
  return n
}

function alarmId(values: CliValues): number {
  return reqNumber(values, 'alarm', { integer: true, ge: 1 })
}

function alarmLine(a: AlarmView): string {
  const state = a.status === 'watching' ? `watching, next ${a.period} due ${a.nextDueAt}` : `${a.status.toUpperCase()}: ${a.statusReason ?? ''}`
  return (
    `${String(a.alarmId).padStart(3)}  "${a.name}" on "${a.datasetName}" (${a.mode}, every ${a.period}): ${state}; ` +
    `${a.periodsEvaluated} evaluated, ${a.periodsFired} fired, charged epsilon ${a.spentExact}${a.lifetimeExact === null ? '' : ` of ${a.lifetimeExact}`}`
  )
}

function alarmText(a: AlarmView): string {
  return [
    alarmLine(a),
    `  ${a.modeText}`,
    `  Unit protected: ${a.unit}. Charge: epsilon ${a.chargeExact} ${a.mode === 'when-fires' ? 'per instance' : 'per period'}.`,
    `  Accuracy: ${a.guarantee}`,
    ...(a.instance ? [`  Instance ${a.instance.ordinal} running, ${a.instance.firesLeft} fire(s) left.`] : []),
    ...(a.projection ? [`  ${a.projection}`] : []),
    `  Signed by ${a.signedBy} (ledger entry ${a.ledgerSeq}): ${a.reason}`,
    `  ${a.lateRowsText}`
  ].join('\n')
}

function periodLine(p: AlarmPeriodView): string {
  const what = p.status === 'failed' ? 'FAILED (the charge stands)' : p.fired.length ? `FIRED: ${p.fired.join('; ')}` : 'quiet'
  return `  ${String(p.period).padStart(5)}  ${p.from}  ${what}${p.charge > 0 ? `  (charged ${p.chargeExact})` : ''}${p.instance !== null ? `  [instance ${p.instance}]` : ''}`
}

function runText(r: RunDueResult): string {
  const lines = [`Run at ${r.now}: ${r.evaluated.length} period(s) evaluated.`]
  for (const e of r.evaluated) {
    lines.push(
      `  alarm ${e.alarmId} period ${e.period}: ${e.status === 'failed' ? 'failed' : e.fired.length ? `fired ${e.fired.join('; ')}` : 'quiet'}`
    )
  }
  for (const p of r.paused) lines.push(`  alarm ${p.alarmId} ${p.reason}`)
  for (const id of r.more) lines.push(`  alarm ${id} has more due periods: run again`)
  return lines.join('\n')
}

/** The request as the doors check it (one sentence naming the field), from the options. */
function alarmRequest(values: CliValues): Omit<CreateAlarmRequest, 'reason' | 'officer' | 'passphrase'> {
  const mode = optString(values, 'mode')
  const mechanism = optString(values, 'mechanism')
  const grace = optString(values, 'grace')
  const fires = optString(values, 'fires')
  const start = reqString(values, 'start')
  parseInstant(start, '--start')
  const lifetime = optString(values, 'lifetime')
  return {
    queryId: reqNumber(values, 'query', { integer: true, ge: 1 }),
    ...(optString(values, 'name') ? { name: optString(values, 'name') } : {}),
    timeColumn: reqString(values, 'time-column'),
    period: choice('period', reqString(values, 'period'), ALARM_PERIODS),
    start,
    ...(grace === undefined ? {} : { graceSeconds: parseGrace(grace) }),
    ...(mode === undefined ? {} : { mode: choice('mode', mode, ALARM_MODES) }),
    ...(mechanism === undefined ? {} : { mechanism: choice('mechanism', mechanism, THRESHOLD_RELEASE_MECHANISMS) }),
    beta: reqNumber(values, 'beta', { gt: 0, lt: 0.5 }),
    alpha: reqNumber(values, 'alpha', { gt: 0 }),
    ...(fires === undefined ? {} : { fires: optNumber(values, 'fires', 1, { integer: true, ge: 1, le: MAX_FIRES }) }),
    ...(lifetime === undefined ? {} : { lifetime })
  }
}

function checked<T>(method: 'alarms/create' | 'alarms/preview', req: T): T {
  const c = checkRequest(method, req)
  if (!c.ok) throw new UsageError(c.error.message)
  return c.req as T
}

function withStore<T>(values: CliValues, cwd: string, f: (db: Store['db']) => T): T {
  const store = openWorkspace(values, cwd, { create: false })
  try {
    return f(store.db)
  } finally {
    store.close()
  }
}

const CREATE_OPTIONS = ['query', 'time-column', 'period', 'start', 'beta', 'alpha']

export const alarmCommand: CliCommand = {
  name: 'alarm',
  summary:
    'Continual alarms: watch a saved threshold question every hour, day or week (create is an officer act), list, show, pause, resume, evaluate the due periods (run-due, for cron or a systemd timer), history',
  usage:
    'alarm create --db W --query N --time-column C --period hour|day|week --start ISO [--mode per-period|when-fires] --beta B --alpha A [--fires C] [--lifetime E] [--grace D] --reason R ' +
    '[--officer O --passphrase-file F] | alarm preview (the same, without --reason) | alarm list --db W | alarm show|pause|resume|history --db W --alarm ID | alarm run-due --db W [--now ISO] [--alarm ID]',
  subcommands: ['create', 'preview', 'list', 'show', 'pause', 'resume', 'run-due', 'history'],
  required: (_v, pos) => {
    const sub = pos[0] ?? 'list'
    if (sub === 'create') return [...CREATE_OPTIONS, 'reason']
    if (sub === 'preview') return CREATE_OPTIONS
    if (sub === 'show' || sub === 'pause' || sub === 'resume' || sub === 'history') return ['alarm']
    return []
  },
  options: {
    db: { type: 'string', description: 'workspace database file', defaultText: '$QUIET_ALARM_DB or the user data folder' },
    query: { type: 'string', description: 'create: the saved threshold question watched (its id)' },
    name: { type: 'string', description: "create: the alarm's name", defaultText: '"<query>, every <period>"' },
    'time-column': { type: 'string', description: 'create: the timestamp column that places a row in its period' },
    period: { type: 'string', description: `create: ${ALARM_PERIODS.join(' | ')}` },
    start: { type: 'string', description: 'create: when period 0 begins (ISO 8601; without a zone, UTC)' },
    mode: {
      type: 'string',
      description:
        'create: per-period (person-level: person-period unit, budget renewing per period) | when-fires (sparse vector: pays per c fires) | row-level (row-level datasets)',
      defaultText: 'row-level on a row-level dataset, per-period on a person-level one'
    },
    mechanism: { type: 'string', description: `create, row-level and per-period: ${THRESHOLD_RELEASE_MECHANISMS.join(' | ')}`, defaultText: 'tslm' },
    beta: { type: 'string', description: 'create: a predicate over its threshold in a period is missed with probability at most beta' },
    alpha: { type: 'string', description: 'create: predicates within 2 alpha under their threshold may fire' },
    fires: { type: 'string', description: 'create, when-fires: the fires one instance covers (c)', defaultText: '1' },
    lifetime: {
      type: 'string',
      description: 'create: the most epsilon the alarm may charge in its lifetime',
      defaultText: 'when-fires: one instance; otherwise none of its own'
    },
    grace: { type: 'string', description: 'create: wait this long after a period ends (90, 15m, 2h, 1d)', defaultText: '0' },
    reason: { type: 'string', description: 'create: why (recorded in the ledger); pause: why (shown beside the alarm)' },
    alarm: { type: 'string', description: 'show, pause, resume, history, run-due: the alarm id' },
    analyst: { type: 'string', description: 'create (service): the analyst account the alarm is for (its allotment is charged)' },
    now: { type: 'string', description: 'run-due: the time taken as now (ISO 8601)', defaultText: 'the clock' },
    limit: { type: 'string', description: 'history: periods shown, newest first', defaultText: '500' },
    ...OFFICER_OPTIONS
  },
  helpNotes: {
    'run-due':
      'Each closed period (its end plus the grace has passed) is evaluated once, in order; running it again, at once or with the clock set back, evaluates nothing twice. ' +
      'From cron: "*/5 * * * * quiet-alarm alarm run-due --db W --json".'
  },
  async run(values, positionals, ctx) {
    const sub = positionals[0] ?? 'list'
    switch (sub) {
      case 'preview': {
        const req = checked('alarms/preview', alarmRequest(values))
        const p = withStore(values, ctx.cwd, (db) => planAlarm(db, req).preview)
        const text = [
          `Alarm on "${p.datasetName}", query "${p.queryName}" (${p.mode}):`,
          `  ${p.modeText}`,
          `  Charge: epsilon ${p.chargeExact} (${p.chargeExplained})`,
          `  Lifetime: ${p.lifetimeText}`,
          `  Accuracy: ${p.guarantee}`,
          ...p.warnings.map((w) => `  Warning: ${w}`)
        ].join('\n')
        return { json: { preview: p }, text }
      }
      case 'create': {
        const base = alarmRequest(values)
        const reason = reqString(values, 'reason')
        const officer = optString(values, 'officer')
        const analyst = optString(values, 'analyst') === undefined ? undefined : reqNumber(values, 'analyst', { integer: true, ge: 1 })
        const req = checked('alarms/create', { ...base, reason, ...(officer ? { officer } : {}), ...(analyst === undefined ? {} : { analyst }) })
        const passphrase = await readPassphrase(values, ctx, { label: "The privacy officer's passphrase" })
        const alarm = withStore(values, ctx.cwd, (db) => createAlarm(db, { ...req, passphrase }))
        return { json: { alarm }, text: `Alarm ${alarm.alarmId} signed and watching.\n${alarmText(alarm)}` }
      }
      case 'list': {
        const alarms = withStore(values, ctx.cwd, (db) => listAlarms(db, null, null))
        return {
          json: { alarms },
          text: alarms.length ? alarms.map(alarmLine).join('\n') : 'No alarms yet; the officer creates one with "quiet-alarm alarm create".'
        }
      }
      case 'show': {
        const alarm = withStore(values, ctx.cwd, (db) => alarmView(db, alarmRow(db, alarmId(values))))
        return { json: { alarm }, text: alarmText(alarm) }
      }
      case 'pause': {
        const alarm = withStore(values, ctx.cwd, (db) => pauseAlarm(db, alarmId(values), optString(values, 'reason')))
        return { json: { alarm }, text: alarmLine(alarm) }
      }
      case 'resume': {
        const alarm = withStore(values, ctx.cwd, (db) => resumeAlarm(db, alarmId(values)))
        return { json: { alarm }, text: alarmLine(alarm) }
      }
      case 'history': {
        const limit = optNumber(values, 'limit', 500, { integer: true, ge: 1, le: 10_000 })
        const h = withStore(values, ctx.cwd, (db) => alarmHistory(db, alarmId(values), { limit }))
        const periods = h.periods.map((p) => ({ ...p, charge: p.charge }))
        return {
          json: { alarm: h.alarm, periods, total: h.total },
          text: [alarmLine(h.alarm), ...h.periods.map(periodLine), `  ${h.alarm.lateRowsText}`].join('\n')
        }
      }
      case 'run-due': {
        const nowRaw = optString(values, 'now')
        const now = nowRaw === undefined ? new Date() : new Date(parseInstant(nowRaw, '--now'))
        const id = optString(values, 'alarm') === undefined ? undefined : alarmId(values)
        const r = withStore(values, ctx.cwd, (db) => runDueAlarms(db, now, id === undefined ? {} : { alarmId: id }))
        return { json: { ...r }, text: runText(r) }
      }
      default:
        throw new UsageError(`"alarm" takes one of: create, preview, list, show, pause, resume, run-due, history (got "${sub}")`)
    }
  }
}
