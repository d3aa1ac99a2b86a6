/**
 * A reference line across a sweep chart (the promised beta on the FNR chart): dashed, with no points, and shown in the
 * legend as the dashed line it is. The sweep charts' legends draw each dataset's point style (one marker per series), and
 * a dataset without one gets chart.js's default circle: a line with no points must carry pointStyle 'line', or its legend
 * swatch is a dot. Pure (unit-tested in test/unit/renderer/chart-legends.test.ts; the node typecheck reaches it by its
 * *Definition.ts name).
 */
import { dashedLegendLabels } from '../../components/legendDefinition'

export const REFERENCE_DASH = [4, 4]

export function referenceLineDataset(label: string, x: { from: number; to: number }, y: number, color: string) {
  return {
    label,
    data: [
      { x: x.from, y },
      { x: x.to, y }
    ],
    borderColor: color,
    backgroundColor: color,
    borderDash: REFERENCE_DASH,
    borderWidth: 1.5,
    pointRadius: 0,
    pointHoverRadius: 0,
    pointStyle: 'line' as const
  }
}

/** The sweep charts' legend: markers (point styles) at the size of the series' own, a reference line as a short dashed line. */
export const SWEEP_LEGEND_LABELS = { usePointStyle: true, boxWidth: 18, font: { size: 11 }, generateLabels: dashedLegendLabels }
