/** The words of a threshold flag (verdictDefinition.ts): what the guarantee supports, with the release's tolerance (its mechanism's false-positive band). */
import { describe, expect, it } from 'vitest'
import { flagMeaning, flaggedWords } from '../../../src-renderer/src/screens/releases/verdictDefinition'

describe('threshold flags in words', () => {
  it('a flag says how far under its threshold the group may be, never "over threshold" alone', () => {
    expect(flaggedWords(2)).toBe('flagged (may be up to 2 under its threshold)')
    expect(flaggedWords(0.2 + 0.1)).toBe('flagged (may be up to 0.3 under its threshold)')
    expect(flaggedWords(undefined)).toBe('flagged')
    for (const t of [undefined, 2, 40]) {
      expect(flaggedWords(t)).not.toMatch(/over threshold/)
      expect(flagMeaning(t)).toMatch(/over its threshold or (within its mechanism's tolerance|at most \d+) under it/)
    }
    expect(flagMeaning(40)).toContain('at most 40 under it')
  })
})
