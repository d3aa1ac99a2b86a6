/**
 * Evaluation preset for labelled series (e.g. NAB): it uses the ground truth, so it is for evaluation only.
 *
 * - score = |x - median(x)| (absolute deviation from the series median);
 * - the anomaly is the labelled point with the largest score, where the labelled points are the rows inside the labelled
 *   windows (plus the label rows themselves). NAB's ground truth is the window: on the two rogue_agent series the label
 *   timestamps themselves sit at the median (score 0), so the label rows alone would give a meaningless anomaly;
 * - the rows of the other labelled windows are dropped (they are anomalies too); the anomaly's own window is kept;
 * - optionally (default on) normal rows scoring at least as high as the anomaly are dropped too, so that the data model of
 *   the paper (exactly one point above t_h, all others at most t_l) holds; the count is reported;
 * - thresholds as in the paper's section 6.1 with margin m = 0.1: x_j = largest normal score, d = x* - x_j,
 *   t_h = x* - m d, t_l = x_j + m d.
 * The caller (CLI) reads the files and maps timestamps to rows; this module only sees arrays.
 */
export interface LabelledSeries {
  values: ArrayLike<number>
  /** inclusive row ranges [first, last] of the labelled windows */
  windows: Array<[number, number]>
  /** rows of the label timestamps (optional; normally inside the windows) */
  labelRows?: number[]
}

export interface PresetOptions {
  /** threshold margin m of section 6.1 (default 0.1; must be in (0, 0.5)) */
  margin?: number
  /** drop normal rows that score at least as high as the anomaly (default true) */
  dropConflicts?: boolean
}

export interface SearchPreset {
  scores: Float64Array
  /** original row of each kept score */
  rows: Int32Array
  /** index of the anomaly in `scores` */
  anomaly: number
  anomalyRow: number
  tLow: number
  tHigh: number
  /** (t_h - t_l) / t_l, the x axis of the paper's Fig. 1 */
  thresholdRatio: number
  median: number
  droppedWindowRows: number
  droppedConflicts: number
}

export function median(values: ArrayLike<number>): number {
  const n = values.length
  if (n === 0) throw new RangeError('median of an empty series')
  const s = Float64Array.from(values).sort()
  return n % 2 === 1 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
}

export function absoluteDeviationScores(values: ArrayLike<number>): { scores: Float64Array; median: number } {
  const m = median(values)
  const scores = new Float64Array(values.length)
  for (let i = 0; i < values.length; i++) scores[i] = Math.abs(values[i] - m)
  return { scores, median: m }
}

/** Section 6.1 thresholds from the truth: x_j = max normal score, t_h = x* - m d, t_l = x_j + m d. */
export function paperThresholds(scores: ArrayLike<number>, anomaly: number, margin = 0.1): { tLow: number; tHigh: number } {
  if (!(margin > 0 && margin < 0.5)) throw new RangeError(`margin must be in (0, 0.5) (got ${margin})`)
  let xj = -Infinity
  for (let i = 0; i < scores.length; i++) if (i !== anomaly && scores[i] > xj) xj = scores[i]
  const xs = scores[anomaly]
  if (!(xs > xj)) throw new RangeError('the anomaly does not score above every other point, so no thresholds separate it')
  const d = xs - xj
  return { tLow: xj + margin * d, tHigh: xs - margin * d }
}

export function labelledSeriesPreset(series: LabelledSeries, opts: PresetOptions = {}): SearchPreset {
  const n = series.values.length
  const margin = opts.margin ?? 0.1
  for (let i = 0; i < n; i++) if (!Number.isFinite(series.values[i])) throw new RangeError(`value ${i} is not a finite number`)
  const { scores: all, median: med } = absoluteDeviationScores(series.values)
  const windows = series.windows.map(([a, b]) => [Math.max(0, a), Math.min(n - 1, b)] as [number, number]).filter(([a, b]) => a <= b)
  const candidates: number[] = []
  for (const [a, b] of windows) for (let i = a; i <= b; i++) candidates.push(i)
  for (const r of series.labelRows ?? []) if (r >= 0 && r < n) candidates.push(r)
  if (candidates.length === 0) throw new RangeError('the series has no labelled point')
  let anomalyRow = candidates[0]
  for (const i of candidates) if (all[i] > all[anomalyRow] || (all[i] === all[anomalyRow] && i < anomalyRow)) anomalyRow = i
  const keep = new Uint8Array(n).fill(1)
  let droppedWindowRows = 0
  for (const [a, b] of windows) {
    if (anomalyRow >= a && anomalyRow <= b) continue
    for (let i = a; i <= b; i++) {
      if (keep[i] && i !== anomalyRow) {
        keep[i] = 0
        droppedWindowRows++
      }
    }
  }
  let droppedConflicts = 0
  if (opts.dropConflicts ?? true) {
    for (let i = 0; i < n; i++) {
      if (keep[i] && i !== anomalyRow && all[i] >= all[anomalyRow]) {
        keep[i] = 0
        droppedConflicts++
      }
    }
  }
  const rows: number[] = []
  for (let i = 0; i < n; i++) if (keep[i]) rows.push(i)
  const scores = Float64Array.from(rows, (i) => all[i])
  const anomaly = rows.indexOf(anomalyRow)
  const { tLow, tHigh } = paperThresholds(scores, anomaly, margin)
  return {
    scores,
    rows: Int32Array.from(rows),
    anomaly,
    anomalyRow,
    tLow,
    tHigh,
    thresholdRatio: (tHigh - tLow) / tLow,
    median: med,
    droppedWindowRows,
    droppedConflicts
  }
}
