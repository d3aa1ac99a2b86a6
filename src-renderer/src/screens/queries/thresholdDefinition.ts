/**
 * The threshold query form's state and the definition it stands for (pure: no React, unit-tested in
 * test/unit/renderer/query-builders.test.ts). The groups (the predicates) must be public (ALGORITHMS.md section 5):
 * listed in the form, taken from a public dataset's key tuples, or the rows of a public threshold table. Every
 * "not yet" is one sentence saying what to do; the save button shows it.
 */
import type { DatasetInfo, FilterCondition, FilterOperator, ThresholdQueryDefinition, ThresholdSpec } from '../../../../src-main/contract'
import { preferredPersonColumn, preferredThresholdTable } from './columnDefaultsDefinition'
import {
  MAX_LISTED_BUCKETS,
  type TimeBucketUnit,
  bucketCellColumn,
  bucketStartsBetween,
  parseWallClock
} from '../../../../src-main/contract/time-buckets'

export interface FilterRow {
  column: string
  op: FilterOperator
  value: string
}

export interface ThresholdForm {
  groupBy: string[]
  filters: FilterRow[]
  period: { on: boolean; column: string; from: string; to: string }
  /** maxGroups: '' = no bound (a person may add to every group, and the charge covers that). */
  count: { kind: 'rows' | 'persons'; personColumn: string; cap: string; maxGroups?: string }
  threshold: {
    kind: ThresholdSpec['kind']
    constant: string
    /** Column thresholds: the public table (its id as text) and column, and the table's column matching each group-by column. */
    datasetId: string
    column: string
    on: Record<string, string>
    reference: { factor: string; aggregate: 'max' | 'mean'; bucket: 'hour' | 'day'; column: string; from: string; to: string }
  }
  /** Where the groups come from (constant and reference thresholds; a threshold table defines its own). */
  groups: { source: 'dataset' | 'listed'; datasetId: string; on: Record<string, string>; listed: string }
  /**
   * A group-by timestamp column read by hour, day or week ('' = its exact value), and the range [from, to) whose
   * buckets `listBuckets` writes into the listed groups. Absent: no column grouped by time.
   */
  byTime?: { column: string; per: TimeBucketUnit | ''; from: string; to: string }
}

/** The column grouped by time and its unit, when the form groups one (ticked in group by, with a unit). */
export function groupedByTime(form: Pick<ThresholdForm, 'groupBy' | 'byTime'>): { column: string; per: TimeBucketUnit } | null {
  const b = form.byTime
  return b && b.per !== '' && form.groupBy.includes(b.column) ? { column: b.column, per: b.per } : null
}

/** The group-by columns as the groups name them: a column grouped by time reads "hour of at". */
export function groupNames(form: Pick<ThresholdForm, 'groupBy' | 'byTime'>): string[] {
  const t = groupedByTime(form)
  return form.groupBy.map((g) => (t && t.column === g ? bucketCellColumn(g, t.per) : g))
}

/**
 * Why grouping by an exact timestamp is rarely what a time series needs, or null: each distinct time is its own group
 * (one row each in a series like timestamp,value), so no group can pass a threshold above 1.
 */
export function exactTimeHint(form: Pick<ThresholdForm, 'groupBy' | 'byTime'>, dataset: DatasetInfo): string | null {
  const t = groupedByTime(form)
  const exact = form.groupBy.filter((g) => dataset.columns.some((c) => c.name === g && c.type === 'timestamp') && g !== t?.column)
  if (exact.length === 0) return null
  return (
    `Grouping by the exact “${exact[0]}” makes each distinct time one group: in a time series that is one row per group. ` +
    `To ask which hours, days or weeks exceed a count, group “${exact[0]}” by hour, day or week, then list the buckets from a range.`
  )
}

