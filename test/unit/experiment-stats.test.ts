/** Sweep intervals (services/experiments/stats.ts): a rate's interval is never of zero width and holds the rate's own. */
import { describe, expect, it } from 'vitest'
import { summarize, wilson } from '../../src-main/services/experiments/stats'

describe('rate intervals', () => {
  it('a sweep that saw no event says [0, x] with x > 0, not [0, 0]', () => {
    const s = summarize(new Float64Array(100), false, true)
    expect(s.mean).toBe(0)
    expect(s.ciLow).toBe(0)
    expect(s.ciHigh).toBeGreaterThan(0.03)
    expect(s.interval).toBe('wilson')
  })

  it('is at least as wide as the normal interval of the per-trial rates (their variance is at most mean (1 - mean) / n)', () => {
    const rates = Float64Array.from({ length: 40 }, (_, i) => (i % 4) / 10)
    const s = summarize(rates, false, true)
    const mean = s.mean!
    const half = (1.959963984540054 * s.sd!) / Math.sqrt(40)
    expect(s.ciLow!).toBeLessThanOrEqual(mean - half)
    expect(s.ciHigh!).toBeGreaterThanOrEqual(mean + half)
    expect([s.ciLow, s.ciHigh]).toEqual(wilson(mean * 40, 40))
  })

  it('a rate seen in no trial of 36 cells of 100 trials at a true 0.002 per event still holds the true rate', () => {
    // 100 trials of 50 events, none seen: the exact rate 0.002 lies inside [0, upper], as it did not inside [0, 0].
    const s = summarize(new Float64Array(100), false, true)
    expect(s.ciHigh!).toBeGreaterThan(0.002)
  })

  it('other metrics keep the normal interval', () => {
    expect(summarize(Float64Array.from([1, 2, 3, 4]), false, false).interval).toBe('normal')
  })
})
