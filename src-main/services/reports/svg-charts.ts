/**
 * Charts for the report, drawn as inline SVG strings here (no script, no animation, no library in the page): the PDF is
 * exactly what the template says, prints immediately, and its labels are real text (pdftotext and screen readers see them).
 */
import { type Html, joinHtml, markup } from './html'

/** Okabe-Ito: distinguishable with the common colour-vision deficiencies. */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000']

const FONT = markup`font-family="'DejaVu Sans', 'Liberation Sans', Arial, sans-serif"`

/** Short number text for axes and labels: at most 4 significant digits. */
export function shortNumber(x: number): string {
  if (!Number.isFinite(x)) return ''
  // Below 1e-12 is floating-point noise around 0 (a CI bound of 3.47e-18): shown as 0.
  if (Math.abs(x) < 1e-12) return '0'
  const a = Math.abs(x)
  if (a >= 1e5 || a < 1e-3) return x.toExponential(1).replace('e+', 'e')
  return String(Number(x.toPrecision(4)))
}

/** About `count` round tick values covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) hi = lo + (lo === 0 ? 1 : Math.abs(lo))
  const raw = (hi - lo) / count
  const mag = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag
  const out: number[] = []
  for (let v = Math.floor(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)))
  return out
}

/** `text` in lines of at most `max` characters, broken between words (a longer word stands on its own line). */
export function wrapWords(text: string, max: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > max) {
      lines.push(line)
      line = word
    } else line = line === '' ? word : `${line} ${word}`
  }
  if (line !== '' || lines.length === 0) lines.push(line)
  return lines
}

export interface Bar {
  label: string
  value: number
  /** Shown beside the bar (exact text); default shortNumber(value). */
  valueText?: string
  /** A marker line (e.g. the budget). */
  limit?: number | null
}

/** Horizontal bars with an optional limit marker per bar (spend against budget). */
export function horizontalBars(opts: { title: string; bars: Bar[]; width?: number; limitLabel?: string; emptyText?: string }): Html {
  const width = opts.width ?? 640
  const labelW = Math.min(260, Math.round(width * 0.36))
  const valueW = 165
  const rowH = 18
  // The title wraps at words (bold 11 px text is about 6.6 px a character), never cut at the chart's edge.
  const titleLines = wrapWords(opts.title, Math.floor(width / 6.6))
  const top = 10 + titleLines.length * 14
  const plotW = width - labelW - valueW - 10
  const height = top + Math.max(1, opts.bars.length) * rowH + 22
  const max = Math.max(1e-12, ...opts.bars.map((b) => b.value), ...opts.bars.map((b) => b.limit ?? 0))
  const x = (v: number) => labelW + (Math.max(0, v) / max) * plotW
  const parts: Html[] = [
    markup`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="10" role="img" aria-label="${opts.title}">`,
    markup`<text x="0" y="13" font-size="11" font-weight="bold">${titleLines.map((l, i) => markup`<tspan x="0" dy="${i === 0 ? 0 : 14}">${l}</tspan>`)}</text>`
  ]
  if (opts.bars.length === 0) {
    parts.push(markup`<text x="${labelW}" y="${top + 12}" fill="#666">${opts.emptyText ?? 'nothing to show'}</text>`)
  }
  opts.bars.forEach((b, i) => {
    const y = top + i * rowH
    const label = b.label.length > 44 ? b.label.slice(0, 43) + '…' : b.label
    parts.push(markup`<text x="${labelW - 6}" y="${y + 12}" text-anchor="end">${label}</text>`)
    parts.push(markup`<rect x="${labelW}" y="${y + 3}" width="${plotW}" height="${rowH - 6}" fill="#f1f3f5"/>`)
    parts.push(markup`<rect x="${labelW}" y="${y + 3}" width="${(x(b.value) - labelW).toFixed(2)}" height="${rowH - 6}" fill="${PALETTE[0]}"/>`)
    if (b.limit !== undefined && b.limit !== null) {
      const lx = x(b.limit).toFixed(2)
      parts.push(markup`<line x1="${lx}" x2="${lx}" y1="${y + 1}" y2="${y + rowH - 1}" stroke="#B00020" stroke-width="2"/>`)
    }
    parts.push(markup`<text x="${labelW + plotW + 6}" y="${y + 12}">${b.valueText ?? shortNumber(b.value)}</text>`)
  })
  const ly = top + Math.max(1, opts.bars.length) * rowH + 14
  parts.push(markup`<rect x="${labelW}" y="${ly - 8}" width="10" height="8" fill="${PALETTE[0]}"/><text x="${labelW + 14}" y="${ly}">spent</text>`)
  if (opts.bars.some((b) => b.limit !== undefined && b.limit !== null)) {
    parts.push(markup`<line x1="${labelW + 70}" x2="${labelW + 70}" y1="${ly - 9}" y2="${ly + 1}" stroke="#B00020" stroke-width="2"/>`)
    parts.push(markup`<text x="${labelW + 76}" y="${ly}">${opts.limitLabel ?? 'budget'}</text>`)
  }
  parts.push(markup`</svg>`)
  return joinHtml(parts)
}

export interface LinePoint {
  x: number | string
  y: number | null
  lo?: number | null
  hi?: number | null
}

export interface LineSeries {
  name: string
  points: LinePoint[]
}

