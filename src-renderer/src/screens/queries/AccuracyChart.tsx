import { useMemo } from 'react'
import type { ChartData, ChartOptions } from 'chart.js'
import type { AccuracyPreview } from '../../../../src-main/contract'
import { ChartView, PALETTE, type ChartKind } from '../../components/Chart'
import { formatEpsilon } from '../../format'
import { accuracyChartLabel } from './accuracyDefinition'

/**
 * Accuracy against the charge, before anything is spent (accuracy first): anomaly identification's error probability
 * (closed form), or a search's chance of finding the anomaly (seeded runs on public parameters). The request's charge
 * is marked; what the budget leaves is a line when known. Everything comes from `releases/accuracy` (public inputs).
 */
export function AccuracyChart(props: { accuracy: AccuracyPreview; remaining: number | null }) {
  const a = props.accuracy
  const data = useMemo(() => {
    const lines = a.series.map((s, i) => ({
      label: s.name,
      data: s.points.map((p) => ({ x: p.epsilon, y: p.value })),
      borderColor: PALETTE[i % PALETTE.length],
      backgroundColor: PALETTE[i % PALETTE.length],
      pointRadius: 3,
      borderWidth: 2
    }))
    const ys = a.series.flatMap((s) => s.points.map((p) => p.value))
    const marker = {
      label: 'your choice',
      data: [
        { x: a.currentEpsilon, y: Math.min(...ys) },
        { x: a.currentEpsilon, y: Math.max(...ys) }
      ],
      borderColor: '#333',
      backgroundColor: '#333',
      borderDash: [4, 3],
      borderWidth: 1.5,
      pointRadius: 0
    }
    const extra =
      props.remaining !== null && props.remaining > 0
        ? [
            {
              label: `left: ε ${formatEpsilon(props.remaining, 'down')}`,
              data: [
                { x: props.remaining, y: Math.min(...ys) },
                { x: props.remaining, y: Math.max(...ys) }
              ],
              borderColor: '#b42318',
              backgroundColor: '#b42318',
              borderDash: [6, 4],
              borderWidth: 1.5,
              pointRadius: 0
            }
          ]
        : []
    return { datasets: [...lines, marker, ...extra] } as ChartData<ChartKind>
  }, [a, props.remaining])
  const options: ChartOptions<ChartKind> = {
    plugins: { legend: { position: 'bottom', labels: { font: { size: 11 } } }, tooltip: { mode: 'nearest', intersect: false } },
    scales: {
      x: { type: 'logarithmic', title: { display: true, text: 'ε charged — log scale' } },
      y:
        a.measure === 'error'
          ? { type: 'logarithmic', title: { display: true, text: a.valueLabel } }
          : { min: 0, max: 1, title: { display: true, text: a.valueLabel } }
    }
  }
  return (
    <figure className="chart-figure narrow-chart" data-testid="accuracy-chart" data-measure={a.measure}>
      <figcaption>
        <strong>Accuracy against ε</strong> <span className="hint">— {a.measure === 'error' ? 'lower is better' : 'higher is better'}</span>
      </figcaption>
      <ChartView type="line" data={data} options={options} label={accuracyChartLabel(a)} height={220} />
      <p className="hint" data-testid="accuracy-sentence">
        {a.sentence} <span className="muted">({a.method}.)</span>
      </p>
    </figure>
  )
}
