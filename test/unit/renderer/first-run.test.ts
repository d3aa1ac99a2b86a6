/** The first run's steps (firstRunDefinition.ts): the officer is set up first, each step is ticked from the workspace. */
import { describe, expect, it } from 'vitest'
import { firstRunSteps, nextStep } from '../../../src-renderer/src/screens/datasets/firstRunDefinition'

const EMPTY = { officers: 0, datasets: 0, budgeted: 0, queries: 0, releases: 0 }

describe('first run', () => {
  it('an empty workspace starts with "Set up the privacy officer"', () => {
    const steps = firstRunSteps(EMPTY)
    expect(steps.map((s) => s.title)).toEqual([
      'Set up the privacy officer',
      'Import a dataset',
      'Set its budget',
      'Ask a question',
      'Release the answer'
    ])
    expect(nextStep(steps)).toMatchObject({ id: 'officer', who: 'privacy officer', href: '#/ledger/officers' })
  })

  it('each step is done from what the workspace holds; the next is the first not done', () => {
    expect(nextStep(firstRunSteps({ ...EMPTY, datasets: 2 }))?.id).toBe('officer')
    expect(nextStep(firstRunSteps({ ...EMPTY, officers: 1 }))?.id).toBe('import')
    expect(nextStep(firstRunSteps({ ...EMPTY, officers: 1, datasets: 1 }))?.id).toBe('budget')
    expect(nextStep(firstRunSteps({ ...EMPTY, officers: 1, datasets: 1, budgeted: 1 }))?.id).toBe('query')
    expect(nextStep(firstRunSteps({ officers: 1, datasets: 1, budgeted: 1, queries: 1, releases: 0 }))?.id).toBe('release')
    expect(nextStep(firstRunSteps({ officers: 1, datasets: 1, budgeted: 1, queries: 1, releases: 1 }))).toBeNull()
  })
})