/** A small line chart: one line per series, optional confidence band, linear / log / categorical x. */
export function lineChart(opts: { title: string; xLabel: string; series: LineSeries[]; width?: number; height?: number; yMin?: number }): Html {
  const width = opts.width ?? 320
  const height = opts.height ?? 200
  const m = { left: 46, right: 10, top: 22, bottom: 34 }
  const plotW = width - m.left - m.right
  const plotH = height - m.top - m.bottom
  const pts = opts.series.flatMap((s) => s.points)
  const numericX = pts.every((p) => typeof p.x === 'number')
  const categories = numericX ? [] : [...new Set(pts.map((p) => String(p.x)))]
  const xs = numericX ? (pts.map((p) => p.x) as number[]) : []
  const xMin = xs.length ? Math.min(...xs) : 0
  const xMax = xs.length ? Math.max(...xs) : 1
  const logX = numericX && xMin > 0 && xMax / xMin >= 100
  const ys = pts.flatMap((p) => [p.y, p.lo ?? null, p.hi ?? null]).filter((v): v is number => v !== null && Number.isFinite(v))
  let yLo = Math.min(opts.yMin ?? 0, ...(ys.length ? ys : [0]))
  let yHi = Math.max(...(ys.length ? ys : [1]))
  if (yHi <= yLo) yHi = yLo + (yLo === 0 ? 1 : Math.abs(yLo) * 0.1)
  const ticks = niceTicks(yLo, yHi, 4)
  yLo = Math.min(yLo, ticks[0])
  yHi = Math.max(yHi, ticks[ticks.length - 1])
  const fx = (x: number | string): number => {
    if (!numericX) {
      const i = categories.indexOf(String(x))
      return m.left + (categories.length <= 1 ? plotW / 2 : (i / (categories.length - 1)) * plotW)
    }
    const v = x as number
    if (xMax === xMin) return m.left + plotW / 2
    const t = logX ? (Math.log10(v) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin)) : (v - xMin) / (xMax - xMin)
    return m.left + t * plotW
  }
  const fy = (y: number) => m.top + plotH - ((y - yLo) / (yHi - yLo)) * plotH
  const parts: Html[] = [
    markup`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="9" role="img" aria-label="${opts.title}">`,
    markup`<text x="${m.left}" y="12" font-size="10" font-weight="bold">${opts.title}</text>`,
    markup`<rect x="${m.left}" y="${m.top}" width="${plotW}" height="${plotH}" fill="#fafafa" stroke="#ccc"/>`
  ]
  for (const t of ticks) {
    const y = fy(t).toFixed(2)
    parts.push(markup`<line x1="${m.left}" x2="${m.left + plotW}" y1="${y}" y2="${y}" stroke="#e3e3e3"/>`)
    parts.push(markup`<text x="${m.left - 4}" y="${Number(y) + 3}" text-anchor="end">${shortNumber(t)}</text>`)
  }
  // On a log axis: 1, 2, 5 x powers of ten (the swept values crowd at the top end); labels never closer than 24 px.
  const logTicks = (): number[] => {
    const out: number[] = []
    for (let d = Math.floor(Math.log10(xMin)); d <= Math.ceil(Math.log10(xMax)); d++)
      for (const k of [1, 2, 5]) out.push(Number((k * 10 ** d).toPrecision(3)))
    return out.filter((v) => v >= xMin * (1 - 1e-9) && v <= xMax * (1 + 1e-9))
  }
  const xTicks: Array<number | string> = logX ? logTicks() : numericX ? [...new Set(xs)].sort((a, b) => a - b) : categories
  const stride = logX ? 1 : Math.max(1, Math.ceil(xTicks.length / 7))
  let lastX = -Infinity
  xTicks.forEach((t, i) => {
    if (i % stride !== 0 && i !== xTicks.length - 1) return
    if (fx(t) - lastX < 24) return
    lastX = fx(t)
    const x = fx(t).toFixed(2)
    const text = typeof t === 'number' ? shortNumber(t) : t.length > 12 ? t.slice(0, 11) + '…' : t
    parts.push(markup`<line x1="${x}" x2="${x}" y1="${m.top + plotH}" y2="${m.top + plotH + 3}" stroke="#888"/>`)
    parts.push(markup`<text x="${x}" y="${m.top + plotH + 13}" text-anchor="middle">${text}</text>`)
  })
  parts.push(
    markup`<text x="${m.left + plotW / 2}" y="${height - 6}" text-anchor="middle" fill="#444">${opts.xLabel + (logX ? ' (log scale)' : '')}</text>`
  )
  opts.series.forEach((s, si) => {
    const color = PALETTE[si % PALETTE.length]
    const sorted = [...s.points].sort((a, b) => fx(a.x) - fx(b.x))
    const band = sorted.filter((p) => p.lo !== undefined && p.lo !== null && p.hi !== undefined && p.hi !== null)
    if (band.length >= 2) {
      const upper = band.map((p) => `${fx(p.x).toFixed(2)},${fy(p.hi as number).toFixed(2)}`)
      const lower = band.map((p) => `${fx(p.x).toFixed(2)},${fy(p.lo as number).toFixed(2)}`).reverse()
      parts.push(markup`<polygon points="${[...upper, ...lower].join(' ')}" fill="${color}" fill-opacity="0.15" stroke="none"/>`)
    }
    const line = sorted.filter((p) => p.y !== null && Number.isFinite(p.y))
    if (line.length >= 2) {
      parts.push(
        markup`<polyline points="${line.map((p) => `${fx(p.x).toFixed(2)},${fy(p.y as number).toFixed(2)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="1.5"/>`
      )
    }
    for (const p of line) parts.push(markup`<circle cx="${fx(p.x).toFixed(2)}" cy="${fy(p.y as number).toFixed(2)}" r="2.2" fill="${color}"/>`)
  })
  parts.push(markup`</svg>`)
  return joinHtml(parts)
}

/** An HTML legend for a set of series (shared by several small charts). */
export function legendHtml(names: string[]): Html {
  return markup`<div class="legend">${names.map((n, i) => markup`<span><i style="background:${PALETTE[i % PALETTE.length]}"></i>${n}</span>`)}</div>`
}