/** The listed groups (one line each) for the buckets of [from, to) of the column grouped by time (alone in group by), or a sentence. */
export function listBuckets(form: Pick<ThresholdForm, 'groupBy' | 'byTime'>): string[] | string {
  const t = groupedByTime(form)
  if (!t) return 'Choose hour, day or week for a group-by time column first.'
  if (form.groupBy.length !== 1)
    return `Listing the ${t.per}s fills the groups when “${t.column}” is the only group-by column; with more, write each group's ${t.per} start on its line.`
  const from = parseWallClock(form.byTime!.from)
  const to = parseWallClock(form.byTime!.to)
  if (from === null || to === null) return 'Give the range as dates or times, e.g. from 2014-07-01 to 2014-08-01 (to is not included).'
  if (!(from < to)) return 'The range must end after it starts (to is not included).'
  const starts = bucketStartsBetween(from, to, t.per)
  if (starts === null)
    return `That range holds more than ${MAX_LISTED_BUCKETS.toLocaleString('en-US')} ${t.per}s: choose a shorter range or a longer bucket.`
  return starts
}

/** Datasets whose values may reach a release of a query on `dataset`: public, and not the counted dataset itself. */
export function publicSources(dataset: DatasetInfo, datasets: readonly DatasetInfo[]): DatasetInfo[] {
  return datasets.filter((d) => d.public && d.id !== dataset.id)
}

/**
 * The column of `source` matching each group-by column: kept from `previous` when still a column of `source`, else the
 * column of the same name, else none ('').
 */
export function defaultMapping(
  groupBy: readonly string[],
  source: DatasetInfo | undefined,
  previous: Record<string, string> = {}
): Record<string, string> {
  const names = new Set(source?.columns.map((c) => c.name) ?? [])
  const out: Record<string, string> = {}
  for (const g of groupBy) out[g] = previous[g] && names.has(previous[g]) ? previous[g] : names.has(g) ? g : ''
  return out
}

/** One line of values separated by commas; a value may be quoted ("A, east wing") to hold a comma. */
export function splitValues(line: string): string[] {
  const out: string[] = []
  let cur = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"'
        i++
      } else if (ch === '"') quoted = false
      else cur += ch
    } else if (ch === '"' && cur.trim() === '') {
      quoted = true
      cur = ''
    } else if (ch === ',') {
      out.push(cur.trim())
      cur = ''
    } else cur += ch
  }
  out.push(quoted ? cur : cur.trim())
  return out
}

const MAX_GROUPS = 100_000

/**
 * The listed groups: one per non-empty line, values in group-by order separated by commas; an empty value is an empty
 * field (null). A sentence when a line does not fit.
 */
export function parseGroupLines(text: string, groupBy: readonly string[]): Array<Array<string | null>> | string {
  const names = groupBy.join(', ')
  const lines = text.split(/\r?\n/)
  const groups: Array<Array<string | null>> = []
  const seen = new Map<string, number>()
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue
    const values = splitValues(lines[i])
    if (values.length !== groupBy.length) {
      return `Line ${i + 1} of the groups has ${values.length} value${values.length === 1 ? '' : 's'}; each group needs ${groupBy.length} (${names}), separated by commas.`
    }
    const key = JSON.stringify(values)
    const first = seen.get(key)
    if (first !== undefined) return `Line ${i + 1} of the groups repeats line ${first}: list each group once.`
    seen.set(key, i + 1)
    groups.push(values.map((v) => (v === '' ? null : v)))
  }
  if (groups.length === 0) {
    return `List the groups to ask about, one per line with their ${names} separated by commas, or take them from a public dataset.`
  }
  if (groups.length > MAX_GROUPS) return `At most ${MAX_GROUPS.toLocaleString('en-US')} groups can be listed; take more from a public dataset.`
  return groups
}

/** A number as typed, or null when empty or not a finite number. */
export function parseNumber(text: string): number | null {
  const t = text.trim()
  if (t === '') return null
  const n = Number(t)
  return Number.isFinite(n) ? n : null
}

/** "1, 10, 20" -> numbers where they are numbers. */
function parseList(text: string): Array<number | string> {
  return text
    .split(/[,;]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => (Number.isFinite(Number(s)) ? Number(s) : s))
}

