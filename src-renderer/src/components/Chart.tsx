/**
 * chart.js behind one React component. Registers only the parts the app uses (tree-shaken), never evaluates code
 * (CSP: no inline scripts, no eval), and redraws at most a few times a second however often its data changes.
 */
import { useEffect, useRef } from 'react'
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LogarithmicScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartData,
  type ChartOptions,
  type Plugin
} from 'chart.js'

/** Confidence intervals as whiskers: a dataset may carry `ci: Array<[low, high] | null>` aligned with its data. */
const ciWhiskers: Plugin<'line' | 'bar'> = {
  id: 'ciWhiskers',
  afterDatasetsDraw(chart) {
    const { ctx } = chart
    const y = chart.scales.y
    if (!y) return
    chart.data.datasets.forEach((ds, i) => {
      const ci = (ds as { ci?: Array<[number, number] | null> }).ci
      const meta = chart.getDatasetMeta(i)
      if (!ci || meta.hidden) return
      ctx.save()
      const area = chart.chartArea
      ctx.beginPath()
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top)
      ctx.clip()
      ctx.strokeStyle = (ds.borderColor as string) ?? '#333'
      ctx.lineWidth = 1.2
      meta.data.forEach((el, j) => {
        const iv = ci[j]
        if (!iv) return
        const x = el.x
        const lo = y.getPixelForValue(iv[0])
        const hi = y.getPixelForValue(iv[1])
        ctx.beginPath()
        ctx.moveTo(x, lo)
        ctx.lineTo(x, hi)
        ctx.moveTo(x - 3, lo)
        ctx.lineTo(x + 3, lo)
        ctx.moveTo(x - 3, hi)
        ctx.lineTo(x + 3, hi)
        ctx.stroke()
      })
      ctx.restore()
    })
  }
}

Chart.register(
  LineController,
  BarController,
  LineElement,
  PointElement,
  BarElement,
  CategoryScale,
  LinearScale,
  LogarithmicScale,
  Legend,
  Tooltip,
  ciWhiskers
)
Chart.defaults.font.family = "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif"
Chart.defaults.color = '#3b4556'
Chart.defaults.animation = false

/** Series colours, distinguishable and readable on white. */
export const PALETTE = ['#2b5fd9', '#d9480f', '#1f7a3d', '#7a4cc2', '#b08900', '#0f6e6e', '#c2255c', '#495057']

export const MIN_REDRAW_MS = 400

export type ChartKind = 'line' | 'bar'

export function ChartView(props: {
  type: ChartKind
  data: ChartData<ChartKind>
  options?: ChartOptions<ChartKind>
  /** What the chart shows, for screen readers (the same data is also in a table nearby). */
  label: string
  height?: number
  testId?: string
}) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const chart = useRef<Chart<ChartKind> | null>(null)
  const latest = useRef({ data: props.data, options: props.options })
  const lastDraw = useRef(0)
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  latest.current = { data: props.data, options: props.options }
  const fullOptions = () => ({ responsive: true, maintainAspectRatio: false, ...latest.current.options }) as ChartOptions<ChartKind>

  useEffect(() => {
    if (!canvas.current) return
    chart.current = new Chart(canvas.current, { type: props.type, data: latest.current.data, options: fullOptions() })
    lastDraw.current = Date.now()
    return () => {
      if (timer.current) clearTimeout(timer.current)
      timer.current = null
      chart.current?.destroy()
      chart.current = null
    }
  }, [props.type])

  // Data and options changes are applied in place, at most every MIN_REDRAW_MS.
  const optionsKey = JSON.stringify(props.options ?? {})
  useEffect(() => {
    const draw = () => {
      timer.current = null
      lastDraw.current = Date.now()
      if (!chart.current) return
      chart.current.data = latest.current.data
      chart.current.options = fullOptions()
      chart.current.update('none')
    }
    if (timer.current) return
    const wait = MIN_REDRAW_MS - (Date.now() - lastDraw.current)
    if (wait <= 0) draw()
    else timer.current = setTimeout(draw, wait)
  }, [props.data, optionsKey])

  return (
    <div className="chart" style={{ height: props.height ?? 260 }} data-testid={props.testId}>
      <canvas ref={canvas} role="img" aria-label={props.label} />
    </div>
  )
}
