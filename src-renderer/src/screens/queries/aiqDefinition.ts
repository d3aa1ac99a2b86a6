/**
 * The anomaly identification form's state and the definition it stands for (pure: no React, unit-tested in
 * test/unit/renderer/query-builders.test.ts). Every "not yet" is one sentence saying what to do; the save button shows it.
 */
import type { AnomalyIdentificationDefinition, DatasetInfo } from '../../../../src-main/contract'
import { AIQ_PERSON_BOUND_DEFAULT } from '../../../../src-main/contract/release-params'
import { joinValue, parseNumber, splitValues } from './thresholdDefinition'

export interface AiqForm {
  /** The columns describing a record, in the order chosen. */
  chosen: string[]
  /** Bin width per numeric column, as typed. */
  bins: Record<string, string>
  metric: AnomalyIdentificationDefinition['metric']
  radius: string
  /** The neighbour limit: at most this many records (persons, on person-level data) within the radius is an anomaly. */
  maxNeighbours: string
  k: string
  /** One record per line, values in the order of `chosen`, comma separated ("..." holds a comma). */
  records: string
  /** Person-level datasets: the most rows one person counts in one bin near a record asked. */
  rowsPerBin: string
  /** Person-level datasets: the most bins within the radius one person counts in (the record's own bin first). */
  binsPerPerson: string
}

export const BLANK_AIQ_FORM: AiqForm = {
  chosen: [],
  bins: {},
  metric: 'l1',
  radius: '1',
  maxNeighbours: '',
  k: '5',
  records: '',
  rowsPerBin: String(AIQ_PERSON_BOUND_DEFAULT.rowsPerBin),
  binsPerPerson: String(AIQ_PERSON_BOUND_DEFAULT.binsPerPerson)
}

/** The columns a record may be described by (timestamps are not offered). */
export function aiqColumns(dataset: DatasetInfo): DatasetInfo['columns'] {
  return dataset.columns.filter((c) => c.type !== 'timestamp')
}

/**
 * Why the dataset's time columns are not offered, or null when it has none: a record is described by values compared
 * in bins, and time alone singles no record out (in a time series every time has the same few rows around it).
 */
export function timeColumnsHint(dataset: DatasetInfo): string | null {
  const times = dataset.columns.filter((c) => c.type === 'timestamp').map((c) => `“${c.name}”`)
  if (times.length === 0) return null
  return (
    `${times.join(', ')} ${times.length === 1 ? 'is' : 'are'} not offered: a record is described by values compared in bins, and in a time series ` +
    'every time has the same few rows around it, so time alone singles no record out. Describe a record by what was measured; to ask which ' +
    'hours or days are unusual, use a threshold query grouped by hour or day.'
  )
}

/** How to choose a numeric column's bin width, from no data (the form reads none). */
export const BIN_WIDTH_HINT =
  'Values less than one bin apart count as the same; the radius is in bins. Start near the difference you would call ordinary, ' +
  'e.g. a tenth to a twentieth of the usual range (5 for values that usually lie between 0 and 100).'

/** The definition, or one sentence saying what is missing. */
export function buildAiqDefinition(form: AiqForm, dataset: DatasetInfo): AnomalyIdentificationDefinition | string {
  const cols = aiqColumns(dataset)
  const { chosen } = form
  if (chosen.length === 0) return 'Choose the columns that describe a record.'
  const binWidths: Array<number | null> = []
  for (const name of chosen) {
    const c = cols.find((x) => x.name === name)
    if (!c) return `“${name}” is not a column of “${dataset.name}”: choose the columns again.`
    if (c.type === 'text') binWidths.push(null)
    else {
      const b = parseNumber(form.bins[name] ?? '')
      if (b === null || b <= 0) return `Give the bin width of "${name}" (> 0): values in one bin count as equal.`
      binWidths.push(b)
    }
  }
  const r = parseNumber(form.radius)
  const nb = parseNumber(form.maxNeighbours)
  const kk = parseNumber(form.k)
  const personLevel = dataset.unit.kind === 'person'
  if (r === null || r < 0) return 'Give the radius (in bins): records within it are neighbours.'
  if (nb === null || !Number.isInteger(nb) || nb < 1)
    return `Give the neighbour limit (a whole number): a record with at most that many ${personLevel ? 'persons' : 'records'} within the radius is an anomaly.`
  if (kk === null || !Number.isInteger(kk) || kk < 1) return 'Give k (a whole number): how many added records a sensitive record tolerates.'
  const records = form.records
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) =>
      splitValues(l).map((v, j) => {
        const c = cols.find((x) => x.name === chosen[j])
        const n = Number(v)
        return c && c.type !== 'text' && v !== '' && Number.isFinite(n) ? n : v
      })
    )
  if (records.length === 0) return 'List at least one record to ask about, one per line.'
  const d: AnomalyIdentificationDefinition = {
    kind: 'anomaly-identification',
    columns: [...chosen],
    binWidths,
    metric: form.metric,
    radius: r,
    maxNeighbours: nb,
    k: kk,
    records
  }
  if (personLevel) {
    const rb = parseNumber(form.rowsPerBin)
    const bp = parseNumber(form.binsPerPerson)
    if (rb === null || !Number.isInteger(rb) || rb < 1) return 'Rows per bin is a whole number, 1 or more (1: a person counts once in a bin).'
    if (bp === null || !Number.isInteger(bp) || bp < 1)
      return 'Bins per person is a whole number, 1 or more (1: a person counts in one bin near a record).'
    d.rowsPerBin = rb
    d.binsPerPerson = bp
  }
  return d
}

/** A saved definition back in the form (to edit it as its next version); `buildAiqDefinition` gives it again. */
export function aiqFormFromDefinition(def: AnomalyIdentificationDefinition): AiqForm {
  const bins: Record<string, string> = {}
  def.columns.forEach((c, i) => {
    const b = def.binWidths[i]
    if (b !== null && b !== undefined) bins[c] = String(b)
  })
  return {
    chosen: [...def.columns],
    bins,
    metric: def.metric,
    radius: String(def.radius),
    maxNeighbours: String(def.maxNeighbours),
    k: String(def.k),
    records: (def.records ?? []).map((r) => r.map(joinValue).join(', ')).join('\n'),
    rowsPerBin: String(def.rowsPerBin ?? AIQ_PERSON_BOUND_DEFAULT.rowsPerBin),
    binsPerPerson: String(def.binsPerPerson ?? AIQ_PERSON_BOUND_DEFAULT.binsPerPerson)
  }
}