/** `on` when some column differs from the group-by column's own name (the services default to the same name). */
function mappingOrUndefined(on: Record<string, string>): Record<string, string> | undefined {
  return Object.entries(on).some(([g, c]) => g !== c) ? { ...on } : undefined
}

/** The column of `source` matching each group-by column, or the sentence naming the first one missing. */
function checkMapping(groupBy: readonly string[], source: DatasetInfo, on: Record<string, string>): Record<string, string> | string {
  const names = new Set(source.columns.map((c) => c.name))
  const out: Record<string, string> = {}
  for (const g of groupBy) {
    const c = on[g]
    if (!c || !names.has(c)) return `Choose the column of “${source.name}” that matches “${g}”.`
    out[g] = c
  }
  return out
}

/** Why no public dataset is offered, in one sentence (the private ones cannot be used and are not listed). */
export function noPublicSourceReason(dataset: DatasetInfo, datasets: readonly DatasetInfo[], role: string): string {
  const privateOthers = datasets.filter((d) => !d.public && d.id !== dataset.id).length
  return (
    `${role} must come from a public dataset other than “${dataset.name}”, and there is none yet` +
    (privateOthers > 0 ? ` (${privateOthers} private dataset${privateOthers === 1 ? ' is' : 's are'} not offered)` : '') +
    ': the privacy officer declares a dataset public on the Datasets screen.'
  )
}

/** The definition, or one sentence saying what is missing (the save button stays disabled with it). */
export function buildThresholdDefinition(
  form: ThresholdForm,
  dataset: DatasetInfo,
  datasets: readonly DatasetInfo[]
): ThresholdQueryDefinition | string {
  const cols = dataset.columns
  const { groupBy } = form
  if (groupBy.length === 0) return 'Choose at least one group-by column: each group is one predicate (for example each room).'
  const byTime = groupedByTime(form)
  if (byTime && form.threshold.kind === 'reference')
    return `A reference threshold compares each group with itself in another period, and ${byTime.per === 'hour' ? 'an' : 'a'} ${byTime.per} of “${byTime.column}” has no rows there: use a constant threshold.`
  const filter: FilterCondition[] = []
  for (const f of form.filters) {
    if (!f.column) continue
    if (f.op === 'is null' || f.op === 'is not null') filter.push({ column: f.column, op: f.op })
    else if (f.op === 'in' || f.op === 'not in') filter.push({ column: f.column, op: f.op, value: parseList(f.value) })
    else {
      const n = Number(f.value)
      const col = cols.find((c) => c.name === f.column)
      const numeric = col && (col.type === 'integer' || col.type === 'real')
      filter.push({ column: f.column, op: f.op, value: numeric && f.value.trim() !== '' && Number.isFinite(n) ? n : f.value })
    }
  }
  let count: ThresholdQueryDefinition['count'] = { kind: 'rows' }
  if (form.count.kind === 'persons') {
    const c = parseNumber(form.count.cap)
    if (!form.count.personColumn) return 'Choose the column that identifies a person.'
    if (groupBy.includes(form.count.personColumn)) return `The person column “${form.count.personColumn}” cannot also be a group-by column.`
    if (c === null || !Number.isInteger(c) || c < 1) return 'Say how many times each person may count at most (a whole number, 1 or more).'
    count = { kind: 'persons', personColumn: form.count.personColumn, cap: c }
    const mg = (form.count.maxGroups ?? '').trim()
    if (mg !== '') {
      const m = parseNumber(mg)
      if (m === null || !Number.isInteger(m) || m < 1) return 'The groups per person must be a whole number, 1 or more (or empty: no bound).'
      count.maxGroups = m
    }
  }
  const sources = publicSources(dataset, datasets)
  const t = form.threshold
  let threshold: ThresholdSpec
  if (t.kind === 'constant') {
    const v = parseNumber(t.constant)
    if (v === null) return 'Give the threshold: the count above which a group is flagged.'
    threshold = { kind: 'constant', value: v }
  } else if (t.kind === 'column') {
    if (sources.length === 0) return noPublicSourceReason(dataset, datasets, 'Thresholds from a table')
    const table = sources.find((d) => String(d.id) === t.datasetId)
    if (!table) return 'Choose the public table that holds the thresholds.'
    if (!t.column) return `Choose the column of “${table.name}” that holds the thresholds.`
    const on = checkMapping(groupBy, table, t.on)
    if (typeof on === 'string') return on
    threshold = { kind: 'column', datasetId: table.id, column: t.column }
    const given = mappingOrUndefined(on)
    if (given) threshold.on = given
  } else {
    const r = t.reference
    const factor = parseNumber(r.factor)
    if (factor === null || factor <= 0) return 'Give the factor (> 0) that multiplies the reference period.'
    if (!r.from || !r.to) return 'Give the reference period (from and to).'
    threshold = { kind: 'reference', factor, aggregate: r.aggregate, bucket: r.bucket, column: r.column || undefined, from: r.from, to: r.to }
  }
  const d: ThresholdQueryDefinition = { kind: 'threshold', groupBy: [...groupBy], count, threshold }
  if (byTime) d.groupByTime = byTime
  if (filter.length > 0) d.filter = filter
  if (form.period.on) {
    if (!form.period.column || !form.period.from || !form.period.to) return 'Give the period: a timestamp column, from and to.'
    d.period = { column: form.period.column, from: form.period.from, to: form.period.to }
  }
  // The groups: a threshold table's rows define them; otherwise public groups, from a public dataset or listed here.
  if (threshold.kind !== 'column') {
    const g = form.groups
    if (g.source === 'dataset') {
      if (sources.length === 0) return noPublicSourceReason(dataset, datasets, 'Groups from a dataset') + ' Or list the groups here.'
      const src = sources.find((s) => String(s.id) === g.datasetId)
      if (!src) return 'Choose the public dataset whose rows are the groups.'
      const on = checkMapping(groupBy, src, g.on)
      if (typeof on === 'string') return on
      d.groupsFrom = { datasetId: src.id }
      const given = mappingOrUndefined(on)
      if (given) d.groupsFrom.on = given
    } else {
      const groups = parseGroupLines(g.listed, groupNames(form))
      if (typeof groups === 'string') return groups
      d.groups = groups
    }
  }
  return d
}

