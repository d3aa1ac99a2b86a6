/**
 * Legends that draw each dataset's point style (usePointStyle) take the swatch's dashes from the point element's options,
 * which have none: a dashed line's swatch (pointStyle 'line') came out solid. Every line swatch here carries its
 * dataset's own dashes. Pure over chart.js's legend items (unit-tested in test/unit/renderer/chart-legends.test.ts; the
 * node typecheck reaches it by its *Definition.ts name).
 */
import { Chart, type LegendItem } from 'chart.js'

export function legendItemsWithDashes(items: LegendItem[], datasets: ReadonlyArray<{ borderDash?: unknown }>): LegendItem[] {
  return items.map((item) => {
    const dash = item.datasetIndex === undefined ? undefined : datasets[item.datasetIndex]?.borderDash
    return item.pointStyle === 'line' && Array.isArray(dash) && dash.length > 0 ? { ...item, lineDash: dash as number[] } : item
  })
}

/** chart.js's own legend items, with the line swatches dashed as their datasets are. */
export function dashedLegendLabels(chart: Chart): LegendItem[] {
  return legendItemsWithDashes(
    Chart.defaults.plugins.legend.labels.generateLabels(chart),
    chart.data.datasets as ReadonlyArray<{ borderDash?: unknown }>
  )
}
