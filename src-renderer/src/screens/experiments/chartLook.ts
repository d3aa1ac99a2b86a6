/**
 * How the sweep charts read: plain metric names with units, a numeric (log where the papers use log) x axis
 * when the swept values are numbers, a reference line for beta on the FNR chart, intervals below 1e-12 shown as 0 and
 * no whiskers on a series that does not vary. Pure (unit-tested).
 */
import type { MetricChart } from './chartData'

/** Plain names, with the unit, for the engines' metric ids (the id stays in the CSV). */
export const METRIC_TITLE: Record<string, string> = {
  fnr: 'Missed violations (false-negative rate, share)',
  fpr: 'False alarms (false-positive rate, share)',
  epsilonExPost: 'ε actually spent (ex post ε*, per predicate, max)',
  minEntropy: 'Normalised min-entropy (γ / ln k, 0–1)',
  minEntropyNats: 'Min-entropy γ (nats)',
  denied: 'Runs denied (share)',
  steps: 'Steps executed (count)',
  errorRate: 'Error rate (share)',
  errorRateSensitive: 'Error rate on k-sensitive records (share)',
  errorRateNonSensitive: 'Error rate on non-sensitive records (share)',
  privacyRisk: 'Total privacy risk (T × ε)',
  queries: 'Queries asked (count)',
  capped: 'Runs stopped by the round cap, not halted (share)',
  failureRate: 'Failed runs: stopped by the round cap, or anomaly not in S (share)'
}

export const PARAM_TITLE: Record<string, string> = {
  alpha: 'alpha (tolerance, in counts)',
  beta: 'beta (miss probability)',
  eps: 'ε per query',
  epsilon: 'ε',
  tau: 'halting threshold τ',
  b: 'budget b',
  ratio: 'threshold ratio',
  workload: 'workload'
}

/** The vertical axis' unit (the figure caption carries the full name). */
export function metricUnit(name: string): string {
  const t = METRIC_TITLE[name]
  if (!t) return name
  if (t.endsWith('(share)') || t.includes(', share)')) return 'share of runs or groups'
  if (t.includes('(count)')) return 'count'
  if (t.includes('(nats)')) return 'nats'
  if (t.includes('0–1')) return '0–1'
  return name.startsWith('epsilon') || name === 'privacyRisk' ? 'ε' : name
}

export function metricTitle(name: string): string {
  return METRIC_TITLE[name] ?? name
}

/** Parameters whose name means something else in an engine: anomaly identification's `beta` is its neighbour limit. */
const ENGINE_PARAM_TITLE: Record<string, Record<string, string>> = {
  aiq: { beta: 'max neighbours (a record with at most this many within the radius is an anomaly)', r: 'radius r (bins)' }
}

export function axisTitle(param: string, engine?: string): string {
  return (engine ? ENGINE_PARAM_TITLE[engine]?.[param] : undefined) ?? PARAM_TITLE[param] ?? param
}

/** Anything closer to 0 than this is shown as 0 (a CI bound of 3.47e-18 is floating-point noise around 0). */
export const TINY = 1e-12

export function clean(x: number | null): number | null {
  return x === null ? null : Math.abs(x) < TINY ? 0 : x
}

/** 'category' unless every x is a number; 'logarithmic' when they are all > 0 and span at least two decades. */
export function xScaleKind(labels: string[]): 'category' | 'linear' | 'logarithmic' {
  if (labels.length < 2) return 'category'
  const xs = labels.map(Number)
  if (xs.some((x) => !Number.isFinite(x)) || labels.some((l) => l.trim() === '')) return 'category'
  const min = Math.min(...xs)
  const max = Math.max(...xs)
  return min > 0 && max / min >= 100 ? 'logarithmic' : 'linear'
}

/** Does a series' mean stay the same at every x (an all-zero `denied`)? Such a series gets no whiskers (they were spikes). */
export function isConstant(points: MetricChart['series'][number]['points']): boolean {
  const vals = points.map((p) => clean(p.mean)).filter((v): v is number => v !== null)
  return vals.length === 0 || vals.every((v) => v === vals[0])
}

/** The series as chart points: cleaned means, and intervals (null for constant series and zero-width intervals). */
export function seriesPoints(mc: MetricChart, s: MetricChart['series'][number], numericX: boolean) {
  const constant = isConstant(s.points)
  return {
    data: s.points.map((p, i) => {
      const y = clean(p.mean)
      return numericX ? { x: Number(mc.labels[i]), y } : y
    }),
    ci: s.points.map((p) => {
      if (constant || !p.ci) return null
      const lo = clean(p.ci[0])!
      const hi = clean(p.ci[1])!
      return lo === hi ? null : ([lo, hi] as [number, number])
    })
  }
}

/** Per-series markers (with the dashes) so that overlapping lines stay distinguishable. */
export const POINT_STYLES = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot', 'star', 'cross', 'dash'] as const