/** What the form shows and stands for once its defaults are filled in from the datasets (see `resolveThresholdForm`). */
export interface ResolvedThresholdForm {
  /** The threshold table: the chosen one, else ('' chosen) the preferred public table for the group-by columns. */
  thresholdTable: DatasetInfo | undefined
  numericThresholdColumns: DatasetInfo['columns']
  groupsTable: DatasetInfo | undefined
  /** The columns matching each group-by column: the user's choice while valid, else the same name. */
  thresholdOn: Record<string, string>
  groupsOn: Record<string, string>
  /** Columns offered as the person column (not a group-by column), and the one shown. */
  personOptions: string[]
  personColumn: string
  /** The definition, or the sentence saying what is missing. */
  definition: ThresholdQueryDefinition | string
  /**
   * The groups asked about only, while the rest may be incomplete: the same form with no filter or period and a
   * placeholder count and threshold value (neither changes which groups are asked about). Counted from public inputs only.
   */
  groupsOnly: ThresholdQueryDefinition | string
}

/** The form with its defaults filled in (person column, threshold table, column mappings) and the definitions it stands for. */
export function resolveThresholdForm(form: ThresholdForm, dataset: DatasetInfo, datasets: readonly DatasetInfo[]): ResolvedThresholdForm {
  const { groupBy } = form
  const thr = form.threshold
  const sources = publicSources(dataset, datasets)
  const thresholdTable =
    sources.find((d) => String(d.id) === thr.datasetId) ??
    (thr.datasetId === '' ? (preferredThresholdTable(sources, groupBy) ?? undefined) : undefined)
  const numericThresholdColumns = thresholdTable?.columns.filter((c) => c.type === 'integer' || c.type === 'real') ?? []
  const groupsTable = sources.find((d) => String(d.id) === form.groups.datasetId)
  const thresholdOn = defaultMapping(groupBy, thresholdTable, thr.on)
  const groupsOn = defaultMapping(groupBy, groupsTable, form.groups.on)
  const personCols = dataset.columns.filter((c) => !groupBy.includes(c.name))
  const personOptions = personCols.map((c) => c.name)
  const personColumn = personOptions.includes(form.count.personColumn)
    ? form.count.personColumn
    : (preferredPersonColumn(personCols) ?? personOptions[0] ?? '')
  const datasetId = thresholdTable ? String(thresholdTable.id) : thr.datasetId
  const definition = buildThresholdDefinition(
    { ...form, count: { ...form.count, personColumn }, threshold: { ...thr, datasetId, on: thresholdOn }, groups: { ...form.groups, on: groupsOn } },
    dataset,
    datasets
  )
  const groupsOnly = buildThresholdDefinition(
    {
      ...form,
      filters: [],
      period: { ...form.period, on: false },
      count: { kind: 'rows', personColumn: '', cap: '1' },
      threshold: {
        ...thr,
        constant: '0',
        column: thr.column || (numericThresholdColumns[0]?.name ?? ''),
        datasetId,
        on: thresholdOn,
        reference: { ...thr.reference, factor: '1', from: 'x', to: 'x' }
      },
      groups: { ...form.groups, on: groupsOn }
    },
    dataset,
    datasets
  )
  return { thresholdTable, numericThresholdColumns, groupsTable, thresholdOn, groupsOn, personOptions, personColumn, definition, groupsOnly }
}

