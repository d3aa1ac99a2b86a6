import { useMemo, useState } from 'react'
import type { ChartData, ChartOptions } from 'chart.js'
import type { ExperimentDetail } from '../../../../src-main/contract'
import { ChartView, PALETTE, type ChartKind } from '../../components/Chart'
import { SelectField } from '../../components/Fields'
import { metricChart, sweepsOf, X_WORKLOAD, type MetricChart, type SweepView } from './chartData'
import { axisTitle, metricTitle, metricUnit, POINT_STYLES, seriesPoints, xScaleKind } from './chartLook'
import { referenceLineDataset, SWEEP_LEGEND_LABELS } from './referenceLineDefinition'

const DASHES = [[], [6, 4], [2, 3], [10, 3, 2, 3]]

function toChartData(mc: MetricChart, numericX: boolean, betaLine: number | null): ChartData<ChartKind> {
  const mechanisms = [...new Set(mc.series.map((s) => s.mechanism))]
  const lines = mc.series.map((s, i) => {
    const mi = mechanisms.indexOf(s.mechanism)
    const sameMech = mc.series.filter((o) => o.mechanism === s.mechanism)
    const variant = sameMech.indexOf(s)
    const color = mechanisms.length > 1 ? PALETTE[mi % PALETTE.length] : PALETTE[i % PALETTE.length]
    const pts = seriesPoints(mc, s, numericX)
    return {
      label: s.label,
      data: pts.data,
      borderColor: color,
      backgroundColor: color,
      // Overlapping lines (NLM and TSLM often coincide) stay apart: a dash and a marker per series.
      borderDash: mechanisms.length > 1 ? DASHES[(variant + mi) % DASHES.length] : DASHES[i % DASHES.length],
      pointStyle: POINT_STYLES[i % POINT_STYLES.length],
      pointRadius: 4,
      borderWidth: 2,
      spanGaps: true,
      ci: pts.ci
    }
  })
  const beta =
    betaLine === null || !numericX
      ? []
      : [
          referenceLineDataset(
            `beta = ${betaLine} (the promised bound)`,
            { from: Math.min(...mc.labels.map(Number)), to: Math.max(...mc.labels.map(Number)) },
            betaLine,
            '#b42318'
          )
        ]
  return (numericX ? { datasets: [...lines, ...beta] } : { labels: mc.labels, datasets: lines }) as ChartData<ChartKind>
}

/** The beta every cell of the sweep was run with (the FNR chart draws it as a line), or null when it varies or is absent. */
function fixedBeta(view: SweepView): number | null {
  const betas = new Set(view.cells.map((c) => c.params.beta))
  const [b] = [...betas]
  return betas.size === 1 && typeof b === 'number' ? b : null
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
        {done} of {view.cells.length} cells of this sweep computed. Points are means over the trials; whiskers are 95% confidence intervals (Wilson
        for 0/1 metrics, normal otherwise).
      </p>
      <div className="chart-grid">
        {props.detail.metrics.map((m) => (
          <MetricPanel
            key={`${view.sweep}/${m.name}/${x}/${workload}`}
            detail={props.detail}
            viewIndex={views.indexOf(view)}
            metric={m}
            x={x}
            workload={workload}
          />
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
  const kind = props.x === X_WORKLOAD ? 'category' : xScaleKind(mc.labels)
  const numericX = kind !== 'category'
  const betaLine = props.metric.name === 'fnr' ? fixedBeta(view) : null
  const data = useMemo(() => toChartData(mc, numericX, betaLine), [mc, numericX, betaLine])
  const title = metricTitle(props.metric.name)
  const options: ChartOptions<ChartKind> = {
    plugins: {
      legend: { position: 'bottom', labels: SWEEP_LEGEND_LABELS },
      tooltip: { mode: 'index', intersect: false }
    },
    scales: {
      x: {
        type: kind,
        title: { display: true, text: `${axisTitle(mc.xLabel, props.detail.spec.engine)}${kind === 'logarithmic' ? ' — log scale' : ''}` },
        ...(numericX ? { ticks: { autoSkip: true, maxTicksLimit: 10 } } : {})
      },
      y: {
        title: { display: true, text: metricUnit(props.metric.name) },
        beginAtZero: true,
        // Room for the whiskers: the scale follows the data, the intervals are drawn by a plugin.
        suggestedMax: upper(mc)
      }
    }
  }
  return (
    <figure className="chart-figure" data-testid={`chart-${props.metric.name}`} data-x-scale={kind} data-beta-line={betaLine ?? undefined}>
      <figcaption>
        <strong>{title}</strong> <span className="hint">— {props.metric.description}</span>
      </figcaption>
      <ChartView
        type="line"
        data={data}
        options={options}
        label={`${title} over ${axisTitle(mc.xLabel, props.detail.spec.engine)}, one line per series`}
        height={250}
      />
    </figure>
  )
}
