/** The accuracy preview's words (accuracyDefinition.ts): epsilon explained once, the chart's label from its points. */
import { describe, expect, it } from 'vitest'
import { EPSILON_IN_WORDS, accuracyChartLabel } from '../../../src-renderer/src/screens/queries/accuracyDefinition'

describe('accuracy preview words', () => {
  it('epsilon in words: a likelihood ratio e^ε, with its figures right, and that spending adds up', () => {
    expect(EPSILON_IN_WORDS).toMatch(/at most e\^ε times more/)
    expect(EPSILON_IN_WORDS).toContain(`ε 1 lets a result be up to ${Math.E.toFixed(1)} times likelier`)
    expect(EPSILON_IN_WORDS).toContain(`ε 5, ${Math.round(Math.exp(5))} times`)
    expect(EPSILON_IN_WORDS).toMatch(/adds up against the budget/)
  })
  it('the label runs from the first to the last point of each series', () => {
    const label = accuracyChartLabel({
      queryId: 1,
      kind: 'anomaly-search',
      measure: 'found',
      valueLabel: 'share of runs',
      series: [
        {
          name: 'anomaly among the top 4',
          points: [
            { epsilon: 26, value: 0.904 },
            { epsilon: 60, value: 0.99 }
          ]
        }
      ],
      currentEpsilon: 30,
      sentence: '',
      method: ''
    })
    expect(label).toBe('anomaly among the top 4: 90.4% at ε 26 to 99% at ε 60')
  })
})
