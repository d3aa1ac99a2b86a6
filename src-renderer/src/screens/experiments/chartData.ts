/**
 * From an experiment's cells to chart series: one chart per metric, x = a swept parameter (or the workload), one line
 * per mechanism (and per value of any other swept parameter), mean with its 95% confidence interval.
 */
import type { CellResult, ParamValue } from '../../../../src-main/contract'

export const X_WORKLOAD = '(workload)'

export interface SweepView {
  sweep: string
  cells: CellResult[]
  workloads: string[]
  /** Parameters that take more than one value in this sweep, in spec order. */
  varying: string[]
}

export function sweepsOf(cells: CellResult[]): SweepView[] {
  const order: string[] = []
  const by = new Map<string, CellResult[]>()
  for (const c of cells) {
    if (!by.has(c.sweep)) {
      by.set(c.sweep, [])
      order.push(c.sweep)
    }
    by.get(c.sweep)!.push(c)
  }
  return order.map((sweep) => {
    const cs = by.get(sweep)!
    const workloads = unique(cs.map((c) => c.workload))
    const keys = unique(cs.flatMap((c) => Object.keys(c.params)))
    const varying = keys.filter((k) => new Set(cs.map((c) => String(c.params[k]))).size > 1)
    return { sweep, cells: cs, workloads, varying }
  })
}

export function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)]
}

function compareValues(a: ParamValue, b: ParamValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  if (typeof a === 'number') return -1
  if (typeof b === 'number') return 1
  return String(a).localeCompare(String(b))
}

export interface Series {
  label: string
  mechanism: string
  points: Array<{ mean: number | null; ci: [number, number] | null; n: number }>
}

export interface MetricChart {
  xLabel: string
  labels: string[]
  series: Series[]
}

/**
 * One metric over x. `workload` restricts to one workload when x is a parameter (null: all, as separate series).
 */
export function metricChart(view: SweepView, metric: string, x: string, workload: string | null): MetricChart {
  const cells = view.cells.filter((c) => c.status === 'done' && (x === X_WORKLOAD || workload === null || c.workload === workload))
  const xOf = (c: CellResult): ParamValue => (x === X_WORKLOAD ? c.workload : c.params[x])
  const xs =
    x === X_WORKLOAD
      ? view.workloads
      : unique(view.cells.map((c) => c.params[x]))
          .sort(compareValues)
          .map(String)
  const others = view.varying.filter((k) => k !== x)
  const seriesKey = (c: CellResult) => {
    const parts = [c.mechanism]
    if (x !== X_WORKLOAD && workload === null && view.workloads.length > 1) parts.push(c.workload)
    for (const k of others) parts.push(`${k}=${String(c.params[k])}`)
    return parts.join(' · ')
  }
  const order = unique(view.cells.map(seriesKey))
  const series: Series[] = order.map((label) => ({
    label,
    mechanism: label.split(' · ')[0],
    points: xs.map(() => ({ mean: null, ci: null, n: 0 }))
  }))
  const index = new Map(order.map((l, i) => [l, i]))
  for (const c of cells) {
    const s = series[index.get(seriesKey(c))!]
    const xi = xs.indexOf(String(xOf(c)))
    const m = c.metrics?.[metric]
    if (!s || xi < 0 || !m) continue
    s.points[xi] = {
      mean: m.mean,
      ci: m.ciLow !== null && m.ciHigh !== null ? [m.ciLow, m.ciHigh] : null,
      n: m.n
    }
  }
  return { xLabel: x === X_WORKLOAD ? 'workload' : x, labels: xs, series }
}
