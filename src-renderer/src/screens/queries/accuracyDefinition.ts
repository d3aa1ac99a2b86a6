/**
 * Words for the accuracy preview (pure; unit-tested in test/unit/renderer/accuracy-words.test.ts): epsilon explained
 * once, and the chart's accessible label from the released preview's points.
 */
import type { AccuracyPreview } from '../../../../src-main/contract'

/** ε in plain words, said once in the release panel. */
export const EPSILON_IN_WORDS =
  'ε (epsilon) is how much one release can tell about any one person: whatever it shows is at most e^ε times more (or less) likely ' +
  'with that person in the data than without. ε 0.1 hides a person well; ε 1 lets a result be up to 2.7 times likelier; ε 5, 148 times. ' +
  'Every release’s ε adds up against the budget the privacy officer set, and what is spent stays spent.'

const pctText = (x: number) => (x >= 0.1 ? `${Number((x * 100).toPrecision(3))}%` : `${Number((x * 100).toPrecision(2))}%`)

/** One line per series for screen readers: "anomaly among the top 4: 62% at ε 16 … 99% at ε 60". */
export function accuracyChartLabel(a: AccuracyPreview): string {
  return a.series
    .map((s) => {
      const first = s.points[0]
      const last = s.points[s.points.length - 1]
      return first && last ? `${s.name}: ${pctText(first.value)} at ε ${first.epsilon} to ${pctText(last.value)} at ε ${last.epsilon}` : s.name
    })
    .join('; ')
}
