/**
 * The budget drawn over the spend-per-cell bars. A line through one point draws nothing, so with a single cell (e.g. the
 * whole dataset) the legend said "budget" over a chart without it: there the budget is a pale bar beside the spend (as in
 * the notions chart); with several cells, a dashed line across them. The legend draws each dataset's point style: a bar
 * is a box, the line a dashed line (chart.js's default point style would draw it as a dot). Pure (unit-tested in
 * test/unit/renderer/budget-line.test.ts; the node typecheck reaches it by its *Definition.ts name).
 */
import { formatEpsilon } from '../../../../src-main/contract/format-epsilon'
import { dashedLegendLabels } from '../../components/legendDefinition'

export function budgetLineDataset(cellCount: number, limit: number, color: string) {
  const label = `budget (ε ${formatEpsilon(limit)})`
  const data = Array.from({ length: cellCount }, () => limit)
  if (cellCount === 1)
    return { type: 'bar' as const, label, data, backgroundColor: '#f3c7c3', borderColor: color, borderWidth: 1, pointStyle: 'rect' as const }
  return { type: 'line' as const, label, data, borderColor: color, borderDash: [6, 4], borderWidth: 2, pointRadius: 0, pointStyle: 'line' as const }
}

/** The spend-per-cell legend: each dataset's point style (boxes for bars, a dashed line for the budget), wide enough to show the dashes. */
export const CELL_LEGEND_LABELS = { usePointStyle: true, pointStyleWidth: 28, generateLabels: dashedLegendLabels }
