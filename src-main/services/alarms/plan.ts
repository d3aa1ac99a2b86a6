/**
 * An alarm's plan: from the saved threshold question and the request only (public inputs, ALGORITHMS.md section 5),
 * before anything is signed or read. It fixes the mode, the unit protected, each charge (a period's threshold release,
 * or a when-fires instance's least epsilon for beta, alpha and c, computed exactly by the engine), the lifetime cap and
 * every sentence the officer reads before signing.
 */
import type Database from 'better-sqlite3'
import type { AlarmMode, AlarmPreview, AlarmPreviewRequest, AlarmSplit } from '../../contract/alarms'
import type { PrivacyUnit, ThresholdQueryDefinition } from '../../contract/datasets'
import type { PrivacyNotion } from '../../contract/ledger'
import { PERIOD_MS } from '../../../src-worker/engine/alarms/periods'
import { type SvtSplit, leastEpsilonSplit, leastEpsilonSplitWithinCap } from '../../../src-worker/engine/alarms/sparse-vector'
import { UserError } from '../platform/errors'
import { decimalToNano, floatToNanoUp, nanoToDecimal, nanoToDisplay, nanoToNumber } from '../chain/nano-epsilon'
import { NOTION_LABEL } from '../chain/notions'
import { getDataset } from '../catalog/catalog'
import { findColumn } from '../catalog/columns'
import { datasetUnit } from '../trust/privacy-unit'
import { type SavedQueryRow, loadSavedQuery, thresholdDefinition } from '../releases/inputs'
import { publicThreshold } from '../releases/threshold-adapter'
import { thresholdKind } from '../releases/kinds/threshold'
import { num, pct } from '../releases/guarantee'
import type { AlarmParams } from './alarm-store'

type Db = Database.Database

export interface AlarmPlan {
  query: SavedQueryRow
  datasetName: string
  def: ThresholdQueryDefinition
  mode: AlarmMode
  notion: PrivacyNotion
  unit: PrivacyUnit
  period: AlarmPreviewRequest['period']
  startIso: string
  graceSeconds: number
  timeColumn: string
  name: string
  lifetimeNano: number | null
  params: AlarmParams
  preview: AlarmPreview
}

/** ISO 8601 (a time without a zone is UTC) to whole milliseconds, or one sentence. */
export function parseInstant(text: string, what: string): number {
  const t = text.trim()
  const zoned = /([zZ]|[+-]\d\d:?\d\d)$/.test(t) || /^\d{4}-\d\d-\d\d$/.test(t) ? t : `${t.replace(' ', 'T')}Z`
  const ms = Date.parse(zoned)
  if (!/^\d{4}-\d\d-\d\d/.test(t) || !Number.isFinite(ms)) {
    throw new UserError(`${what} must be an ISO 8601 time such as 2026-01-01T00:00:00Z (got "${t.slice(0, 40)}")`)
  }
  return ms
}

const UNIT_OF_PERIOD = { hour: 'person-hour', day: 'person-day', week: 'person-week' } as const

/** The saved question with the period's range [from, to) on the time column (everything else as frozen). */
export function periodDefinition(def: ThresholdQueryDefinition, timeColumn: string, fromMs: number, toMs: number): ThresholdQueryDefinition {
  return { ...def, period: { column: timeColumn, from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() } }
}

export function periodQuery(query: SavedQueryRow, def: ThresholdQueryDefinition): SavedQueryRow {
  return { ...query, definition: def }
}

function resolveMode(asked: AlarmMode | undefined, unit: PrivacyUnit): AlarmMode {
  if (unit.kind === 'row') return asked === 'when-fires' ? 'when-fires' : 'row-level'
  if (asked === 'row-level') {
    throw new UserError(
      'Mode row-level is for datasets where each row is a different person; this dataset is person-level: choose per-period or when-fires'
    )
  }
  return asked ?? 'per-period'
}

function lifetimeOf(raw: number | string | undefined): number | null {
  if (raw === undefined) return null
  let nano: number
  try {
    nano = decimalToNano(raw, 'down')
  } catch {
    throw new UserError(`The lifetime cap must be a decimal number of epsilon greater than 0, e.g. 10 (got "${String(raw)}")`)
  }
  if (nano <= 0) throw new UserError('The lifetime cap must be greater than 0')
  return nano
}

function splitView(s: SvtSplit, chargeNano: number): AlarmSplit {
  return {
    epsilon: nanoToNumber(chargeNano),
    epsilonExact: nanoToDecimal(chargeNano),
    eps1: s.eps1,
    eps2: s.eps2,
    shift: s.shift,
    bound: s.bound,
    missBound: s.missBound,
    instances: s.instances
  }
}

