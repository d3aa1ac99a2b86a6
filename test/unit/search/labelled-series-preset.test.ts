import { describe, expect, it } from 'vitest'
import { absoluteDeviationScores, labelledSeriesPreset, median, paperThresholds } from '../../../src-worker/engine/search'

describe('labelled-series preset', () => {
  it('scores are absolute deviations from the median', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(Array.from(absoluteDeviationScores([1, 5, 3]).scores)).toEqual([2, 2, 0])
  })

  it('thresholds follow section 6.1: t_h = x* - 0.1 d, t_l = x_j + 0.1 d', () => {
    const t = paperThresholds([1, 2, 12, 3], 2)
    expect(t.tHigh).toBeCloseTo(12 - 0.9, 12)
    expect(t.tLow).toBeCloseTo(3 + 0.9, 12)
    expect(() => paperThresholds([5, 2, 5], 0)).toThrow(RangeError)
  })

  it('keeps the largest labelled point, drops the other windows and the conflicting rows', () => {
    // median 10; window A rows 2..4 (peak 40 at row 3), window B rows 7..8 (peak 25); an unlabelled spike of 45 at row 10.
    const values = [10, 10, 11, 40, 12, 9, 10, 25, 24, 10, 55, 10, 8]
    const p = labelledSeriesPreset({
      values,
      windows: [
        [2, 4],
        [7, 8]
      ],
      labelRows: [3, 7]
    })
    expect(p.anomalyRow).toBe(3)
    expect(p.droppedWindowRows).toBe(2)
    expect(p.droppedConflicts).toBe(1)
    expect(Array.from(p.rows)).toEqual([0, 1, 2, 3, 4, 5, 6, 9, 11, 12])
    expect(p.scores[p.anomaly]).toBe(30)
    // x_j = 2 (rows 4 and 12), d = 28
    expect(p.tHigh).toBeCloseTo(30 - 2.8, 12)
    expect(p.tLow).toBeCloseTo(2 + 2.8, 12)
    let above = 0
    for (const s of p.scores) if (s > p.tHigh) above++
    expect(above).toBe(1)
    // without dropping conflicts the spike outscores the anomaly and no thresholds exist
    expect(() =>
      labelledSeriesPreset(
        {
          values,
          windows: [
            [2, 4],
            [7, 8]
          ]
        },
        { dropConflicts: false }
      )
    ).toThrow(RangeError)
  })
})
