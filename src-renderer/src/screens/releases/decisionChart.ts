/**
 * Pure shaping of a threshold release's decisions for its chart: a bar per predicate at its threshold (few predicates),
 * or a strip sorted by threshold (many), evenly thinned beyond STRIP_MAX bars. Only public values: thresholds, labels
 * and the released decisions.
 */
import type { ThresholdDecision } from '../../../../src-main/contract'
import { shownKeyPart } from '../../../../src-main/contract/shown-values'

/** Up to this many predicates, one labelled bar each, in predicate order. */
export const EACH_MAX = 48
/** Up to this many bars in the sorted strip; more predicates are thinned evenly in threshold order. */
export const STRIP_MAX = 1500

export interface DecisionBar {
  /** Short axis label (the key values), and the full label for the tooltip. */
  short: string
  label: string
  threshold: number
  flagged: boolean
}

export interface DecisionChartShape {
  mode: 'each' | 'strip'
  bars: DecisionBar[]
  /** Predicates in the answer; bars.length < total when the strip was thinned. */
  total: number
}

const showValue = (v: string | number | null) => (v === null ? '(empty)' : String(shownKeyPart(v)))

/** A decision's key values as the question wrote them (answers before `shown` existed: the canonical key, shown). */
export function shownKey(d: Pick<ThresholdDecision, 'key' | 'shown'>): Array<string | number | null> {
  return d.shown ?? d.key.map((v) => shownKeyPart(v))
}

/** Only for decisions whose thresholds were released (not null); the caller shows no chart otherwise. */
export function decisionChartShape(decisions: ThresholdDecision[]): DecisionChartShape {
  const all: DecisionBar[] = decisions.map((d) => ({
    short: shownKey(d).map(showValue).join(' / '),
    label: d.label,
    threshold: d.threshold ?? 0,
    flagged: d.flagged
  }))
  if (all.length <= EACH_MAX) return { mode: 'each', bars: all, total: all.length }
  // Sorted by threshold; at equal thresholds the flagged ones first (stable otherwise).
  const sorted = all
    .map((b, i) => ({ b, i }))
    .sort((x, y) => x.b.threshold - y.b.threshold || Number(y.b.flagged) - Number(x.b.flagged) || x.i - y.i)
    .map((x) => x.b)
  if (sorted.length <= STRIP_MAX) return { mode: 'strip', bars: sorted, total: all.length }
  const step = sorted.length / STRIP_MAX
  const thinned: DecisionBar[] = []
  for (let k = 0; k < STRIP_MAX; k++) thinned.push(sorted[Math.min(sorted.length - 1, Math.floor(k * step + step / 2))])
  return { mode: 'strip', bars: thinned, total: all.length }
}