/** Everything about an alarm that is fixed when it is signed, from public inputs only. */
export function planAlarm(db: Db, req: AlarmPreviewRequest): AlarmPlan {
  const { query, datasetName } = loadSavedQuery(db, req.queryId)
  if (query.definition.kind !== 'threshold') {
    throw new UserError(`Query "${query.name}" is not a threshold question; an alarm watches a saved threshold question`)
  }
  const def = thresholdDefinition(query)
  if (def.period !== undefined) {
    throw new UserError(`Query "${query.name}" has a period of its own; an alarm sets the period it reads (save the question without one)`)
  }
  const ds = getDataset(db, query.datasetId)
  const col = findColumn(ds, req.timeColumn, 'time column')
  if (col.type !== 'timestamp') throw new UserError(`The time column "${col.name}" holds ${col.type} values; an alarm needs a timestamp column`)
  const startMs = parseInstant(req.start, 'start')
  const graceSeconds = req.graceSeconds ?? 0
  const unit = datasetUnit(db, query.datasetId)
  const mode = resolveMode(req.mode, unit)
  const lifetimeNano = lifetimeOf(req.lifetime)
  const pub = publicThreshold(db, query.datasetId, def)
  const group = pub.groupBy.length === 1 ? pub.groupBy[0] : `(${pub.groupBy.join(', ')})`
  const periodWord = req.period
  const warnings: string[] = []
  if (mode === 'when-fires' && req.mechanism !== undefined)
    warnings.push('The mechanism applies to per-period and row-level alarms; when-fires uses the sparse vector technique.')
  if (mode !== 'when-fires' && req.fires !== undefined) warnings.push('Fires (c) apply to when-fires alarms only.')

  let chargeNano: number
  let chargeExplained: string
  let guarantee: string
  let notion: PrivacyNotion
  let split: SvtSplit | null = null
  let unitText: string
  let modeText: string
  let lifetimeText: string
  const fires = req.fires ?? 1
  if (mode === 'when-fires') {
    if (def.threshold.kind === 'reference') {
      throw new UserError(
        'A when-fires alarm needs public thresholds (a constant or a public table); a reference threshold is computed from the data: use per-period'
      )
    }
    const acc = { beta: req.beta, alpha: req.alpha, c: fires, sensitivity: pub.sensitivity, monotone: true }
    if (lifetimeNano === null) split = leastEpsilonSplit(acc)
    else {
      split = leastEpsilonSplitWithinCap({ ...acc, lifetimeCap: nanoToNumber(lifetimeNano) })
      if (split === null) {
        const one = leastEpsilonSplit(acc)
        throw new UserError(
          `The lifetime cap of epsilon ${nanoToDisplay(lifetimeNano, 'down')} is below one instance's least epsilon for beta ${num(req.beta)}, alpha ${num(req.alpha)} and ${fires} fire${fires === 1 ? '' : 's'} (${nanoToDisplay(floatToNanoUp(one.eps))}); raise the cap or ask for less accuracy`
        )
      }
    }
    chargeNano = floatToNanoUp(split.eps)
    notion = 'eps-dp'
    unitText = unit.kind === 'row' ? 'row' : 'person'
    chargeExplained =
      `the least eps = eps1 + eps2 with P(miss) <= ${num(req.beta)} at shift alpha/2 = ${num(req.alpha / 2)}, sensitivity ${num(pub.sensitivity)} and ${fires} fire${fires === 1 ? '' : 's'} ` +
      `(${split.bound === 'stream' ? `the bound over the ${split.instances} instances the lifetime cap allows` : 'one instance'}): eps1 ${num(split.eps1)} + eps2 ${num(split.eps2)} = ${nanoToDisplay(chargeNano)}`
    modeText = `Pays only when it fires: epsilon ${nanoToDisplay(chargeNano)} for every ${fires === 1 ? 'fire' : `${fires} fires`}, and for unlimited quiet ${periodWord}s.`
    guarantee =
      `While an instance runs, each ${group} whose ${pub.countText} is at or over its threshold in a ${periodWord} is missed with probability at most ${pct(split.missBound)}, ` +
      `and one at least ${num(req.alpha)} under its threshold fires with probability at most ${pct(split.missBound)}; a false fire uses up one of the ${fires} fire${fires === 1 ? '' : 's'} of its instance. ` +
      `Privacy: ${NOTION_LABEL['eps-dp']}, epsilon ${nanoToDisplay(chargeNano)} per instance for each ${unitText} over the whole stream (unlimited quiet ${periodWord}s and up to ${fires} fire${fires === 1 ? '' : 's'}).`
    const cap = lifetimeNano ?? chargeNano
    const instances = Math.floor(cap / chargeNano)
    lifetimeText =
      lifetimeNano === null
        ? `One instance (epsilon ${nanoToDisplay(chargeNano)}): after ${fires === 1 ? 'its fire' : `its ${fires} fires`} the alarm pauses and says so.`
        : `At most ${instances} instance${instances === 1 ? '' : 's'} within the lifetime cap of epsilon ${nanoToDisplay(lifetimeNano, 'down')} per ${unitText}: at most epsilon ${nanoToDisplay(instances * chargeNano)} in all, then the alarm pauses and says so.`
  } else {
    // A period's evaluation is an ordinary threshold release on the period's rows: its price and sentence are the
    // threshold kind's (the period's range does not change the price).
    const prepared = thresholdKind.prepare(
      db,
      periodQuery(query, periodDefinition(def, col.name, startMs, startMs + PERIOD_MS[req.period])),
      datasetName,
      {
        kind: 'threshold',
        mechanism: req.mechanism ?? 'tslm',
        beta: req.beta,
        alpha: req.alpha
      }
    )
    chargeNano = prepared.chargeNano
    chargeExplained = prepared.chargeExplained
    notion = prepared.notion
    warnings.push(...(prepared.warnings ?? []))
    const base = prepared.guarantee.replace(/ Privacy: .*$/, '')
    if (mode === 'row-level') {
      unitText = 'row'
      modeText = `Rows are separate people: watching costs one ${periodWord}'s price for ever (epsilon ${nanoToDisplay(chargeNano)} per row, whatever the number of ${periodWord}s).`
      guarantee = `${base} Privacy: ${NOTION_LABEL[notion]}, epsilon ${nanoToDisplay(chargeNano)} for each row, once: a row lies in one ${periodWord} only.`
      lifetimeText = `A row lies in one ${periodWord}: its lifetime loss is one ${periodWord}'s price, epsilon ${nanoToDisplay(chargeNano)}, whatever the number of ${periodWord}s.`
    } else {
      unitText = UNIT_OF_PERIOD[req.period]
      modeText =
        `Each ${unitText} protected at epsilon ${nanoToDisplay(chargeNano)}: the budget renews every ${periodWord}. ` +
        `This is weaker than person-level privacy: a person present in every ${periodWord} loses epsilon ${nanoToDisplay(chargeNano)} per ${periodWord}.`
      guarantee = `${base} Privacy: ${NOTION_LABEL[notion]}, epsilon ${nanoToDisplay(chargeNano)} for each ${unitText} (per ${periodWord}, not per person).`
      const perDay = (chargeNano * 86_400_000) / PERIOD_MS[req.period]
      lifetimeText =
        `A person present in every ${periodWord} loses the sum of the ${periodWord}s' charges: epsilon ${nanoToDisplay(chargeNano)} per ${periodWord}` +
        (req.period === 'week' ? '' : ` (about ${nanoToDisplay(Math.ceil(perDay))} per day)`) +
        (lifetimeNano === null
          ? "; no lifetime cap of its own: the dataset's budgets bind."
          : `, at most epsilon ${nanoToDisplay(lifetimeNano, 'down')} in all (the lifetime cap: ${Math.floor(lifetimeNano / chargeNano)} ${periodWord}s), then the alarm pauses and says so.`)
    }
  }
  if (lifetimeNano !== null && lifetimeNano < chargeNano) {
    throw new UserError(
      `The lifetime cap of epsilon ${nanoToDisplay(lifetimeNano, 'down')} is below one charge of this alarm (${nanoToDisplay(chargeNano)}); raise the cap or ask for less accuracy`
    )
  }
  const name = (req.name ?? '').trim() || `${query.name}, every ${req.period}`
  // when-fires without a cap of its own: one instance.
  const cap = mode === 'when-fires' ? (lifetimeNano ?? chargeNano) : lifetimeNano
  const params: AlarmParams = {
    mechanism: mode === 'when-fires' ? null : (req.mechanism ?? 'tslm'),
    beta: req.beta,
    alpha: req.alpha,
    fires: mode === 'when-fires' ? fires : null,
    chargeNano,
    chargeExplained,
    eps1: split?.eps1 ?? null,
    eps2: split?.eps2 ?? null,
    shift: split?.shift ?? null,
    sensitivity: pub.sensitivity,
    unit: unitText,
    modeText,
    guarantee,
    groupBy: pub.keyNames
  }
  return {
    query,
    datasetName,
    def,
    mode,
    notion,
    unit,
    period: req.period,
    startIso: new Date(startMs).toISOString(),
    graceSeconds,
    timeColumn: col.name,
    name,
    lifetimeNano: cap,
    params,
    preview: {
      queryId: query.id,
      queryName: query.name,
      datasetId: query.datasetId,
      datasetName,
      mode,
      modeText,
      unit: unitText,
      charge: nanoToNumber(chargeNano),
      chargeExact: nanoToDecimal(chargeNano),
      chargeExplained,
      split: split === null ? null : splitView(split, chargeNano),
      lifetime: cap === null ? null : nanoToNumber(cap),
      lifetimeExact: cap === null ? null : nanoToDecimal(cap),
      lifetimeText,
      guarantee,
      warnings
    }
  }
}
