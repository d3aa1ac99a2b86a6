import { useMemo } from 'react'
import type { ChartData, ChartOptions } from 'chart.js'
import type { ReleasePreview } from '../../../../src-main/contract'
import { ChartView, PALETTE, type ChartKind } from '../../components/Chart'
import { formatEpsilon } from '../../format'

/** Log-axis labels only at 1, 2 and 5 times a power of ten (the others crowd). */
function oneTwoFive(v: number | string): string {
  const x = Number(v)
  if (!(x > 0)) return ''
  const lead = x / 10 ** Math.floor(Math.log10(x) + 1e-9)
  return [1, 2, 5].some((k) => Math.abs(lead - k) < 1e-6) ? String(Number(x.toPrecision(3))) : ''
}

/**
 * See the trade-off before spending: what the question costs over a range of alphas (beta fixed), what the
 * budgets leave as a line, and the current choice marked. Prices come from the preview (definition, formula, ledger).
 */
export function TradeoffChart(props: { preview: ReleasePreview }) {
  const p = props.preview
  const t = p.tradeoff
  const data = useMemo(() => {
    if (!t) return null
    const xs = t.points.map((q) => q.value)
    const datasets: unknown[] = [
      {
        label: 'charge ε',
        data: t.points.map((q) => ({ x: q.value, y: q.epsilon })),
        borderColor: PALETTE[0],
        backgroundColor: PALETTE[0],
        pointRadius: 3,
        borderWidth: 2
      },
      {
        label: 'your choice',
        data: [{ x: t.current, y: p.epsilon }],
        borderColor: PALETTE[1],
        backgroundColor: PALETTE[1],
        pointRadius: 7,
        pointStyle: 'rectRot',
        showLine: false
      }
    ]
    if (p.remaining !== null) {
      datasets.push({
        label: `left: ε ${formatEpsilon(p.remainingExact, 'down')}`,
        data: [
          { x: Math.min(...xs), y: Math.max(0, p.remaining) },
          { x: Math.max(...xs), y: Math.max(0, p.remaining) }
        ],
        borderColor: '#b42318',
        backgroundColor: '#b42318',
        borderDash: [6, 4],
        borderWidth: 1.5,
        pointRadius: 0
      })
    }
    return { datasets } as ChartData<ChartKind>
  }, [t, p.epsilon, p.remaining, p.remainingExact])
  if (!t || !data) return null
  const options: ChartOptions<ChartKind> = {
    plugins: { legend: { position: 'bottom', labels: { usePointStyle: true, font: { size: 11 } } }, tooltip: { mode: 'nearest', intersect: false } },
    scales: {
      x: {
        type: 'logarithmic',
        title: { display: true, text: 'alpha (tolerance below the threshold) — log scale' },
        ticks: { maxRotation: 0, callback: oneTwoFive }
      },
      y: { type: 'logarithmic', title: { display: true, text: 'charge ε' }, ticks: { callback: oneTwoFive } }
    }
  }
  const fits = t.points.filter((q) => p.remaining !== null && q.epsilon * 1e9 <= Math.round(p.remaining * 1e9))
  return (
    <figure className="chart-figure narrow-chart" data-testid="tradeoff-chart" data-points={t.points.length}>
      <figcaption>
        <strong>Accuracy against price</strong>{' '}
        <span className="hint">
          — at beta as set; a larger alpha tolerates more near misses and costs less. The dashed line is what the budget leaves.
        </span>
      </figcaption>
      <ChartView
        type="line"
        data={data}
        options={options}
        label={`Charge over alpha from ${t.points[0].value} to ${t.points[t.points.length - 1].value}; ${
          p.remaining === null ? 'no budget' : fits.length === 0 ? 'none of these fits what is left' : `fits what is left from alpha ${fits[0].value}`
        }`}
        height={200}
      />
    </figure>
  )
}
