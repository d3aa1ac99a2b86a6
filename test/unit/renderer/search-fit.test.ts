import { describe, expect, it } from 'vitest'
import { searchFitSentence } from '../../../src-renderer/src/screens/queries/searchDefinition'

describe('a denied anomaly search says what would fit (issue 17)', () => {
  it('whole questions at the saved ε that fit what is left, else a smaller ε per question, else only the officer', () => {
    const def = { epsilonPerQuery: 2, budget: 20 }
    expect(searchFitSentence(def, 5, '5')).toBe(
      'What fits the ε 5 left: edit the search (a new version) with a budget of at most ε 4 (2 questions at ε 2, where this one asks up to 10), or ask the privacy officer to raise the budget.'
    )
    expect(searchFitSentence(def, 2, '2')).toMatch(/at most ε 2 \(1 question at ε 2,/)
    expect(searchFitSentence(def, 1.5, '1.5')).toMatch(
      /^Not one question at ε 2 fits the ε 1\.5 left: edit the search \(a new version\) with an ε per question of at most 1\.5/
    )
    expect(searchFitSentence(def, 0, '0')).toBe('Nothing is left: only the privacy officer can raise the budget.')
    // Float noise does not lose a question: 0.3 / 0.1 is 2.9999999999999996.
    expect(searchFitSentence({ epsilonPerQuery: 0.1, budget: 1 }, 0.3, '0.3')).toMatch(/at most ε 0\.3 \(3 questions at ε 0\.1,/)
  })
})
