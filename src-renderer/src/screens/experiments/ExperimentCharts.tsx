import { useMemo, useState } from 'react'
import type { ChartData, ChartOptions } from 'chart.js'
import type { ExperimentDetail } from '../../../../src-main/contract'
import { ChartView, PALETTE, type ChartKind } from '../../components/Chart'
import { SelectField } from '../../components/Fields'
import { metricChart, sweepsOf, X_WORKLOAD, type MetricChart } from './chartData'

const DASHES = [[], [6, 4], [2, 3], [10, 3, 2, 3]]

function toChartData(mc: MetricChart): ChartData<ChartKind> {
  const mechanisms = [...new Set(mc.series.map((s) => s.mechanism))]
  return {
    labels: mc.labels,
    datasets: mc.series.map((s, i) => {
      const mi = mechanisms.indexOf(s.mechanism)
      const sameMech = mc.series.filter((o) => o.mechanism === s.mechanism)
      const variant = sameMech.indexOf(s)
      const color = mechanisms.length > 1 ? PALETTE[mi % PALETTE.length] : PALETTE[i % PALETTE.length]
      return {
        label: s.label,
        data: s.points.map((p) => p.mean),
        borderColor: color,
        backgroundColor: color,
        borderDash: mechanisms.length > 1 ? DASHES[variant % DASHES.length] : [],
        pointRadius: 3,
        borderWidth: 2,
        spanGaps: true,
        ci: s.points.map((p) => p.ci)
      }
    })
  } as ChartData<ChartKind>
}

/** The papers' figures: every metric over the chosen x, one line per mechanism, 95% confidence intervals as whiskers. */
export function ExperimentCharts(props: { detail: ExperimentDetail }) {
  const views = useMemo(() => sweepsOf(props.detail.cells), [props.detail.cells])
  const [sweepName, setSweepName] = useState<string>('')
  const view = views.find((v) => v.sweep === sweepName) ?? views[0]
  const [xChoice, setX] = useState<string>('')
  const [workloadChoice, setWorkload] = useState<string>('')
  if (!view) return null
  const xOptions = [...view.varying.filter((k) => k !== 'workload'), X_WORKLOAD]
  const x = xOptions.includes(xChoice) ? xChoice : xOptions[0]
  const workloadOptions = view.workloads.length > 1 && x !== X_WORKLOAD ? view.workloads : []
  const workload = workloadOptions.length === 0 ? null : workloadOptions.includes(workloadChoice) ? workloadChoice : workloadOptions[0]
  const done = view.cells.filter((c) => c.status === 'done').length

  return (
    <section className="panel" aria-labelledby="charts-title" data-testid="experiment-charts">
      <div className="panel-head">
        <h2 id="charts-title">Charts</h2>
      </div>
      <div className="row">
        {views.length > 1 && (
          <SelectField
            label="Sweep"
            value={view.sweep}
            onChange={setSweepName}
            options={views.map((v) => ({ value: v.sweep, label: `${v.sweep} (${v.cells.length} cells)` }))}
            testId="chart-sweep"
          />
        )}
        <SelectField
          label="Horizontal axis"
          value={x}
          onChange={setX}
          options={xOptions.map((k) => ({ value: k, label: k === X_WORKLOAD ? 'workload' : k }))}
          testId="chart-x"
        />
        {workloadOptions.length > 0 && (
          <SelectField
            label="Workload"
            value={workload ?? ''}
            onChange={setWorkload}
            options={workloadOptions.map((w) => ({ value: w, label: w }))}
            testId="chart-workload"
          />
        )}
      </div>
      <p className="hint">
        {done} of {view.cells.length} cells of this sweep computed. Points are means over the trials; whiskers are 95% confidence
        intervals (Wilson for 0/1 metrics, normal otherwise).
      </p>
      <div className="chart-grid">
        {props.detail.metrics.map((m) => (
          <MetricPanel key={`${view.sweep}/${m.name}/${x}/${workload}`} detail={props.detail} viewIndex={views.indexOf(view)} metric={m} x={x} workload={workload} />
        ))}
      </div>
    </section>
  )
}

function upper(mc: MetricChart): number | undefined {
  let m = -Infinity
  for (const s of mc.series) for (const p of s.points) m = Math.max(m, p.ci?.[1] ?? -Infinity, p.mean ?? -Infinity)
  return Number.isFinite(m) && m > 0 ? m : undefined
}

function MetricPanel(props: {
  detail: ExperimentDetail
  viewIndex: number
  metric: ExperimentDetail['metrics'][number]
  x: string
  workload: string | null
}) {
  const views = useMemo(() => sweepsOf(props.detail.cells), [props.detail.cells])
  const view = views[props.viewIndex]
  const mc = useMemo(() => metricChart(view, props.metric.name, props.x, props.workload), [view, props.metric.name, props.x, props.workload])
  const data = useMemo(() => toChartData(mc), [mc])
  const options: ChartOptions<ChartKind> = {
    plugins: {
      legend: { position: 'bottom', labels: { boxWidth: 18, font: { size: 11 } } },
      tooltip: { mode: 'index', intersect: false }
    },
    scales: {
      x: { title: { display: true, text: mc.xLabel } },
      y: {
        title: { display: true, text: props.metric.name },
        beginAtZero: true,
        // Room for the whiskers: the scale follows the data, the intervals are drawn by a plugin.
        suggestedMax: upper(mc)
      }
    }
  }
  return (
    <figure className="chart-figure" data-testid={`chart-${props.metric.name}`}>
      <figcaption>
        <strong>{props.metric.name}</strong> <span className="hint">— {props.metric.description}</span>
      </figcaption>
      <ChartView type="line" data={data} options={options} label={`${props.metric.name} over ${mc.xLabel}, one line per series`} height={250} />
    </figure>
  )
}