/** One listed value as `splitValues` reads it back: quoted when it holds a comma or a quote or is blank-edged. */
export function joinValue(v: string | number | null): string {
  const s = v === null ? '' : String(v)
  return /[",]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s
}

/**
 * A saved definition back in the form (to edit it as its next version), over the `blank` form of its dataset: what the
 * definition does not say keeps the blank form's defaults. `buildThresholdDefinition` of the result gives the definition
 * again (unit-tested round trip).
 */
export function thresholdFormFromDefinition(def: ThresholdQueryDefinition, blank: ThresholdForm): ThresholdForm {
  const filters: FilterRow[] = (def.filter ?? []).map((f) => ({
    column: f.column,
    op: f.op,
    value: f.value === undefined ? '' : Array.isArray(f.value) ? f.value.join(', ') : String(f.value)
  }))
  const c = def.count
  const count: ThresholdForm['count'] =
    c.kind === 'rows'
      ? { ...blank.count, kind: 'rows' }
      : { kind: 'persons', personColumn: c.personColumn, cap: String(c.cap), maxGroups: c.maxGroups === undefined ? '' : String(c.maxGroups) }
  const t = def.threshold
  const threshold: ThresholdForm['threshold'] =
    t.kind === 'constant'
      ? { ...blank.threshold, kind: 'constant', constant: String(t.value) }
      : t.kind === 'column'
        ? { ...blank.threshold, kind: 'column', datasetId: String(t.datasetId), column: t.column, on: { ...(t.on ?? {}) } }
        : {
            ...blank.threshold,
            kind: 'reference',
            reference: {
              factor: String(t.factor),
              aggregate: t.aggregate,
              bucket: t.bucket,
              column: t.column ?? blank.threshold.reference.column,
              from: t.from,
              to: t.to
            }
          }
  const groups: ThresholdForm['groups'] = def.groups
    ? { ...blank.groups, source: 'listed', listed: def.groups.map((g) => g.map(joinValue).join(', ')).join('\n') }
    : def.groupsFrom
      ? { ...blank.groups, source: 'dataset', datasetId: String(def.groupsFrom.datasetId), on: { ...(def.groupsFrom.on ?? {}) } }
      : blank.groups
  return {
    groupBy: [...def.groupBy],
    filters,
    period: def.period ? { on: true, ...def.period } : blank.period,
    count,
    threshold,
    groups,
    ...(def.groupByTime ? { byTime: { ...def.groupByTime, from: '', to: '' } } : blank.byTime ? { byTime: blank.byTime } : {})
  }
}
