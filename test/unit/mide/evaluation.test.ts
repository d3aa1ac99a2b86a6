import { describe, expect, it } from 'vitest'
import { PAPER_DEFAULTS, aggregateThresholdTrials, runThresholdTrials } from '../../../src-worker/engine/mide/index'

const workload = {
  counts: Float64Array.from([10, 50, 200, 7, 400, 90]),
  thresholds: Float64Array.from([9.5, 60, 150, 8, 410, 85])
}

describe('Monte Carlo evaluation', () => {
  it('gives identical per-trial results however the trials are split into batches', () => {
    for (const mech of ['tslm', 'dppwlm'] as const) {
      const whole = runThresholdTrials(mech, workload, PAPER_DEFAULTS, 'batch', 0, 12)
      const parts = [
        ...runThresholdTrials(mech, workload, PAPER_DEFAULTS, 'batch', 0, 5),
        ...runThresholdTrials(mech, workload, PAPER_DEFAULTS, 'batch', 5, 7)
      ]
      expect(parts).toEqual(whole)
      expect(aggregateThresholdTrials(parts)).toEqual(aggregateThresholdTrials(whole))
    }
  })

  it('computes FNR = FN / positives and FPR = FP / negatives per trial, averaged', () => {
    const m = runThresholdTrials('nlm', workload, PAPER_DEFAULTS, 's', 0, 30)
    for (const t of m) {
      expect(t.positives).toBe(3)
      expect(t.negatives).toBe(3)
      expect(t.fnr).toBe(t.falseNegatives / 3)
      expect(t.fpr).toBe(t.falsePositives / 3)
    }
    const agg = aggregateThresholdTrials(m)
    expect(agg.fnr).toBeCloseTo(m.reduce((s, t) => s + t.fnr!, 0) / 30, 14)
    expect(agg.denied).toBe(0)
  })

  it('leaves FNR undefined (null) without positives and excludes denied trials from every mean', () => {
    const noPositives = { counts: Float64Array.from([1, 2]), thresholds: Float64Array.from([5, 5]) }
    const agg = aggregateThresholdTrials(runThresholdTrials('tslm', noPositives, PAPER_DEFAULTS, 1, 0, 4))
    expect(agg.fnr).toBeNull()
    expect(agg.fpr).not.toBeNull()
    const denied = aggregateThresholdTrials(runThresholdTrials('ppwlm', workload, { ...PAPER_DEFAULTS, epsMax: 1 }, 1, 0, 4))
    expect(denied).toMatchObject({ trials: 4, denied: 4, fnr: null, fpr: null, epsilonExPost: null, minEntropy: null })
  })
})
