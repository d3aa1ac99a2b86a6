/**
 * What the app's chart legends draw for a dashed line: chart.js draws a legend swatch from the dataset's point style when
 * the legend uses point styles, and a dataset without one gets its default, a circle: a dashed reference line without
 * points was drawn in the legend as a dot.
 */
import { PointElement } from 'chart.js'
import { describe, expect, it } from 'vitest'
import { REFERENCE_DASH, SWEEP_LEGEND_LABELS, referenceLineDataset } from '../../../src-renderer/src/screens/experiments/referenceLineDefinition'
import { CELL_LEGEND_LABELS, budgetLineDataset } from '../../../src-renderer/src/screens/ledger/budgetLineDefinition'
import { dashedLegendLabels, legendItemsWithDashes } from '../../../src-renderer/src/components/legendDefinition'

/** The point style chart.js resolves for a line dataset's legend swatch (the dataset's own, else the default). */
const swatch = (ds: { pointStyle?: string }) => ds.pointStyle ?? (PointElement.defaults.pointStyle as string)

describe('legend swatches of dashed lines', () => {
  it('chart.js would draw a line with no point style as a circle (what the legends showed)', () => {
    expect(PointElement.defaults.pointStyle).toBe('circle')
  })

  it('the beta line of the sweep charts: dashed, no points, and a dashed line in the legend', () => {
    const beta = referenceLineDataset('beta = 0.05 (the promised bound)', { from: 1, to: 200 }, 0.05, '#b42318')
    expect(SWEEP_LEGEND_LABELS.usePointStyle).toBe(true)
    expect(beta.borderDash).toEqual(REFERENCE_DASH)
    expect(beta.pointRadius).toBe(0)
    expect(swatch(beta)).toBe('line')
    expect(beta.data).toEqual([
      { x: 1, y: 0.05 },
      { x: 200, y: 0.05 }
    ])
  })

  it('the budget over the spend-per-cell bars: a dashed line in the legend, a box when it is a bar', () => {
    expect(CELL_LEGEND_LABELS.usePointStyle).toBe(true)
    // Wide enough for two dashes of 6 px with their gap.
    expect(CELL_LEGEND_LABELS.pointStyleWidth).toBeGreaterThanOrEqual(16)
    const line = budgetLineDataset(4, 5, '#b42318')
    expect(line.type === 'line' && line.borderDash.length).toBeGreaterThan(0)
    expect(swatch(line)).toBe('line')
    expect(swatch(budgetLineDataset(1, 5, '#b42318'))).toBe('rect')
  })

  it("a line swatch is drawn with its dataset's dashes (chart.js takes them from the point options, which have none)", () => {
    expect(SWEEP_LEGEND_LABELS.generateLabels).toBe(dashedLegendLabels)
    expect(CELL_LEGEND_LABELS.generateLabels).toBe(dashedLegendLabels)
    const budget = budgetLineDataset(4, 5, '#b42318')
    const spent = { label: 'spent', borderDash: undefined }
    // As chart.js's generateLabels gives them with usePointStyle: the line's lineDash is the point element's (none).
    const items = [
      { text: 'spent', datasetIndex: 0, pointStyle: 'rect' as const, lineDash: undefined },
      { text: budget.label, datasetIndex: 1, pointStyle: 'line' as const, lineDash: undefined }
    ]
    const out = legendItemsWithDashes(items, [spent, budget])
    expect(out[1].lineDash).toEqual([6, 4])
    expect(out[0].lineDash).toBeUndefined()
    // A series with markers keeps its marker undashed, whatever its line's dashes.
    const marker = legendItemsWithDashes([{ text: 'tslm', datasetIndex: 0, pointStyle: 'circle' }], [{ borderDash: [6, 4] }])
    expect(marker[0].lineDash).toBeUndefined()
  })
})
