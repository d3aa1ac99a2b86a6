import { describe, expect, it } from 'vitest'
import { aiqEpsilonForError, aiqErrorBound } from '../../../src-renderer/src/screens/queries/aiqAccuracyDefinition'

describe('anomaly identification, accuracy first: ε from the error rate (Construction 1)', () => {
  it('at the worst case (one change flips the answer) ε = ln(1/err - 1), rounded up', () => {
    const eps = aiqEpsilonForError(0.05, 1)!
    expect(eps).toBe(2.945) // ln(19) = 2.94444
    expect(aiqErrorBound(eps, 1)).toBeLessThanOrEqual(0.05)
    expect(aiqErrorBound(2.944, 1)).toBeGreaterThan(0.05)
  })

  it('a margin lowers the price: the bound holds at the rounded ε and not a step below', () => {
    for (const [err, margin] of [
      [0.05, 3],
      [0.01, 5],
      [0.2, 2]
    ] as const) {
      const eps = aiqEpsilonForError(err, margin)!
      expect(aiqErrorBound(eps, margin)).toBeLessThanOrEqual(err)
      const step = 10 ** (Math.floor(Math.log10(eps)) - 3)
      expect(aiqErrorBound(eps - step, margin)).toBeGreaterThan(err)
      expect(eps).toBeLessThan(aiqEpsilonForError(err, 1)!)
    }
  })

  it('refuses an error rate a coin toss already meets, and nonsense', () => {
    expect(aiqEpsilonForError(0.5, 1)).toBeNull()
    expect(aiqEpsilonForError(0, 1)).toBeNull()
    expect(aiqEpsilonForError(0.1, 0)).toBeNull()
  })
})
