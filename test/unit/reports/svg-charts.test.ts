/**
 * Report charts: a long caption wraps at words instead of being cut at the chart's edge ("... against" with the rest
 * lost), and a budget marker is drawn (and named in the legend) for every bar that has a limit.
 */
import { describe, expect, it } from 'vitest'
import { horizontalBars, wrapWords } from '../../../src-main/services/reports/svg-charts'

describe('report charts', () => {
  it('wraps words into lines no longer than the limit, never splitting a word', () => {
    expect(wrapWords('a bb ccc dddd', 6)).toEqual(['a bb', 'ccc', 'dddd'])
    expect(wrapWords('averyveryverylongword x', 5)).toEqual(['averyveryverylongword', 'x'])
    expect(wrapWords('', 10)).toEqual([''])
  })

  it('a long title is drawn whole, on several lines, and the bars move below it', () => {
    const title = 'Spend per privacy notion up to the end of the period (they add up to the spend per person), against its budget'
    const svg = String(horizontalBars({ title, bars: [{ label: 'predicate-wise DP', value: 2.3, limit: 10 }], limitLabel: 'budget per person' }))
    const spans = [...svg.matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((m) => m[1])
    expect(spans.length).toBeGreaterThan(1)
    expect(spans.join(' ')).toBe(title)
    for (const s of spans) expect(s.length * 6.6).toBeLessThanOrEqual(640)
    // The budget marker and its legend entry.
    expect(svg).toMatch(/<line [^>]*stroke="#B00020"/)
    expect(svg).toContain('budget per person')
    const height = Number(/height="(\d+)"/.exec(svg)![1])
    expect(height).toBeGreaterThan(24 + 18 + 22)
  })
})
