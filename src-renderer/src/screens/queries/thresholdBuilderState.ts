/**
 * The threshold builder's state as one typed value and its transitions (pure: no React; the component calls
 * `useReducer(thresholdFormReducer, …, initialThresholdForm)`). Unit-tested in test/unit/renderer/threshold-builder-state.test.ts.
 */
import type { DatasetInfo, ThresholdQueryDefinition } from '../../../../src-main/contract'
import { type FilterRow, type ThresholdForm, publicSources, thresholdFormFromDefinition } from './thresholdDefinition'

export type ThresholdFormAction =
  /** Tick or untick a group-by column; the list stays in the dataset's column order (`order`), whatever the ticking order. */
  | { type: 'groupBy'; column: string; on: boolean; order: readonly string[] }
  | { type: 'addFilter'; column: string }
  | { type: 'updateFilter'; index: number; patch: Partial<FilterRow> }
  | { type: 'removeFilter'; index: number }
  | { type: 'period'; patch: Partial<ThresholdForm['period']> }
  | { type: 'count'; patch: Partial<ThresholdForm['count']> }
  | { type: 'threshold'; patch: Partial<ThresholdForm['threshold']> }
  | { type: 'reference'; patch: Partial<ThresholdForm['threshold']['reference']> }
  | { type: 'groups'; patch: Partial<ThresholdForm['groups']> }
  /** Group a timestamp column by hour, day or week ('' = its exact value), or set the range whose buckets are listed. */
  | { type: 'byTime'; patch: Partial<NonNullable<ThresholdForm['byTime']>> }
  /** Fill the listed groups with `lines` (the buckets of the range). */
  | { type: 'listGroups'; lines: string }
  /** Another counted dataset (or its list of public datasets changed): keep what still exists, reset the rest. */
  | { type: 'dataset'; dataset: DatasetInfo; datasets: readonly DatasetInfo[] }

function firstTimeColumn(dataset: DatasetInfo): string {
  return dataset.columns.find((c) => c.type === 'timestamp')?.name ?? ''
}

/**
 * A new form for `dataset`: nothing grouped, no filter, groups from the first public dataset when there is one; or
 * (`initial`) the form of a saved query being edited.
 */
export function initialThresholdForm({
  dataset,
  datasets,
  initial
}: {
  dataset: DatasetInfo
  datasets: readonly DatasetInfo[]
  initial?: ThresholdQueryDefinition
}): ThresholdForm {
  const blank = blankThresholdForm(dataset, datasets)
  return initial ? thresholdFormFromDefinition(initial, blank) : blank
}

function blankThresholdForm(dataset: DatasetInfo, datasets: readonly DatasetInfo[]): ThresholdForm {
  const sources = publicSources(dataset, datasets)
  const time = firstTimeColumn(dataset)
  return {
    groupBy: [],
    filters: [],
    period: { on: false, column: time, from: '', to: '' },
    count: { kind: 'rows', personColumn: dataset.unit.kind === 'person' ? dataset.unit.column : '', cap: '1' },
    threshold: {
      kind: 'constant',
      constant: '',
      // '' = the preferred table for the group-by columns (columnDefaultsDefinition.ts), until the user chooses one.
      datasetId: '',
      column: '',
      on: {},
      reference: { factor: '1', aggregate: 'max', bucket: 'day', column: time, from: '', to: '' }
    },
    groups: { source: sources.length > 0 ? 'dataset' : 'listed', datasetId: sources[0] ? String(sources[0].id) : '', on: {}, listed: '' },
    byTime: { column: time, per: '', from: '', to: '' }
  }
}

/** `on` restricted to the group-by columns still chosen. */
function keepMapping(on: Record<string, string>, groupBy: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(on).filter(([g]) => groupBy.includes(g)))
}

function rebase(form: ThresholdForm, dataset: DatasetInfo, datasets: readonly DatasetInfo[]): ThresholdForm {
  const fresh = blankThresholdForm(dataset, datasets)
  const names = new Set(dataset.columns.map((c) => c.name))
  const timeNames = new Set(dataset.columns.filter((c) => c.type === 'timestamp').map((c) => c.name))
  const sourceIds = new Set(publicSources(dataset, datasets).map((d) => String(d.id)))
  const groupBy = dataset.columns.map((c) => c.name).filter((n) => form.groupBy.includes(n))
  const thrKept = sourceIds.has(form.threshold.datasetId)
  const groupsKept = sourceIds.has(form.groups.datasetId)
  return {
    groupBy,
    filters: form.filters.filter((f) => names.has(f.column)),
    period: { ...form.period, column: timeNames.has(form.period.column) ? form.period.column : fresh.period.column },
    count: { ...form.count, personColumn: names.has(form.count.personColumn) ? form.count.personColumn : fresh.count.personColumn },
    threshold: {
      ...form.threshold,
      datasetId: thrKept ? form.threshold.datasetId : '',
      column: thrKept ? form.threshold.column : '',
      on: thrKept ? keepMapping(form.threshold.on, groupBy) : {},
      reference: {
        ...form.threshold.reference,
        column: timeNames.has(form.threshold.reference.column) ? form.threshold.reference.column : fresh.threshold.reference.column
      }
    },
    groups: groupsKept
      ? { ...form.groups, on: keepMapping(form.groups.on, groupBy) }
      : { ...form.groups, source: form.groups.source === 'dataset' ? fresh.groups.source : 'listed', datasetId: fresh.groups.datasetId, on: {} },
    byTime: form.byTime && timeNames.has(form.byTime.column) ? form.byTime : fresh.byTime
  }
}

export function thresholdFormReducer(form: ThresholdForm, action: ThresholdFormAction): ThresholdForm {
  switch (action.type) {
    case 'groupBy':
      return { ...form, groupBy: action.order.filter((n) => (n === action.column ? action.on : form.groupBy.includes(n))) }
    case 'addFilter':
      return { ...form, filters: [...form.filters, { column: action.column, op: '=', value: '' }] }
    case 'updateFilter':
      return { ...form, filters: form.filters.map((f, i) => (i === action.index ? { ...f, ...action.patch } : f)) }
    case 'removeFilter':
      return { ...form, filters: form.filters.filter((_, i) => i !== action.index) }
    case 'period':
      return { ...form, period: { ...form.period, ...action.patch } }
    case 'count':
      return { ...form, count: { ...form.count, ...action.patch } }
    case 'threshold':
      return { ...form, threshold: { ...form.threshold, ...action.patch } }
    case 'reference':
      return { ...form, threshold: { ...form.threshold, reference: { ...form.threshold.reference, ...action.patch } } }
    case 'groups':
      return { ...form, groups: { ...form.groups, ...action.patch } }
    case 'byTime': {
      const byTime = { column: '', per: '' as const, from: '', to: '', ...form.byTime, ...action.patch }
      // Buckets are named by their starts, listed here: a public dataset rarely holds them.
      const groups = action.patch.per ? { ...form.groups, source: 'listed' as const } : form.groups
      return { ...form, byTime, groups }
    }
    case 'listGroups':
      return { ...form, groups: { ...form.groups, source: 'listed', listed: action.lines } }
    case 'dataset':
      return rebase(form, action.dataset, action.datasets)
  }
}
